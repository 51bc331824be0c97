// The scheduler service: serves the workspaces it holds the lock of, checks what is due on an injectable
// clock (at least every 30 s), starts each run through a launcher (a child `murmur` process in production),
// and records every run in the task's history. After a crash the runs left "running" become "interrupted".
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { type Clock, systemClock } from '../clock.js';
import { decideFire, dueKey, firePrompt, stampDue, type FireDecision, type FireSpec } from './firing.js';
import { refreshServiceLock, releaseServiceLock, takeServiceLock, withLock } from './lock.js';
import { newSessionId } from '../session.js';
import type { CronStore } from './store.js';
import type { RunRecord, RunState, ScheduledTask } from './types.js';

export const DEFAULT_CHECK_MS = 15_000;
export const MAX_CHECK_MS = 30_000;
/** How long stop() waits for the runs to save their sessions before it kills them. */
export const DEFAULT_STOP_GRACE_MS = 15_000;
/** After a kill, how long to wait for a run's end before it is recorded as interrupted anyway. */
const KILL_WAIT_MS = 3_000;

export interface RunResult {
  state: Exclude<RunState, 'running'>;
  summary?: string;
}

export interface LaunchSpec {
  store: CronStore;
  task: ScheduledTask;
  run: RunRecord;
  /** The prompt this run executes (in its `<cron-fire>` envelope when one is due). */
  prompt: string;
}

export interface RunHandle {
  done: Promise<RunResult>;
  /** Stops the run so its session is saved (SIGTERM to a child process). */
  stop(): void;
  /** Ends the run at once (SIGKILL to a child's process group), for a run that does not stop. */
  kill?(): void;
}

export type Launcher = (spec: LaunchSpec) => RunHandle;

export interface ServiceOptions {
  /** The workspaces to serve; asked again at every check (new workspaces join). */
  stores: () => CronStore[];
  launch: Launcher;
  clock?: Clock;
  checkIntervalMs?: number;
  /** One line per fire, per finished run, per workspace taken or refused. */
  log?: (line: string) => void;
  /** How long stop() waits for runs to stop before killing them (default 15 s, on `clock`). */
  stopGraceMs?: number;
}

interface Active {
  task: ScheduledTask;
  run: RunRecord;
  store: CronStore;
  handle: RunHandle;
}

export class CronService {
  private readonly clock: Clock;
  private readonly interval: number;
  private readonly log: (line: string) => void;
  /** Workspaces (state folders) this service holds the lock of, and the ones another process holds. */
  private readonly held = new Map<string, CronStore>();
  private readonly refused = new Set<string>();
  /** Workspaces that could not be claimed, with the last problem logged. */
  private readonly failing = new Map<string, string>();
  private readonly active = new Map<string, Active>();
  /** Per task: when it is next due, valid while the task's cursor and update time are unchanged. */
  private readonly dueCache = new Map<string, { key: string; at: number }>();
  private timer: unknown;
  private stopped = false;
  private checking = false;
  private stopping: Promise<void> | undefined;
  private killing: Promise<void> | undefined;
  private killed = false;

  constructor(private readonly options: ServiceOptions) {
    this.clock = options.clock ?? systemClock;
    this.interval = Math.min(Math.max(options.checkIntervalMs ?? DEFAULT_CHECK_MS, 10), MAX_CHECK_MS);
    this.log = options.log ?? (() => undefined);
  }

  /** The state folders served now. */
  get serving(): string[] {
    return [...this.held.keys()];
  }

  /** Whether stop() or kill() had to kill runs that did not stop by themselves. */
  get killedRuns(): boolean {
    return this.killed;
  }

  get runningCount(): number {
    return this.active.size;
  }

  /** Takes the workspaces' locks, marks runs a crashed scheduler left behind, and starts checking. */
  start(): void {
    this.claim();
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => {
      // Nothing may escape a timer: an uncaught exception would end the scheduler and every workspace with it.
      try {
        this.check();
      } catch (error) {
        this.log(`check failed: ${(error as Error).message}`);
      }
      this.schedule();
    }, this.interval);
  }

  /** Takes the lock of every listed workspace not yet held; says once which process holds a refused one. */
  claim(): void {
    let stores: CronStore[];
    try {
      stores = this.options.stores();
    } catch (error) {
      this.log(`cannot read the list of workspaces: ${(error as Error).message}`);
      return;
    }
    for (const store of stores) {
      if (this.held.has(store.home)) continue;
      try {
        this.claimOne(store);
        this.failing.delete(store.home);
      } catch (error) {
        // One unwritable or unreachable workspace (permissions, a read-only disk, a lock held too long) does
        // not stop the others; it is tried again at the next check.
        const message = (error as Error).message;
        // Once per distinct problem, not at every check.
        if (this.failing.get(store.home) !== message) this.log(`workspace ${store.workspace}: cannot be served now: ${message}`);
        this.failing.set(store.home, message);
      }
    }
  }

  private claimOne(store: CronStore): void {
    // A workspace deleted since it was listed: nothing to serve (and its folders must not be made again).
    if (!existsSync(store.workspace)) {
      if (!this.refused.has(store.home)) {
        this.refused.add(store.home);
        this.log(`workspace ${store.workspace} no longer exists; skipped`);
      }
      return;
    }
    const taken = withLock(store.lockFile, () => takeServiceLock(store.serviceLockFile, this.clock.now()));
    if (!taken.ok) {
      if (!this.refused.has(store.home)) {
        this.refused.add(store.home);
        this.log(`workspace ${store.workspace}: another scheduler (pid ${taken.holder.pid}${taken.holder.host ? ` on ${taken.holder.host}` : ''}) serves it; skipped`);
      }
      return;
    }
    this.refused.delete(store.home);
    this.held.set(store.home, store);
    const marked = this.markInterrupted(store);
    this.log(`serving ${store.workspace}${marked > 0 ? ` (${marked} run${marked === 1 ? '' : 's'} left by a stopped scheduler marked interrupted)` : ''}`);
  }

  private markInterrupted(store: CronStore): number {
    let ids: string[];
    try {
      ids = readdirSync(join(store.dir, 'history')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5));
    } catch {
      return 0;
    }
    let marked = 0;
    const now = this.clock.now();
    for (const id of ids) {
      if (!store.history(id).some((r) => r.state === 'running')) continue;
      try {
        marked += this.markInterruptedRuns(store, id, now);
      } catch (error) {
        this.log(`task ${id}: cannot mark its unfinished run interrupted: ${(error as Error).message}`);
      }
    }
    return marked;
  }

  private markInterruptedRuns(store: CronStore, id: string, now: number): number {
    let marked = 0;
    store.mutateHistory(id, (runs) => {
      // This service's own runs (a workspace served again after its lock file went away) are not left behind.
      const mine = new Set([...this.active.values()].map((a) => a.run.id));
      for (const run of runs) {
        if (run.state !== 'running' || mine.has(run.id)) continue;
        run.state = 'interrupted';
        run.ended = now;
        run.summary = `the scheduler stopped during this run${run.sessionId ? `; continue it with: murmur resume ${run.sessionId}` : ''}`;
        marked++;
      }
    });
    return marked;
  }

  /** One check of every served workspace: starts what is due. Returns the runs started. */
  check(): RunRecord[] {
    if (this.stopped || this.checking) return [];
    this.checking = true;
    const started: RunRecord[] = [];
    try {
      this.heartbeat();
      this.claim();
      const now = this.clock.now();
      for (const { store, task } of this.findDue(now)) {
        // Waiting behind its running run (queued, or a run-now): nothing to write until that run ends.
        if (decideFire(task, this.historyOf(task.id), now).kind === 'idle') continue;
        try {
          const run = this.apply(store, task.id, now);
          if (run) started.push(run);
        } catch (error) {
          // Nothing was written (the task and its run record change together): the fire is tried again.
          this.log(`task ${task.id}: cannot fire now: ${(error as Error).message}`);
        }
      }
    } finally {
      this.checking = false;
    }
    return started;
  }

  /** Refreshes the service lock of every held workspace; one taken over by another scheduler is let go. */
  private heartbeat(): void {
    for (const [home, store] of this.held) {
      if (refreshServiceLock(store.serviceLockFile)) continue;
      this.held.delete(home);
      this.log(`workspace ${store.workspace}: its lock was taken over by another scheduler; no longer served here`);
    }
  }

  /** The tasks that may be due at `now` (each is decided again under the lock before anything starts). */
  findDue(now: number): { store: CronStore; task: ScheduledTask }[] {
    const due: { store: CronStore; task: ScheduledTask }[] = [];
    for (const store of this.held.values()) {
      let tasks: ScheduledTask[];
      try {
        tasks = store.list();
      } catch (error) {
        this.log(`workspace ${store.workspace}: ${(error as Error).message}`);
        continue;
      }
      for (const task of tasks) if (this.maybeDue(task, now)) due.push({ store, task });
    }
    return due;
  }

  /** False when the task is certainly not due (cached next-due time not reached): most tasks at most checks. */
  private maybeDue(task: ScheduledTask, now: number): boolean {
    if (task.queued || task.runNowAt !== undefined) return true;
    if (task.ended || task.paused) return false;
    const key = dueKey(task);
    if (task.due?.key === key) return task.due.at !== null && now >= task.due.at;
    const cached = this.dueCache.get(task.id);
    if (cached && cached.key === key) return now >= cached.at;
    const decision = decideFire(task, this.historyOf(task.id), now);
    if (decision.kind === 'idle') {
      this.dueCache.set(task.id, { key, at: decision.nextAt ?? Number.POSITIVE_INFINITY });
      return false;
    }
    return true;
  }

  private historyOf(taskId: string): RunRecord[] {
    const active = this.active.get(taskId);
    return active ? [active.run] : [];
  }

  /** Decides again on the task as stored now (under the lock) and applies the decision. */
  private apply(store: CronStore, taskId: string, now: number): RunRecord | undefined {
    let launch: { task: ScheduledTask; fire: FireSpec; run: RunRecord } | undefined;
    let decision: FireDecision | undefined;
    store.mutateTaskAndHistory(taskId, (tasks, runs) => {
      const index = tasks.findIndex((t) => t.id === taskId);
      const task = tasks[index];
      if (!task) return;
      decision = decideFire(task, this.historyOf(taskId), now);
      switch (decision.kind) {
        case 'idle':
          return;
        case 'end':
          task.ended = { at: now, reason: decision.reason };
          task.updatedAt = now;
          stampDue(task);
          return;
        case 'queue':
          task.queued = decision.queued;
          task.cursor = decision.cursor;
          if (decision.countsAsFire) task.fires++;
          if (decision.end) task.ended = { at: now, reason: decision.end };
          task.updatedAt = now;
          stampDue(task);
          return;
        case 'fire': {
          const { fire } = decision;
          if (decision.countsAsFire) task.fires++;
          if (decision.cursor !== undefined) task.cursor = decision.cursor;
          if (fire.trigger === 'queued') delete task.queued;
          if (fire.trigger === 'run-now') delete task.runNowAt;
          if (decision.end) task.ended = { at: now, reason: decision.end };
          task.updatedAt = now;
          stampDue(task);
          const run = newRun(task, fire, now);
          runs.push(run);
          launch = { task: { ...task }, fire, run };
          // A stale task makes its last run, then it is deleted (its history file stays with the run).
          if (task.ended?.reason === 'stale' && !task.queued) tasks.splice(index, 1);
          return;
        }
      }
    });
    if (decision?.kind === 'end') this.log(`task ${taskId}: ended (${decision.reason === 'until' ? 'past its end date' : 'its time is past'})`);
    if (decision?.kind === 'queue') this.log(`task ${taskId}: fire at ${new Date(decision.queued.planned).toISOString()} queued behind the running run`);
    if (!launch) return undefined;
    return this.startRun(store, launch.task, launch.fire, launch.run);
  }

  /** Launches a run already recorded as running. */
  private startRun(store: CronStore, task: ScheduledTask, fire: FireSpec, run: RunRecord): RunRecord {
    const extra = [fire.coalescedCount > 1 ? `coalesced ${fire.coalescedCount}` : '', fire.stale ? 'stale: last run' : ''].filter(Boolean).join(', ');
    this.log(`fire ${task.id} "${task.title}" (${fire.trigger}${extra ? `, ${extra}` : ''}) late ${Math.round(run.lateMs / 1000)} s: session ${run.sessionId}`);
    let handle: RunHandle;
    try {
      handle = this.options.launch({ store, task, run, prompt: firePrompt(task.prompt, fire) });
    } catch (error) {
      handle = { done: Promise.resolve({ state: 'failed', summary: `could not start: ${(error as Error).message}` }), stop: () => undefined };
    }
    this.active.set(task.id, { task, run, store, handle });
    void handle.done
      .catch((error: unknown): RunResult => ({ state: 'failed', summary: `the run failed to report: ${error instanceof Error ? error.message : String(error)}` }))
      .then((result) => this.finish(task, run, store, result))
      .catch((error: unknown) => this.log(`task ${task.id}: ${error instanceof Error ? error.message : String(error)}`));
    return run;
  }

  private finish(task: ScheduledTask, run: RunRecord, store: CronStore, result: RunResult): void {
    if (this.active.get(task.id)?.run.id !== run.id) return; // Already recorded (a kill that timed out).
    const ended = this.clock.now();
    try {
      // A task removed during its run (`rm`) keeps no history: none is made again for it.
      store.mutateExistingHistory(task.id, (runs) => {
        const saved = runs.find((r) => r.id === run.id);
        if (!saved) return;
        saved.state = result.state;
        saved.ended = ended;
        if (result.summary !== undefined) saved.summary = result.summary;
      });
    } catch (error) {
      this.log(`task ${task.id}: cannot record the end of run ${run.id}: ${(error as Error).message}`);
    }
    this.active.delete(task.id);
    this.dueCache.delete(task.id);
    this.log(`done ${task.id} "${task.title}": ${result.state}${result.summary ? ` — ${result.summary}` : ''} (session ${run.sessionId})`);
    // A queued fire may start at once.
    if (!this.stopped) {
      try {
        this.check();
      } catch (error) {
        this.log(`check failed: ${(error as Error).message}`);
      }
    }
  }

  /**
   * Stops checking, stops running runs (their sessions are saved) and waits for them — at most the grace
   * period, then they are killed (see kill()) — then lets the locks go. `killedRuns` says afterwards whether
   * some had to be killed.
   */
  async stop(): Promise<void> {
    if (this.stopping) return this.stopping;
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.stopping = (async () => {
      const running = [...this.active.values()];
      for (const a of running) a.handle.stop();
      const grace = this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
      const stoppedInTime = await this.waitForRuns(running, grace);
      if (!stoppedInTime) this.kill();
      await (this.killing ?? Promise.resolve());
      // Let the finish handlers record the ends first.
      await new Promise((resolve) => setImmediate(resolve));
      for (const store of this.held.values()) releaseServiceLock(store.serviceLockFile);
      this.held.clear();
    })();
    return this.stopping;
  }

  /**
   * Kills every run still going (a second Ctrl-C, or the grace period over): SIGKILL to its process group.
   * A run whose end is not reported soon after is recorded as interrupted anyway.
   */
  kill(): void {
    this.stopped = true;
    if (this.killing) return;
    const running = [...this.active.values()];
    this.killed = running.length > 0;
    if (running.length > 0) this.log(`killing ${running.length} run${running.length === 1 ? '' : 's'} that did not stop`);
    for (const a of running) {
      try {
        (a.handle.kill ?? a.handle.stop)();
      } catch {
        // Gone already.
      }
    }
    this.killing = this.waitForRuns(running, KILL_WAIT_MS).then(() => {
      for (const a of [...this.active.values()]) {
        this.finish(a.task, a.run, a.store, { state: 'interrupted', summary: `the run was killed when the scheduler stopped${a.run.sessionId ? `; continue it with: murmur resume ${a.run.sessionId}` : ''}` });
      }
    });
  }

  /** True when all `runs` ended within `ms` (on the service's clock). */
  private waitForRuns(runs: Active[], ms: number): Promise<boolean> {
    const all = Promise.all(runs.map((a) => a.handle.done.catch(() => undefined))).then(() => true);
    if (runs.length === 0) return all;
    let handle: unknown;
    const timeout = new Promise<boolean>((resolve) => {
      handle = this.clock.setTimeout(() => resolve(false), ms);
    });
    return Promise.race([all, timeout]).finally(() => this.clock.clearTimeout(handle));
  }
}

function newRun(task: ScheduledTask, fire: FireSpec, now: number): RunRecord {
  return {
    id: `run-${now.toString(36)}-${randomBytes(3).toString('hex')}`,
    taskId: task.id,
    trigger: fire.trigger,
    planned: fire.planned,
    started: now,
    lateMs: Math.max(0, now - fire.planned),
    sessionId: newSessionId(new Date(now)),
    state: 'running',
    coalescedCount: fire.coalescedCount,
    stale: fire.stale,
    pid: process.pid,
  };
}
