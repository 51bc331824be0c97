// The queue launcher (coordinator side): each launch of an item becomes a BullMQ job on the swarm's queue; a
// `murmur worker` somewhere runs it and sends back its end and its diff, which is applied here. Progress comes
// back live through QueueEvents (with a slow poll as a safety net for events missed while Redis was away), and is
// reported to the runner like a local attempt's. A finished job leaves Redis once the runner has journaled what it
// brought (forget), so Redis holds only what is in flight or not yet collected.
import type { Redis as RedisClient } from 'ioredis';
import type { Queue, QueueEvents } from 'bullmq';
import type { Usage } from '../../orchestrator/types.js';
import type { AgentProfile } from '../../roles/profile.js';
import type { AttemptProgress, LaunchableItem } from '../item-state.js';
import type { Attempt, ItemLauncher } from '../item-launcher.js';
import type { ItemResult } from '../report.js';
import type { SavedQueue } from '../saved-swarm.js';
import { WaitingDiffs } from './diffs.js';
import { JOB_FORMAT, type ItemJob, type ItemProgress } from './job.js';
import { HEARTBEAT_MS, heartbeat, unlist } from './listing.js';
import { completedAttempt, failedAttempt, plainResult } from './outcome.js';
import { importPeer } from '../../tools/optional-peer.js';

export interface QueueLauncherSpec {
  swarmId: string;
  profile: AgentProfile;
  template?: string;
  verify: boolean;
  maxRounds: number;
  itemTimeoutMs: number;
  permissionMode?: string;
  effort?: string;
  sandbox?: { network: boolean };
  maxModelRequests: number;
  /** The queue's name, the base commit, the workspace's folder in the repository, the model spec. */
  queue: SavedQueue;
  /** The capacity the swarm starts with (the controller's burst): BullMQ's global concurrency follows it. */
  initialCapacity: number;
}

export interface QueueLauncherDeps {
  /** A new Redis connection (BullMQ wants its own per Queue and QueueEvents). */
  open: () => RedisClient;
  /** The repository's top folder: diffs apply there. */
  root: string;
  /** Where patches that do not apply are kept (`patches/` inside it): the session's folder. */
  patchesHome: string;
  /** A worker's usage joins the run's. */
  addUsage: (usage: Usage) => void;
  /** How often in-flight jobs are looked at directly (events missed while Redis restarted). */
  pollMs?: number;
  /** How often the queue's heartbeat is refreshed (workers serve only queues with a fresh one). */
  heartbeatMs?: number;
  /** Things a person should know (jobs that vanished from Redis and were queued again). */
  log?: (message: string) => void;
  /** The trace context of an item's span (a W3C traceparent), to travel in its job; absent when none is recorded. */
  traceContext?: (index: number) => string | undefined;
}

interface Waiting {
  index: number;
  /** The item as its attempt began. */
  item: LaunchableItem;
  report: (report: AttemptProgress) => void;
  resolve: (attempt: Attempt) => void;
  /** Stops listening to the attempt's signal. */
  release: () => void;
}

export class QueueLauncher implements ItemLauncher {
  private readonly byJob = new Map<string, Waiting>();
  private readonly poll: NodeJS.Timeout;
  private readonly beat: NodeJS.Timeout;
  private closed = false;
  /** Diffs of completed jobs, applied by commit() in item order. */
  private readonly diffs: WaitingDiffs;
  /** Jobs left out when the swarm stopped: they stay, for `murmur resume` to collect. */
  private readonly leftOut = new Set<string>();
  /** Jobs in flight known to be on the queue (added, or found there): one that disappears from Redis is queued again. */
  private readonly queued = new Set<string>();
  /** Removals of collected jobs under way: finish() waits for them. */
  private readonly removals = new Set<Promise<unknown>>();
  /** A poll round is under way: rounds never pile up behind a slow Redis. */
  private polling = false;
  /** The capacity last asked for: set again when Redis lost it with the jobs. */
  private lastCapacity: number;

  private constructor(
    readonly spec: QueueLauncherSpec,
    private readonly deps: QueueLauncherDeps,
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly redis: RedisClient,
    private readonly connections: readonly RedisClient[],
  ) {
    this.lastCapacity = Math.max(1, spec.initialCapacity);
    this.diffs = new WaitingDiffs(deps.root, deps.patchesHome);
    // Connection errors while Redis is away are retried by ioredis; unheard they would end the process.
    events.on('error', () => undefined);
    queue.on('error', () => undefined);
    events.on('progress', ({ jobId, data }) => this.progress(jobId, data));
    events.on('completed', ({ jobId, returnvalue }) => this.completed(jobId, returnvalue));
    events.on('failed', ({ jobId, failedReason }) => this.failed(jobId, failedReason));
    this.poll = setInterval(() => void this.pollInFlight(), deps.pollMs ?? 1000);
    this.poll.unref();
    this.beat = setInterval(
      () => void heartbeat(redis, spec.queue.name).catch(() => undefined),
      deps.heartbeatMs ?? HEARTBEAT_MS,
    );
    this.beat.unref();
  }

  static async open(spec: QueueLauncherSpec, deps: QueueLauncherDeps): Promise<QueueLauncher> {
    const { Queue, QueueEvents } = await importPeer(() => import('bullmq'), 'bullmq', 'a queue swarm');
    // BullMQ never closes a connection it was given: these are closed in finish().
    const connections: RedisClient[] = [];
    const open = () => {
      const client = deps.open();
      connections.push(client);
      return client;
    };
    let queue: Queue | undefined;
    let events: QueueEvents | undefined;
    try {
      queue = new Queue(spec.queue.name, { connection: open() });
      events = new QueueEvents(spec.queue.name, { connection: open() });
      queue.on('error', () => undefined);
      events.on('error', () => undefined);
      await events.waitUntilReady();
      const redis = open();
      await queue.setGlobalConcurrency(Math.max(1, spec.initialCapacity));
      // Workers serve the queues listed here while their coordinator's heartbeat is fresh.
      await heartbeat(redis, spec.queue.name);
      return new QueueLauncher(spec, deps, queue, events, redis, connections);
    } catch (error) {
      // Reconnecting clients would keep the process alive after the error is printed.
      for (const client of connections) client.disconnect();
      void events?.close().catch(() => undefined);
      void queue?.close().catch(() => undefined);
      throw error;
    }
  }

  run(
    index: number,
    item: LaunchableItem,
    report: (report: AttemptProgress) => void,
    signal: AbortSignal,
  ): Promise<Attempt> {
    // The job a resumed coordinator collects again, else a new one. Saved before the job exists: a coordinator
    // killed in between adds the same job id again on resume.
    const out = item.status === 'queued' ? item.jobId : undefined;
    const jobAttempts = out !== undefined ? (item.jobAttempts ?? 1) : (item.jobAttempts ?? 0) + 1;
    const id = out ?? `item-${index + 1}-${jobAttempts}`;
    report({ kind: 'job', jobId: id, jobAttempts });
    if (out !== undefined) this.diffs.carry(index);
    // The job stays when the swarm stops: it may finish on its worker meanwhile, and `murmur resume` collects it.
    const stop = () => {
      if (!this.byJob.has(id)) return;
      this.leftOut.add(id);
      this.end(id, {
        kind: 'done',
        result: plainResult(
          index,
          item,
          'aborted',
          'the swarm was stopped; its job stays on the queue and murmur resume collects it',
        ),
        jobId: id,
      });
    };
    return new Promise<Attempt>((resolve) => {
      const release = () => signal.removeEventListener('abort', stop);
      this.byJob.set(id, { index, item, report, resolve, release });
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      void this.enqueue(index, item, id).catch((error: unknown) =>
        this.end(id, {
          kind: 'done',
          result: plainResult(index, item, 'failed', `the job could not be queued: ${(error as Error).message}`),
        }),
      );
    });
  }

  async keep(_index: number, result: ItemResult): Promise<ItemResult> {
    return result;
  }

  /** The item's end (or its rate limit) is journaled: nothing needs its job any more, so it leaves Redis. */
  forget(jobId: string): void {
    this.queued.delete(jobId);
    // A finished swarm's queue goes whole; a stopped one's left-out jobs stay for the resume.
    if (this.closed || this.leftOut.has(jobId)) return;
    // Redis away: the job stays until the finished swarm removes its queue (a resume never asks for it).
    const removal = this.queue.remove(jobId).catch(() => 0);
    this.removals.add(removal);
    void removal.finally(() => this.removals.delete(removal));
  }

  /** BullMQ's global concurrency follows the swarm's capacity: the ramp and the rate-limit adaptation hold for all workers together. */
  capacity(capacity: number): void {
    this.lastCapacity = Math.max(1, capacity);
    if (!this.closed) void this.queue.setGlobalConcurrency(this.lastCapacity).catch(() => undefined);
  }

  /** The swarm ended: a finished queue is removed; one with items left stays for `murmur resume`. */
  async finish(): Promise<void> {
    this.closed = true;
    clearInterval(this.poll);
    clearInterval(this.beat);
    // Jobs still out (the swarm was stopped) stay for `murmur resume`; otherwise the queue has served.
    const jobsOut = this.leftOut.size > 0 || this.byJob.size > 0;
    await Promise.allSettled([...this.removals]);
    try {
      if (!jobsOut) {
        await unlist(this.redis, this.spec.queue.name);
        await this.queue.obliterate({ force: true });
      }
    } catch {
      // Redis away: the queue stays; nothing is lost.
    }
    await Promise.allSettled([this.events.close(), this.queue.close()]);
    for (const client of this.connections) client.disconnect();
  }

  private jobData(index: number, s: LaunchableItem): ItemJob | string {
    if (s.prompt === undefined)
      return 'a resumed subagent cannot move to a queue worker (its conversation is on this machine)';
    const data: ItemJob = {
      format: JOB_FORMAT,
      swarmId: this.spec.swarmId,
      index,
      item: s.item,
      prompt: s.prompt,
      profile: this.spec.profile,
      verify: this.spec.verify,
      maxRounds: this.spec.maxRounds,
      itemTimeoutMs: this.spec.itemTimeoutMs,
      model: this.spec.queue.model,
      base: this.spec.queue.base,
      subdir: this.spec.queue.subdir,
      maxModelRequests: this.spec.maxModelRequests,
    };
    if (this.spec.template !== undefined) data.template = this.spec.template;
    if (this.spec.permissionMode !== undefined) data.permissionMode = this.spec.permissionMode;
    if (this.spec.effort !== undefined) data.effort = this.spec.effort;
    if (this.spec.sandbox) data.sandbox = this.spec.sandbox;
    const traceparent = this.deps.traceContext?.(index);
    if (traceparent !== undefined) data.traceparent = traceparent;
    return data;
  }

  private async enqueue(index: number, item: LaunchableItem, jobId: string): Promise<void> {
    const existing = await this.queue.getJob(jobId);
    if (existing) {
      // Reattached (a resume): collect it if it ended while nobody listened.
      this.queued.add(jobId);
      await this.look(jobId);
      return;
    }
    const data = this.jobData(index, item);
    if (typeof data === 'string') {
      this.end(jobId, { kind: 'done', result: plainResult(index, item, 'failed', data) });
      return;
    }
    // Kept after they end (a resumed coordinator collects them) until the runner has journaled the item (forget).
    await this.queue.add('item', data, { jobId, removeOnComplete: false, removeOnFail: false, attempts: 1 });
    this.queued.add(jobId);
  }

  private async look(jobId: string): Promise<void> {
    // The state first, then the job: a job read before it completed would carry no return value yet.
    const state = await this.queue.getJobState(jobId);
    if (state === 'unknown' && this.queued.has(jobId)) return this.requeue(jobId);
    if (state !== 'completed' && state !== 'failed') return;
    const job = await this.queue.getJob(jobId);
    if (!job) return;
    if (state === 'completed' && job.returnvalue != null) this.completed(jobId, job.returnvalue);
    else if (state === 'failed') this.failed(jobId, job.failedReason);
  }

  /**
   * A job this coordinator queued is gone from Redis (restarted without persistence, flushed, failed over to an
   * empty replica): it is queued again from the coordinator's own state under the same id (BullMQ ignores a second
   * add of one id), so the item runs instead of being waited for in silence. A worker that was running it may also
   * finish it: the item then ran twice, but its result is taken once.
   */
  private async requeue(jobId: string): Promise<void> {
    const waiting = this.byJob.get(jobId);
    if (!waiting || this.closed) return;
    this.queued.delete(jobId);
    this.deps.log?.(
      `queue ${this.spec.queue.name}: the job of item ${waiting.index + 1} (${waiting.item.item}) vanished from Redis (restarted without persistence, or flushed); it is queued again`,
    );
    await this.queue.setGlobalConcurrency(this.lastCapacity);
    await heartbeat(this.redis, this.spec.queue.name);
    await this.enqueue(waiting.index, waiting.item, jobId);
  }

  /**
   * One round trip for every job in flight (a finished one's end, a vanished one's absence); only those are read
   * whole. A round still waiting on Redis is not joined by the next.
   */
  private async pollInFlight(): Promise<void> {
    if (this.polling || this.byJob.size === 0) return;
    this.polling = true;
    try {
      const ids = [...this.byJob.keys()];
      const pipeline = this.redis.pipeline();
      for (const id of ids) pipeline.hmget(this.queue.toKey(id), 'timestamp', 'finishedOn');
      const replies = (await pipeline.exec()) ?? [];
      const looks = ids.map((id, i) => {
        const [error, fields] = replies[i] ?? [null, null];
        const [added, finished] = (fields as (string | null)[] | null) ?? [];
        if (error || (added != null && finished == null)) return undefined;
        return this.look(id);
      });
      await Promise.all(looks);
    } catch {
      // Redis away: the next round tries again.
    } finally {
      this.polling = false;
    }
  }

  private progress(jobId: string, data: unknown): void {
    const waiting = this.byJob.get(jobId);
    if (!waiting || typeof data !== 'object' || data === null) return;
    const p = data as ItemProgress;
    if (p.state !== 'launched' && p.state !== 'verifying') return;
    waiting.report({ kind: 'remote', state: p.state, extra: { ...(p.extra ?? {}), host: p.host, model: p.model } });
  }

  /** The waiting attempt of a job, taken at once: an end seen twice (the event and the poll) counts once. */
  private take(jobId: string): Waiting | undefined {
    const waiting = this.byJob.get(jobId);
    this.byJob.delete(jobId);
    this.queued.delete(jobId);
    return waiting;
  }

  private end(jobId: string, attempt: Attempt): void {
    const waiting = this.take(jobId);
    if (waiting) this.resolveWith(waiting, attempt);
  }

  private resolveWith(waiting: Waiting, attempt: Attempt): void {
    waiting.release();
    waiting.resolve(attempt);
  }

  private failed(jobId: string, reason: string | undefined): void {
    const waiting = this.take(jobId);
    // Ended for good; the job id goes when the item's result is recorded, so a resume runs it anew.
    if (waiting) this.resolveWith(waiting, failedAttempt(waiting.index, waiting.item, reason));
  }

  private completed(jobId: string, value: unknown): void {
    const waiting = this.take(jobId);
    if (!waiting) return;
    const { attempt, data } = completedAttempt(waiting.index, waiting.item, value);
    if (data?.usage) this.deps.addUsage(data.usage);
    // The diff waits for commit(), which the runner calls in item order. The job id stays in the item's state
    // until its result is recorded: a coordinator killed before that collects the job again on resume.
    if (attempt.kind === 'done' && data?.diff) this.diffs.hold(waiting.index, data);
    this.resolveWith(waiting, attempt);
  }

  /** An ended item's diff, applied once every earlier item has ended (the runner keeps that order). */
  commit(index: number, result: ItemResult): Promise<ItemResult> {
    return this.diffs.commit(index, result);
  }
}
