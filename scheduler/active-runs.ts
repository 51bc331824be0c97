// The runs a scheduler has going: what a launcher hands back, starting each run through it, recording its end
// in the task's history, and at shutdown stopping them — killing the ones that do not stop — so none stays "running".
import type { Clock } from '../host/command-parts.js';
import { firePrompt, type FireSpec } from './firing.js';
import type { CronStore } from './store.js';
import type { RunRecord, RunState, ScheduledTask } from './types.js';
import { lateWords } from './task-view.js';
import { timedRun } from './schedule-words.js';

/** After a kill, how long to wait for a run's end before it is recorded as interrupted anyway. */
const KILL_WAIT_MS = 3_000;

export interface ScheduledRunResult {
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

export interface ScheduledRunProcess {
  done: Promise<ScheduledRunResult>;
  /** Stops the run so its session is saved (SIGTERM to a child process). */
  stop(): void;
  /** Ends the run at once (SIGKILL to a child's process group), for a run that does not stop. */
  kill?(): void;
}

export type Launcher = (spec: LaunchSpec) => ScheduledRunProcess;

export interface ActiveRunsOptions {
  launch: Launcher;
  clock: Clock;
  log: (line: string) => void;
  /** A run's end was recorded: what the service knows of its task's next due time is stale. */
  ended: (taskId: string) => void;
  /** Then, after the end is logged: a queued fire may start at once. */
  next: () => void;
}

interface Active {
  task: ScheduledTask;
  run: RunRecord;
  store: CronStore;
  handle: ScheduledRunProcess;
}

export class ActiveRuns {
  /** Per task id: its run going now. */
  private readonly active = new Map<string, Active>();
  private killing: Promise<void> | undefined;
  private killed = false;

  constructor(private readonly options: ActiveRunsOptions) {}

  get count(): number {
    return this.active.size;
  }

  /** Whether stopAll() or kill() had to kill runs that did not stop by themselves. */
  get killedRuns(): boolean {
    return this.killed;
  }

  /** The task's run going now, if any. */
  runOf(taskId: string): RunRecord | undefined {
    return this.active.get(taskId)?.run;
  }

  runIds(): Set<string> {
    return new Set([...this.active.values()].map((a) => a.run.id));
  }

  /** Launches a run already recorded as running. */
  start(store: CronStore, task: ScheduledTask, fire: FireSpec, run: RunRecord): RunRecord {
    const { log } = this.options;
    const extra = [
      fire.coalescedCount > 1 ? `coalesced ${fire.coalescedCount}` : '',
      fire.stale ? 'stale: last run' : '',
    ]
      .filter(Boolean)
      .join(', ');
    log(
      `fire ${task.id} "${task.title}" (${fire.trigger}${extra ? `, ${extra}` : ''})${timedRun(run) ? ` ${lateWords(run.lateMs)}` : ''}: session ${run.sessionId}`,
    );
    let handle: ScheduledRunProcess;
    try {
      handle = this.options.launch({ store, task, run, prompt: firePrompt(task.prompt, fire) });
    } catch (error) {
      handle = {
        done: Promise.resolve({ state: 'failed', summary: `could not start: ${(error as Error).message}` }),
        stop: () => undefined,
      };
    }
    this.active.set(task.id, { task, run, store, handle });
    void handle.done
      .catch((error: unknown): ScheduledRunResult => ({
        state: 'failed',
        summary: `the run failed to report: ${error instanceof Error ? error.message : String(error)}`,
      }))
      .then((result) => this.finish(task, run, store, result))
      .catch((error: unknown) => log(`task ${task.id}: ${error instanceof Error ? error.message : String(error)}`));
    return run;
  }

  private finish(task: ScheduledTask, run: RunRecord, store: CronStore, result: ScheduledRunResult): void {
    if (this.active.get(task.id)?.run.id !== run.id) return; // Already recorded (a kill that timed out).
    const ended = this.options.clock.now();
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
      this.options.log(`task ${task.id}: cannot record the end of run ${run.id}: ${(error as Error).message}`);
    }
    this.active.delete(task.id);
    this.options.ended(task.id);
    this.options.log(
      `done ${task.id} "${task.title}": ${result.state}${result.summary ? ` — ${result.summary}` : ''} (session ${run.sessionId})`,
    );
    this.options.next();
  }

  /**
   * Stops every run (their sessions are saved) and waits for them — at most `graceMs`, then they are
   * killed (see kill()) — until each end is recorded or the kill's wait is over.
   */
  async stopAll(graceMs: number): Promise<void> {
    const running = [...this.active.values()];
    for (const a of running) a.handle.stop();
    const stoppedInTime = await this.waitFor(running, graceMs);
    if (!stoppedInTime) this.kill();
    await (this.killing ?? Promise.resolve());
  }

  /**
   * Kills every run still going (a second Ctrl-C, or the grace period over): SIGKILL to its process group.
   * A run whose end is not reported soon after is recorded as interrupted anyway.
   */
  kill(): void {
    if (this.killing) return;
    const running = [...this.active.values()];
    this.killed = running.length > 0;
    if (running.length > 0)
      this.options.log(`killing ${running.length} run${running.length === 1 ? '' : 's'} that did not stop`);
    for (const a of running) {
      try {
        (a.handle.kill ?? a.handle.stop)();
      } catch {
        // Gone already.
      }
    }
    this.killing = this.waitFor(running, KILL_WAIT_MS).then(() => {
      for (const a of [...this.active.values()]) {
        this.finish(a.task, a.run, a.store, {
          state: 'interrupted',
          summary: `the run was killed when the scheduler stopped${a.run.sessionId ? `; continue it with: murmur resume ${a.run.sessionId}` : ''}`,
        });
      }
    });
  }

  /** True when all `runs` ended within `ms` (on the service's clock). */
  private waitFor(runs: Active[], ms: number): Promise<boolean> {
    const all = Promise.all(runs.map((a) => a.handle.done.catch(() => undefined))).then(() => true);
    if (runs.length === 0) return all;
    let handle: unknown;
    const timeout = new Promise<boolean>((resolve) => {
      handle = this.options.clock.setTimeout(() => resolve(false), ms);
    });
    return Promise.race([all, timeout]).finally(() => this.options.clock.clearTimeout(handle));
  }
}
