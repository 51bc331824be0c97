// `murmur worker`'s service: it serves every swarm queue listed in Redis, runs each job's item in a fresh git
// tree at the job's base commit (its item trees are kept and put back between items; the same role caps,
// permissions, verify rounds and budgets as a local swarm, through the local launcher), and returns the item's end
// with the diff of its changes.
import { readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis as RedisClient } from 'ioredis';
import type { Job, Worker } from 'bullmq';
import type { ModelProvider } from '../../orchestrator/models/provider.js';
import { builtinProfile } from '../../roles/profile.js';
import { git, serialised } from '../git.js';
import { advanceItem, itemEvent, queuedItem, type AttemptProgress, type SwarmItem } from '../item-state.js';
import { LocalLauncher } from '../local-launcher.js';
import { filesTouchedByTools } from '../touched-files.js';
import { loadOutputChecks } from '../../orchestrator/final-answer.js';
import type { SwarmEngine } from '../swarm-engine.js';
import { JOB_FORMAT, parseItemJob, type ItemJob, type ItemOutcomeData, type ItemProgress } from './job.js';
import { liveQueues, sweepRemovedQueue } from './listing.js';
import { ITEM_TREE_PREFIX, ItemTrees } from './item-trees.js';
import { LeaseGate, leasedProvider } from './leases.js';
import { importPeer } from '../../tools/optional-peer.js';

/** What the job's item runs on: the agents of an engine built for it, and what they spent. */
export type ItemRun = Pick<SwarmEngine, 'agent' | 'spawn' | 'run' | 'acceptHandoff' | 'usage'>;

/** What the command line builds for one job: an engine in the job's worktree on the given provider, seen through the swarm's port. */
export type EngineFactory = (input: {
  cwd: string;
  job: ItemJob;
  provider: ModelProvider;
}) => Promise<{ run: ItemRun; close: () => Promise<void> }>;

export interface QueueWorkerOptions {
  open: () => RedisClient;
  /** The worker's checkout (the top of its repository). */
  root: string;
  concurrency: number;
  /** The model every item runs on: the worker's --model, else the job's. */
  modelOverride?: string;
  provider: (spec: string) => Promise<ModelProvider>;
  engineFor: EngineFactory;
  /** This machine's name (--name, else the hostname): in job progress and results, and in errors. */
  machine: string;
  /** BullMQ's lock time (ms); the stalled check runs every half: a killed worker's item moves within about 1–1.5× this. */
  stalledMs: number;
  /** How often the list of swarm queues is read. */
  discoverMs?: number;
  /** A queue whose coordinator has not beaten for this long is not served (listing.ts). */
  staleQueueMs?: number;
  log: (line: string) => void;
}

export class QueueWorker {
  private readonly workers = new Map<string, Worker>();
  private readonly redis: RedisClient;
  private timer: NodeJS.Timeout | undefined;
  private closing = false;
  /** Items running now, across every queue: --concurrency caps them all together. */
  private running = 0;
  private readonly waitingForSlot: ((granted: boolean) => void)[] = [];
  private readonly trees: ItemTrees;

  constructor(private readonly options: QueueWorkerOptions) {
    this.redis = options.open();
    this.trees = new ItemTrees(options.root);
  }

  /** Starts serving; new swarm queues are picked up as they appear. */
  async start(): Promise<void> {
    // Worktrees of workers killed before they could remove them (kill -9, a reboot).
    await sweepStaleItemTrees(this.options.root);
    await this.discover();
    this.timer = setInterval(() => void this.discover(), this.options.discoverMs ?? 500);
  }

  /** Stops taking jobs and waits for the running ones. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.timer) clearInterval(this.timer);
    // Jobs still waiting for a slot go back to their queue for another worker.
    for (const waiter of this.waitingForSlot.splice(0)) waiter(false);
    await Promise.allSettled([...this.workers.values()].map((w) => w.close()));
    await this.trees.close();
    this.redis.disconnect();
  }

  private async discover(): Promise<void> {
    if (this.closing) return;
    let names: string[];
    try {
      names = await liveQueues(this.redis, this.options.staleQueueMs);
    } catch {
      return; // Redis away: BullMQ's workers reconnect on their own; the list is read again later.
    }
    const { Worker } = await importPeer(() => import('bullmq'), 'bullmq', 'a queue worker');
    for (const name of names) {
      if (this.workers.has(name) || this.closing) continue;
      const connection = this.options.open();
      const worker = new Worker(name, (job, token) => this.process(job, token), {
        connection,
        concurrency: this.options.concurrency,
        // The lock lapses at most one setting after a worker dies (it is renewed every half); checking twice as
        // often as the lock lasts moves its item within about 1–1.5× the setting (2–2.5× with one check a setting).
        // A live worker's margin is unchanged: its lock still outlives two renewals.
        stalledInterval: Math.max(50, Math.round(this.options.stalledMs / 2)),
        lockDuration: this.options.stalledMs,
        maxStalledCount: 3,
      });
      worker.on('error', () => undefined);
      worker.on('failed', (job, error) =>
        this.options.log(`item ${job?.id ?? '?'} of ${name} failed: ${error.message}`),
      );
      // BullMQ never closes a connection it was given.
      worker.on('closed', () => connection.disconnect());
      this.workers.set(name, worker);
      this.options.log(`serving ${name}`);
    }
    this.throttle();
    for (const [name, worker] of this.workers) {
      if (names.includes(name)) continue;
      this.workers.delete(name);
      void worker
        .close()
        .then(() => sweepRemovedQueue(this.redis, worker.keys))
        .catch(() => undefined);
    }
  }

  private async process(job: Job, token: string | undefined): Promise<ItemOutcomeData> {
    const { UnrecoverableError, WaitingError } = await importPeer(() => import('bullmq'), 'bullmq', 'a queue worker');
    const parsed = parseItemJob(job.data);
    // Refused, never retried: the item fails with the reason and the worker goes on serving.
    if (!parsed.ok) throw new UnrecoverableError(`malformed job: ${parsed.error}`);
    const spec = parsed.job;
    if (!(await this.trees.has(spec.base))) {
      throw new UnrecoverableError(
        `the worker on ${this.options.machine} has no commit ${spec.base} in its checkout ${this.options.root}; fetch it (git fetch) or start the worker in a clone of the same repository`,
      );
    }
    const model = this.options.modelOverride ?? spec.model;
    if (!(await this.slot())) {
      await job.moveToWait(token);
      throw new WaitingError();
    }
    let tree: string | undefined;
    try {
      const taken = await this.trees.take(spec.base);
      if (!taken.ok) throw new UnrecoverableError(`git worktree add failed on ${this.options.machine}: ${taken.error}`);
      tree = taken.path;
      return await this.runItem(job, spec, model, tree);
    } finally {
      // The job's end goes back at once; its slot frees once its tree is put back for the next item.
      if (tree !== undefined) void this.trees.give(tree, spec.base).finally(() => this.release());
      else this.release();
    }
  }

  /** Waits for one of the worker's --concurrency slots (shared by every queue it serves). */
  private async slot(): Promise<boolean> {
    if (this.closing) return false;
    if (this.running < this.options.concurrency) {
      this.running++;
      this.throttle();
      return true;
    }
    // Handed over by release() (`running` stays the same), or refused when the worker closes.
    return new Promise<boolean>((resolve) => this.waitingForSlot.push(resolve));
  }

  private release(): void {
    const next = this.waitingForSlot.shift();
    if (next) next(true);
    else {
      this.running--;
      this.throttle();
    }
  }

  /** While every slot is taken, the queues' workers fetch no more jobs (they would only hold them from other workers). */
  private throttle(): void {
    const full = this.running >= this.options.concurrency;
    for (const worker of this.workers.values()) {
      if (full && !worker.isPaused()) void worker.pause(true).catch(() => undefined);
      else if (!full && worker.isPaused() && !this.closing) void worker.resume();
    }
  }

  private async runItem(job: Job, spec: ItemJob, model: string, tree: string): Promise<ItemOutcomeData> {
    const gate = new LeaseGate(this.redis, `${job.queueName}:model-leases`, Math.max(1, spec.maxModelRequests));
    const provider = leasedProvider(await this.options.provider(model), gate);
    const cwd = join(tree, spec.subdir);
    if (spec.profile.output) await loadOutputChecks();
    const { run, close } = await this.options.engineFor({ cwd, job: spec, provider });
    const base = { format: JOB_FORMAT, host: this.options.machine, model };
    try {
      const launcher = new LocalLauncher(
        {
          swarmId: spec.swarmId,
          profile: spec.profile,
          verifierProfile: builtinProfile('verifier'),
          verify: spec.verify,
          maxRounds: spec.maxRounds,
          itemTimeoutMs: spec.itemTimeoutMs,
        },
        { agents: run, cwd, inRepo: true, ownTree: tree },
      );
      // The item's copy here moves with the launcher's reports; the coordinator hears its moves as job progress.
      const start = queuedItem(spec.item, { prompt: spec.prompt });
      let item: SwarmItem = start;
      const report = (change: AttemptProgress) => {
        item = advanceItem(item, change);
        const event = itemEvent(change);
        if (event?.state !== 'launched' && event?.state !== 'verifying') return;
        const progress: ItemProgress = {
          state: event.state,
          host: this.options.machine,
          model,
          ...(Object.keys(event.extra).length > 0 ? { extra: event.extra } : {}),
        };
        void job.updateProgress(progress as unknown as object).catch(() => undefined);
      };
      const attempt = await launcher.run(0, start, report, new AbortController().signal);
      const usage = run.usage();
      if (attempt.kind === 'rate_limited') {
        return {
          ...base,
          kind: 'rate_limited',
          outcome: 'failed',
          text: attempt.text ?? '',
          rounds: item.rounds,
          usage,
          diff: '',
          ...(attempt.retryAfterMs !== undefined ? { retryAfterMs: attempt.retryAfterMs } : {}),
        };
      }
      const r = attempt.result;
      // Verifiers may have run anything: only a lone worker's file tools tell every file the item changed.
      const agent = r.agentId !== undefined && !spec.verify ? run.agent(r.agentId) : undefined;
      const touched = agent ? filesTouchedByTools(agent.messages, cwd) : undefined;
      const out: ItemOutcomeData = {
        ...base,
        kind: 'done',
        outcome: r.outcome,
        text: r.text,
        rounds: r.rounds,
        usage,
        diff: await this.trees.diff(tree, spec.base, touched),
      };
      if (r.reason !== undefined) out.reason = r.reason;
      if (r.verdict !== undefined) out.verdict = r.verdict;
      if (r.output !== undefined) out.output = r.output;
      return out;
    } finally {
      await close();
    }
  }
}

/** Whether process `pid` is alive on this machine (EPERM: alive, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes item worktrees whose worker died without removing them (`murmur-item-<pid>-…` folders of this user
 * whose pid is gone), then prunes the repository's list of worktrees. Best effort: a failure changes nothing.
 */
export async function sweepStaleItemTrees(root: string, base = tmpdir()): Promise<void> {
  try {
    const uid = process.getuid?.();
    for (const name of await readdir(base)) {
      const pid = name.startsWith(ITEM_TREE_PREFIX)
        ? /^(\d+)-/.exec(name.slice(ITEM_TREE_PREFIX.length))?.[1]
        : undefined;
      if (pid === undefined || Number(pid) === process.pid || alive(Number(pid))) continue;
      const dir = join(base, name);
      const info = await stat(dir).catch(() => undefined);
      if (!info?.isDirectory() || (uid !== undefined && info.uid !== uid)) continue;
      await rm(dir, { recursive: true, force: true });
    }
  } catch {
    // Sweeping is a courtesy.
  }
  await serialised(root, () => git(root, ['worktree', 'prune']));
}
