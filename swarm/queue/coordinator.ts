// The queue launcher (coordinator side): each launch of an item becomes a BullMQ job on the swarm's queue; a
// `murmur worker` somewhere runs it and sends back its end and its diff, which is applied here. Progress comes
// back live through QueueEvents (with a slow poll as a safety net for events missed while Redis was away).
import type { Redis as RedisClient } from 'ioredis';
import type { Queue, QueueEvents } from 'bullmq';
import type { EventInput } from '../../orchestrator/events.js';
import type { Usage } from '../../orchestrator/types.js';
import type { AgentProfile } from '../../roles/profile.js';
import type { Attempt, SavedQueue, SwarmItemRecord } from '../item-state.js';
import type { ItemHooks, ItemLauncher } from '../launcher.js';
import type { ItemResult } from '../report.js';
import { applyDiff, keepPatch } from './apply.js';
import { JOB_FORMAT, type ItemJob, type ItemOutcomeData, type ItemProgress } from './job.js';
import { HEARTBEAT_MS, heartbeat, unlist } from './listing.js';

export interface QueueLauncherSpec {
  swarmId: string;
  items: SwarmItemRecord[];
  profile: AgentProfile;
  template?: string;
  verify: boolean;
  maxRounds: number;
  itemTimeoutMs: number;
  permissionMode?: string;
  effort?: string;
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
  emit: (event: EventInput) => void;
  save: () => void;
  /** A worker's usage joins the run's. */
  addUsage: (usage: Usage) => void;
  /** How often in-flight jobs are looked at directly (events missed while Redis restarted). */
  pollMs?: number;
  /** How often the queue's heartbeat is refreshed (workers serve only queues with a fresh one). */
  heartbeatMs?: number;
}

interface Waiting {
  index: number;
  hooks: ItemHooks;
  resolve: (attempt: Attempt) => void;
  done: Promise<Attempt>;
}

export class QueueLauncher implements ItemLauncher {
  private readonly byJob = new Map<string, Waiting>();
  private readonly byIndex = new Map<number, Waiting>();
  private readonly poll: NodeJS.Timeout;
  private readonly beat: NodeJS.Timeout;
  private closed = false;
  /** Diffs of completed jobs, applied by commit() in item order. */
  private readonly diffs = new Map<number, ItemOutcomeData>();
  /** Items stopped with the swarm: their jobs stay out, for `murmur resume` to collect. */
  private readonly stopped = new Set<number>();

  private constructor(
    readonly spec: QueueLauncherSpec,
    private readonly deps: QueueLauncherDeps,
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly redis: RedisClient,
    private readonly connections: readonly RedisClient[],
  ) {
    // Connection errors while Redis is away are retried by ioredis; unheard they would end the process.
    events.on('error', () => undefined);
    queue.on('error', () => undefined);
    events.on('progress', ({ jobId, data }) => this.progress(jobId, data));
    events.on('completed', ({ jobId, returnvalue }) => this.completed(jobId, returnvalue));
    events.on('failed', ({ jobId, failedReason }) => this.failed(jobId, failedReason));
    this.poll = setInterval(() => void this.pollInFlight(), deps.pollMs ?? 1000);
    this.poll.unref();
    this.beat = setInterval(() => void heartbeat(redis, spec.queue.name).catch(() => undefined), deps.heartbeatMs ?? HEARTBEAT_MS);
    this.beat.unref();
  }

  static async open(spec: QueueLauncherSpec, deps: QueueLauncherDeps): Promise<QueueLauncher> {
    const { Queue, QueueEvents } = await import('bullmq');
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

  start(index: number, hooks: ItemHooks): void {
    const s = this.spec.items[index]!;
    let resolve!: (attempt: Attempt) => void;
    const done = new Promise<Attempt>((r) => (resolve = r));
    if (s.jobId === undefined) {
      s.jobAttempts = (s.jobAttempts ?? 0) + 1;
      s.jobId = `item-${index + 1}-${s.jobAttempts}`;
      // Saved before the job exists: a coordinator killed in between adds the same job id again on resume.
      hooks.changed();
    }
    const waiting: Waiting = { index, hooks, resolve, done };
    this.byJob.set(s.jobId, waiting);
    this.byIndex.set(index, waiting);
    void this.enqueue(index, s.jobId).catch((error: unknown) => this.end(s.jobId!, { kind: 'done', result: this.result(index, 'failed', `the job could not be queued: ${(error as Error).message}`) }));
  }

  settle(index: number): Promise<Attempt> {
    const waiting = this.byIndex.get(index);
    if (!waiting) return Promise.resolve({ kind: 'done', result: this.result(index, 'failed', 'internal error: the item was never started') });
    return waiting.done;
  }

  stop(index: number): void {
    const s = this.spec.items[index]!;
    // The job stays: it may finish on its worker meanwhile, and `murmur resume` collects it.
    if (s.jobId !== undefined) {
      this.stopped.add(index);
      this.end(s.jobId, { kind: 'done', result: this.result(index, 'aborted', 'the swarm was stopped; its job stays on the queue and murmur resume collects it') });
    }
  }

  async keep(_index: number, result: ItemResult): Promise<ItemResult> {
    return result;
  }

  save(): void {
    this.deps.save();
  }

  emit(event: EventInput): void {
    // BullMQ's global concurrency follows the swarm's capacity: the ramp and the rate-limit adaptation hold for
    // all workers together.
    if (event.type === 'swarm.capacity' && !this.closed) void this.queue.setGlobalConcurrency(Math.max(1, event.capacity)).catch(() => undefined);
    this.deps.emit(event);
  }

  /** The swarm ended: a finished queue is removed; one with items left stays for `murmur resume`. */
  async finish(): Promise<void> {
    this.closed = true;
    clearInterval(this.poll);
    clearInterval(this.beat);
    // Jobs still out (the swarm was stopped) stay for `murmur resume`; otherwise the queue has served.
    const jobsOut = this.spec.items.some((s) => s.jobId !== undefined);
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

  private jobData(index: number): ItemJob | string {
    const s = this.spec.items[index]!;
    if (s.prompt === undefined) return 'a resumed subagent cannot move to a queue worker (its conversation is on this machine)';
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
    return data;
  }

  private async enqueue(index: number, jobId: string): Promise<void> {
    const existing = await this.queue.getJob(jobId);
    if (existing) {
      // Reattached (a resume): collect it if it ended while nobody listened.
      await this.look(jobId);
      return;
    }
    const data = this.jobData(index);
    if (typeof data === 'string') {
      this.end(jobId, { kind: 'done', result: this.result(index, 'failed', data) });
      return;
    }
    // Kept after they end (a resumed coordinator collects them); removed with the queue when the swarm is done.
    await this.queue.add('item', data, { jobId, removeOnComplete: false, removeOnFail: false, attempts: 1 });
  }

  private async look(jobId: string): Promise<void> {
    // The state first, then the job: a job read before it completed would carry no return value yet.
    const state = await this.queue.getJobState(jobId);
    if (state !== 'completed' && state !== 'failed') return;
    const job = await this.queue.getJob(jobId);
    if (!job) return;
    if (state === 'completed' && job.returnvalue != null) this.completed(jobId, job.returnvalue);
    else if (state === 'failed') this.failed(jobId, job.failedReason);
  }

  private async pollInFlight(): Promise<void> {
    for (const jobId of [...this.byJob.keys()]) {
      try {
        await this.look(jobId);
      } catch {
        return; // Redis away: the next round tries again.
      }
    }
  }

  private progress(jobId: string, data: unknown): void {
    const waiting = this.byJob.get(jobId);
    if (!waiting || typeof data !== 'object' || data === null) return;
    const p = data as ItemProgress;
    if (p.state !== 'launched' && p.state !== 'verifying') return;
    waiting.hooks.emit(p.state, { ...(p.extra ?? {}), host: p.host, model: p.model });
  }

  /** The waiting attempt of a job, taken at once: an end seen twice (the event and the poll) counts once. */
  private take(jobId: string): Waiting | undefined {
    const waiting = this.byJob.get(jobId);
    this.byJob.delete(jobId);
    return waiting;
  }

  private end(jobId: string, attempt: Attempt): void {
    const waiting = this.take(jobId);
    if (waiting) this.resolveWith(waiting, attempt);
  }

  private resolveWith(waiting: Waiting, attempt: Attempt): void {
    this.byIndex.delete(waiting.index);
    waiting.resolve(attempt);
  }

  private result(index: number, outcome: ItemResult['outcome'], reason?: string): ItemResult {
    const s = this.spec.items[index]!;
    const result: ItemResult = { index, item: s.item, outcome, rounds: s.rounds, text: '' };
    if (reason !== undefined) result.reason = reason;
    return result;
  }

  private failed(jobId: string, reason: string | undefined): void {
    const waiting = this.take(jobId);
    if (!waiting) return;
    // Ended for good; the job id goes when the item's result is recorded (ended()), so a resume runs it anew.
    this.resolveWith(waiting, { kind: 'done', result: this.result(waiting.index, 'failed', `on the queue: ${reason ?? 'the job failed'}`) });
  }

  private completed(jobId: string, value: unknown): void {
    const waiting = this.take(jobId);
    if (!waiting) return;
    const { index } = waiting;
    const s = this.spec.items[index]!;
    const data = value as ItemOutcomeData | undefined;
    if (!data || typeof data !== 'object' || data.format !== JOB_FORMAT) {
      this.resolveWith(waiting, { kind: 'done', result: this.result(index, 'failed', `the worker sent back a result this murmur cannot read (format ${JSON.stringify(data?.format)})`) });
      return;
    }
    if (data.usage) this.deps.addUsage(data.usage);
    if (data.kind === 'rate_limited') {
      // The next launch is a new job (from the base commit: the limited job's work is not sent back); the
      // controller decides when.
      delete s.jobId;
      this.resolveWith(waiting, { kind: 'rate_limited', ...(data.retryAfterMs !== undefined ? { retryAfterMs: data.retryAfterMs } : {}), text: data.text });
      return;
    }
    // The job id stays until the item's result is saved (ended()): a coordinator killed before that collects
    // the job again on resume instead of running the item twice.
    s.rounds = data.rounds;
    if (data.verdict) s.verdict = data.verdict;
    const result: ItemResult = { index, item: s.item, outcome: data.outcome, rounds: data.rounds, text: data.text, host: data.host, model: data.model };
    if (data.verdict) result.verdict = data.verdict;
    if (data.reason !== undefined) result.reason = data.reason;
    // The diff waits for commit(), which the runner calls in item order.
    if (data.diff) this.diffs.set(index, data);
    this.resolveWith(waiting, { kind: 'done', result });
  }

  /** An ended item's diff, applied once every earlier item has ended (the runner keeps that order). */
  async commit(index: number, result: ItemResult): Promise<ItemResult> {
    const data = this.diffs.get(index);
    if (!data) return result;
    this.diffs.delete(index);
    if (data.outcome !== 'completed') {
      // Work of an item that did not complete is kept, as a local worktree keeps its branch.
      return { ...result, patch: keepPatch(this.deps.patchesHome, index, data.diff) };
    }
    const applied = await applyDiff(this.deps.root, data.diff, index, this.deps.patchesHome);
    if (applied.kind !== 'conflict') return result;
    return { ...result, outcome: 'conflict', reason: applied.reason, patch: applied.patch };
  }

  /** The item's result is recorded: its job is done with, unless the swarm was stopped while it ran. */
  ended(index: number): void {
    if (!this.stopped.has(index)) delete this.spec.items[index]!.jobId;
  }
}
