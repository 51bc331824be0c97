// The scheduled tasks of one workspace, on disk in its state folder: `cron/tasks.json` and one history file
// per task (`cron/history/<id>.json`), each written atomically under the mutation lock, so the scheduler and
// `murmur schedule` (and the web console) can change them at the same time. This is the API they all use.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import writeFileAtomic from 'write-file-atomic';
import { stateHome } from '../host/session-store.js';
import { stampDue } from './firing.js';
import { withLock } from '../host/lock.js';
import { checkSchedule, checkTaskInput, inputOf, type Checked, type FieldError, type TaskInput } from './validate.js';
import { isoInZone, nextTimes } from './schedule.js';
import { endedAfterEdit, scheduleChanged } from './rearm.js';
import { readWorkspaces, registerWorkspace } from './workspaces.js';
import type { RunRecord, ScheduledTask } from './types.js';

/** Run records kept per task (the oldest go first). */
const HISTORY_LIMIT = 200;

export type Found<T> = { ok: true; value: T } | { ok: false; error: string };

export interface StoreOptions {
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

export class CronStore {
  readonly dir: string;
  readonly tasksFile: string;
  readonly lockFile: string;
  readonly serviceLockFile: string;
  private readonly env: NodeJS.ProcessEnv;
  readonly now: () => number;
  private cache: { ino: number; mtimeMs: number; size: number; tasks: ScheduledTask[] } | undefined;

  constructor(
    readonly workspace: string,
    readonly home: string,
    options: StoreOptions = {},
  ) {
    this.dir = join(home, 'cron');
    this.tasksFile = join(this.dir, 'tasks.json');
    this.lockFile = join(this.dir, '.lock');
    this.serviceLockFile = join(this.dir, 'scheduler.lock');
    this.env = options.env ?? process.env;
    this.now = options.now ?? Date.now;
  }

  static forWorkspace(workspace: string, options: StoreOptions = {}): CronStore {
    const env = options.env ?? process.env;
    return new CronStore(resolve(workspace), stateHome(resolve(workspace), env), options);
  }

  historyFile(taskId: string): string {
    return join(this.dir, 'history', `${taskId}.json`);
  }

  runLogFile(runId: string): string {
    return join(this.dir, 'runs', `${runId}.log`);
  }

  /** Every task (re-read only when the file changed). */
  list(): ScheduledTask[] {
    let stat;
    try {
      stat = statSync(this.tasksFile);
    } catch {
      this.cache = undefined;
      return [];
    }
    // Every write is an atomic rename: a new inode, so a change within the same millisecond is still seen.
    if (
      this.cache &&
      this.cache.ino === stat.ino &&
      this.cache.mtimeMs === stat.mtimeMs &&
      this.cache.size === stat.size
    )
      return this.cache.tasks;
    const tasks = readTasks(this.tasksFile);
    this.cache = { ino: stat.ino, mtimeMs: stat.mtimeMs, size: stat.size, tasks };
    return tasks;
  }

  get(id: string): ScheduledTask | undefined {
    return this.list().find((t) => t.id === id);
  }

  /** A task's runs, oldest first ([] when it has none, or when its file does not parse — see mutateHistory). */
  history(taskId: string): RunRecord[] {
    return this.readHistory(taskId) ?? [];
  }

  /** undefined: the history file exists but does not parse (a truncated write, a hand edit). */
  private readHistory(taskId: string): RunRecord[] | undefined {
    const file = this.historyFile(taskId);
    if (!existsSync(file)) return [];
    try {
      const runs = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      return Array.isArray(runs) ? (runs as RunRecord[]) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The runs to change under the lock; a history file that does not parse is moved aside, never overwritten. */
  private historyForWrite(taskId: string): RunRecord[] {
    const runs = this.readHistory(taskId);
    if (runs) return runs;
    const file = this.historyFile(taskId);
    renameSync(file, `${file}.corrupt-${this.now()}`);
    return [];
  }

  private writeHistory(taskId: string, runs: RunRecord[]): void {
    mkdirSync(join(this.dir, 'history'), { recursive: true });
    writeFileAtomic.sync(this.historyFile(taskId), `${JSON.stringify(runs.slice(-HISTORY_LIMIT), null, 1)}\n`);
  }

  private writeTasks(tasks: ScheduledTask[]): void {
    mkdirSync(this.dir, { recursive: true });
    writeFileAtomic.sync(this.tasksFile, `${JSON.stringify({ version: 1, tasks }, null, 1)}\n`);
    this.cache = undefined;
  }

  /** Read-modify-write of the task list under the lock; `fn` changes the array in place. */
  mutate<T>(fn: (tasks: ScheduledTask[]) => T): T {
    return withLock(this.lockFile, () => {
      const tasks = existsSync(this.tasksFile) ? readTasks(this.tasksFile) : [];
      const result = fn(tasks);
      this.writeTasks(tasks);
      return result;
    });
  }

  /**
   * The task list and one task's history changed together under one lock: the history is written first and
   * put back if the task list cannot be written, so a fire is never counted without its run record (or the
   * reverse). `fn` changes both arrays in place.
   */
  mutateTaskAndHistory<T>(taskId: string, fn: (tasks: ScheduledTask[], runs: RunRecord[]) => T): T {
    return withLock(this.lockFile, () => {
      const tasks = existsSync(this.tasksFile) ? readTasks(this.tasksFile) : [];
      const before = this.historyForWrite(taskId);
      const hadFile = existsSync(this.historyFile(taskId));
      const runs = [...before];
      const result = fn(tasks, runs);
      const historyChanged = JSON.stringify(runs) !== JSON.stringify(before);
      if (historyChanged) this.writeHistory(taskId, runs);
      try {
        this.writeTasks(tasks);
      } catch (error) {
        if (historyChanged) {
          try {
            if (hadFile) this.writeHistory(taskId, before);
            else rmSync(this.historyFile(taskId), { force: true });
          } catch {
            // The disk refuses both: the run record stays, and the scheduler logs the failure.
          }
        }
        throw error;
      }
      return result;
    });
  }

  /** Read-modify-write of one task's history under the lock. */
  mutateHistory<T>(taskId: string, fn: (runs: RunRecord[]) => T): T {
    return withLock(this.lockFile, () => {
      const runs = this.historyForWrite(taskId);
      const result = fn(runs);
      this.writeHistory(taskId, runs);
      return result;
    });
  }

  /**
   * Like mutateHistory, but only when the task still has a history file: a task removed meanwhile (`rm`) does
   * not get an orphan history back. Returns undefined then.
   */
  mutateExistingHistory<T>(taskId: string, fn: (runs: RunRecord[]) => T): T | undefined {
    return withLock(this.lockFile, () => {
      if (!existsSync(this.historyFile(taskId))) return undefined;
      const runs = this.historyForWrite(taskId);
      const result = fn(runs);
      this.writeHistory(taskId, runs);
      return result;
    });
  }

  create(input: TaskInput, options: { createdBy: 'person' | 'agent' }): Checked<ScheduledTask> {
    const now = this.now();
    const checked = checkTaskInput(input, now, this.workspace);
    if (!checked.ok) return checked;
    registerWorkspace({ workspace: this.workspace, home: this.home }, this.env);
    const id = newTaskId(this.env);
    const task: ScheduledTask = {
      id,
      workspace: this.workspace,
      ...checked.value,
      createdBy: options.createdBy,
      createdAt: now,
      updatedAt: now,
      paused: false,
      cursor: now,
      fires: 0,
    };
    stampDue(task);
    this.mutate((tasks) => tasks.push(task));
    return { ok: true, value: task };
  }

  /** Changes a task's definition (fields not given are kept); identity, counters and history stay. */
  update(
    id: string,
    changes: TaskInput,
    options: { keep?: boolean } = {},
  ): Checked<ScheduledTask> | { ok: false; notFound: string } {
    const now = this.now();
    // Merged and checked on the task as read under the lock, so two editors never write back each other's old fields.
    const outcome = this.mutate((tasks): Checked<ScheduledTask> | undefined => {
      const task = tasks.find((t) => t.id === id);
      if (!task) return undefined;
      const merged: TaskInput = { ...inputOf(task), ...changes };
      if (changes.every !== undefined) delete merged.cron;
      if (changes.cron !== undefined) {
        delete merged.every;
        delete merged.at;
        delete merged.start;
      }
      if (changes.recurring === false && changes.maxFires === undefined) delete merged.maxFires;
      const checked = checkTaskInput(merged, now, this.workspace);
      if (!checked.ok) return checked;
      const changed = scheduleChanged(task, checked.value);
      const ended = endedAfterEdit(task, checked.value);
      for (const key of ['until', 'maxFires', 'permissionMode', 'model', 'effort', 'ended'] as const) delete task[key];
      Object.assign(task, checked.value, { updatedAt: now });
      if (ended) task.ended = ended;
      // A new schedule starts from now: no fire of the old one is replayed.
      if (changed) task.cursor = Math.max(task.cursor, now);
      if (options.keep) task.kept = true;
      stampDue(task);
      return { ok: true, value: { ...task } };
    });
    return outcome ?? { ok: false, notFound: id };
  }

  private change(id: string, fn: (task: ScheduledTask) => void): ScheduledTask | undefined {
    return this.mutate((tasks) => {
      const task = tasks.find((t) => t.id === id);
      if (!task) return undefined;
      fn(task);
      task.updatedAt = this.now();
      stampDue(task);
      return { ...task };
    });
  }

  pause(id: string): ScheduledTask | undefined {
    return this.change(id, (task) => {
      task.paused = true;
    });
  }

  /** Back to firing from now on: fires missed while paused are never replayed. */
  unpause(id: string): ScheduledTask | undefined {
    return this.change(id, (task) => {
      if (!task.paused) return;
      task.paused = false;
      task.cursor = Math.max(task.cursor, this.now());
      delete task.queued;
    });
  }

  keep(id: string): ScheduledTask | undefined {
    return this.change(id, (task) => {
      task.kept = true;
    });
  }

  /** Asks the scheduler to run the task at its next check. */
  runNow(id: string): ScheduledTask | undefined {
    return this.change(id, (task) => {
      task.runNowAt = this.now();
    });
  }

  /** Removes a task and its history (both under the lock, so a run ending meanwhile does not re-create it). */
  remove(id: string): boolean {
    return this.mutate((tasks) => {
      const index = tasks.findIndex((t) => t.id === id);
      if (index < 0) return false;
      tasks.splice(index, 1);
      rmSync(this.historyFile(id), { force: true });
      return true;
    });
  }
}

function readTasks(file: string): ScheduledTask[] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { tasks?: ScheduledTask[] };
    return Array.isArray(parsed.tasks) ? parsed.tasks : [];
  } catch (error) {
    throw new Error(`cannot read the scheduled tasks in ${file}: ${(error as Error).message}`);
  }
}

/** The next `count` ideal times of a schedule not yet saved (preview forms, `murmur schedule preview`). */
export function previewSchedule(
  input: Pick<TaskInput, 'cron' | 'every' | 'at' | 'start' | 'until' | 'timezone'>,
  now: number,
  count = 3,
): Checked<string[]> {
  const checked = checkSchedule(input, now);
  if (!checked.ok) return checked;
  const { schedule, timezone, until } = checked.value;
  return { ok: true, value: nextTimes(schedule, timezone, until, now, count).map((t) => isoInZone(t, timezone)) };
}

/** Every workspace's store in the user-level list. */
export function allStores(env: NodeJS.ProcessEnv = process.env, options: StoreOptions = {}): CronStore[] {
  return readWorkspaces(env).map((w) => new CronStore(w.workspace, w.home, { ...options, env }));
}

/** Finds a task by id in any listed workspace. */
export function findTask(
  id: string,
  env: NodeJS.ProcessEnv = process.env,
  options: StoreOptions = {},
): Found<{ store: CronStore; task: ScheduledTask }> {
  const stores = allStores(env, options);
  for (const store of stores) {
    try {
      const task = store.get(id);
      if (task) return { ok: true, value: { store, task } };
    } catch {
      // An unreadable workspace does not hide the others.
    }
  }
  return {
    ok: false,
    error: `no scheduled task "${id}" (looked in ${stores.length} workspace${stores.length === 1 ? '' : 's'} listed in ~/.murmur/workspaces.json; see murmur schedule list)`,
  };
}

function newTaskId(env: NodeJS.ProcessEnv): string {
  const taken = new Set<string>();
  for (const store of allStores(env)) {
    try {
      for (const task of store.list()) taken.add(task.id);
    } catch {
      // Unreadable: its ids cannot be checked, and a random id of 40 bits will not meet them.
    }
  }
  for (;;) {
    const id = `st-${randomBytes(5).toString('hex')}`;
    if (!taken.has(id)) return id;
  }
}

export type { FieldError, TaskInput };
