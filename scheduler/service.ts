// The scheduler service: serves the workspaces it holds the lock of, checks what is due on an injectable
// clock (at least every 30 s), starts each run through a launcher (a child `murmur` process in production),
// and records every run in the task's history. After a crash the runs left "running" become "interrupted".
// The locks and runs left behind are served-workspaces.ts's, the runs going and their ends active-runs.ts's.
import { randomBytes } from 'node:crypto';
import { type Clock, systemClock } from '../host/command-parts.js';
import { ActiveRuns, type Launcher } from './active-runs.js';
import { decideFire, dueKey, stampDue, type FireDecision, type FireSpec } from './firing.js';
import { ServedWorkspaces } from './served-workspaces.js';
import { newSessionId } from '../host/session-store.js';
import type { CronStore } from './store.js';
import type { RunRecord, ScheduledTask } from './types.js';

export type { LaunchSpec, Launcher, ScheduledRunProcess, ScheduledRunResult } from './active-runs.js';

export const DEFAULT_CHECK_MS = 15_000;
export const MAX_CHECK_MS = 30_000;
/** How long stop() waits for the runs to save their sessions before it kills them. */
export const DEFAULT_STOP_GRACE_MS = 15_000;

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

export class CronService {
  private readonly clock: Clock;
  private readonly interval: number;
  private readonly log: (line: string) => void;
  private readonly workspaces: ServedWorkspaces;
  private readonly runs: ActiveRuns;
  /** Per task: when it is next due, valid while the task's cursor and update time are unchanged. */
  private readonly dueCache = new Map<string, { key: string; at: number }>();
  private timer: unknown;
  private stopped = false;
  private checking = false;
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: ServiceOptions) {
    this.clock = options.clock ?? systemClock;
    this.interval = Math.min(Math.max(options.checkIntervalMs ?? DEFAULT_CHECK_MS, 10), MAX_CHECK_MS);
    this.log = options.log ?? (() => undefined);
    this.runs = new ActiveRuns({
      launch: (spec) => options.launch(spec),
      clock: this.clock,
      log: this.log,
      ended: (taskId) => this.dueCache.delete(taskId),
      next: () => {
        // A queued fire may start at once.
        if (this.stopped) return;
        try {
          this.check();
        } catch (error) {
          this.log(`check failed: ${(error as Error).message}`);
        }
      },
    });
    this.workspaces = new ServedWorkspaces({
      stores: () => options.stores(),
      clock: this.clock,
      log: this.log,
      ownRunIds: () => this.runs.runIds(),
    });
  }

  /** The state folders served now. */
  get serving(): string[] {
    return this.workspaces.homes;
  }

  /** Whether stop() or kill() had to kill runs that did not stop by themselves. */
  get killedRuns(): boolean {
    return this.runs.killedRuns;
  }

  get runningCount(): number {
    return this.runs.count;
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
    this.workspaces.claim();
  }

  /** One check of every served workspace: starts what is due. Returns the runs started. */
  check(): RunRecord[] {
    if (this.stopped || this.checking) return [];
    this.checking = true;
    const started: RunRecord[] = [];
    try {
      this.workspaces.heartbeat();
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

  /** The tasks that may be due at `now` (each is decided again under the lock before anything starts). */
  findDue(now: number): { store: CronStore; task: ScheduledTask }[] {
    const due: { store: CronStore; task: ScheduledTask }[] = [];
    for (const store of this.workspaces.served()) {
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
    const run = this.runs.runOf(taskId);
    return run ? [run] : [];
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
    if (decision?.kind === 'end')
      this.log(`task ${taskId}: ended (${decision.reason === 'until' ? 'past its end date' : 'its time is past'})`);
    if (decision?.kind === 'queue')
      this.log(
        `task ${taskId}: fire at ${new Date(decision.queued.planned).toISOString()} queued behind the running run`,
      );
    if (!launch) return undefined;
    return this.runs.start(store, launch.task, launch.fire, launch.run);
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
      await this.runs.stopAll(this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
      // Let the finish handlers record the ends first.
      await new Promise((resolve) => setImmediate(resolve));
      this.workspaces.releaseAll();
    })();
    return this.stopping;
  }

  /**
   * Kills every run still going (a second Ctrl-C, or the grace period over): SIGKILL to its process group.
   * A run whose end is not reported soon after is recorded as interrupted anyway.
   */
  kill(): void {
    this.stopped = true;
    this.runs.kill();
  }
}

function newRun(task: ScheduledTask, fire: FireSpec, now: number): RunRecord {
  return {
    id: `run-${now.toString(36)}-${randomBytes(3).toString('hex')}`,
    taskId: task.id,
    trigger: fire.trigger,
    planned: fire.planned,
    started: now,
    // Negative for an early one-shot fire: the history says how early, never "on time".
    lateMs: now - fire.planned,
    sessionId: newSessionId(new Date(now)),
    state: 'running',
    coalescedCount: fire.coalescedCount,
    stale: fire.stale,
    pid: process.pid,
  };
}
