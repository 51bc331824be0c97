// One registry for background work (bash commands, subagents, questions): ids, logs on disk, waiting,
// stopping, and exactly one notification to the owner when a task ends (none when it was stopped).
import { mkdirSync, openSync, readSync, closeSync, fstatSync } from 'node:fs';
import { join } from 'node:path';
import type { BackgroundTasks, TaskInfo, TaskOutcome, TaskSpec } from '../tools/adapters.js';
import { type Clock, systemClock } from './clock.js';
import type { EventBus } from './events.js';
import type { UserMessage } from './types.js';
import { sharedAppendPool, type AppendPool } from './append-pool.js';

export const NOTIFICATION_RESULT_CHARS = 3000;
export const INTERRUPTED_TASK_RESULT =
  'Interrupted: the process stopped while this task was running; it was not finished.';

interface TaskEntry {
  info: TaskInfo;
  controller: AbortController;
  done: Promise<void>;
  stopped: boolean;
  waiters: Set<() => void>;
}

export interface TaskRegistryOptions {
  /** Folder where each task gets `<taskId>/output.log`. */
  dir: string;
  bus: EventBus;
  clock?: Clock;
  /** Delivers the completion message to the owner's inbox. */
  notify: (ownerAgentId: string, message: UserMessage) => void;
  /** Called whenever a task starts or ends (session state). */
  onChange?: () => void;
  /** Where the output logs are appended (the process's pool unless given). */
  pool?: AppendPool;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The synthetic user message that tells an owner its background task ended. */
export function taskNotification(info: TaskInfo): UserMessage {
  const result = info.result ?? '';
  const cut = result.length > NOTIFICATION_RESULT_CHARS;
  const lines = [
    '<task-notification>',
    `<task-id>${info.taskId}</task-id>`,
    ...(info.meta?.agentId ? [`<agent-id>${escapeXml(info.meta.agentId)}</agent-id>`] : []),
    `<kind>${info.kind}</kind>`,
    `<description>${escapeXml(info.description)}</description>`,
    `<status>${info.status}</status>`,
    `<output-file>${escapeXml(info.outputPath)}</output-file>`,
    `<result>${escapeXml(cut ? result.slice(0, NOTIFICATION_RESULT_CHARS) : result)}</result>`,
    ...(cut
      ? [
          `<note>The result was cut at ${NOTIFICATION_RESULT_CHARS} characters; read the rest from ${escapeXml(info.outputPath)}.</note>`,
        ]
      : []),
    '</task-notification>',
  ];
  return { role: 'user', content: lines.join('\n'), synthetic: { kind: 'task-notification', taskId: info.taskId } };
}

export class TaskRegistry {
  private readonly tasks = new Map<string, TaskEntry>();
  private counter = 0;
  private readonly clock: Clock;

  constructor(private readonly options: TaskRegistryOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Takes over the tasks of a resumed session: they stay listed (and their logs readable), numbering continues
   * after them, and one still running when the process stopped is marked aborted (nothing runs it any more).
   */
  seed(existing: readonly TaskInfo[]): void {
    for (const saved of existing) {
      const n = Number(saved.taskId.replace(/^t-/, ''));
      if (Number.isInteger(n)) this.counter = Math.max(this.counter, n);
      if (this.tasks.has(saved.taskId)) continue;
      const info: TaskInfo = { ...saved };
      if (info.status === 'running') {
        info.status = 'aborted';
        info.result = INTERRUPTED_TASK_RESULT;
      }
      this.tasks.set(info.taskId, {
        info,
        controller: new AbortController(),
        done: Promise.resolve(),
        stopped: false,
        waiters: new Set(),
      });
    }
  }

  start(owner: string, spec: TaskSpec): TaskInfo {
    const taskId = `t-${++this.counter}`;
    const dir = join(this.options.dir, taskId);
    mkdirSync(dir, { recursive: true });
    const outputPath = join(dir, 'output.log');
    const info: TaskInfo = {
      taskId,
      kind: spec.kind,
      description: spec.description,
      status: 'running',
      ownerAgentId: owner,
      startedAt: this.clock.now(),
      outputPath,
    };
    if (spec.meta) info.meta = spec.meta;
    const controller = new AbortController();
    const pool = this.options.pool ?? sharedAppendPool();
    // Made now, so the log can be read (empty) from the start.
    pool.append(outputPath, '');
    const entry: TaskEntry = { info, controller, done: Promise.resolve(), stopped: false, waiters: new Set() };
    this.tasks.set(taskId, entry);
    this.options.bus.emit({
      type: 'task.start',
      taskId,
      agentId: owner,
      kind: spec.kind,
      description: spec.description,
    });
    this.options.onChange?.();

    const timer =
      spec.timeoutMs !== undefined
        ? this.clock.setTimeout(() => controller.abort(new Error('timeout')), spec.timeoutMs)
        : undefined;
    entry.done = (async () => {
      let outcome: TaskOutcome;
      try {
        outcome = await spec.run({ signal: controller.signal, write: (chunk) => pool.append(outputPath, chunk) });
      } catch (error) {
        outcome = {
          status: controller.signal.aborted ? 'aborted' : 'failed',
          result: error instanceof Error ? error.message : String(error),
        };
      }
      if (timer !== undefined) this.clock.clearTimeout(timer);
      if (
        controller.signal.reason instanceof Error &&
        controller.signal.reason.message === 'timeout' &&
        outcome.status === 'aborted'
      ) {
        outcome = { ...outcome, status: 'timeout' };
      }
      // The task ran; a log that could not be written is said in its result (the owner reads it), not hidden.
      const loss = await pool.written(outputPath);
      if (loss) {
        const note = `murmur could not write the whole output log ${outputPath} (${loss.error}); what it holds is incomplete`;
        outcome = { ...outcome, result: outcome.result ? `${outcome.result}\n${note}` : note };
      }
      this.finish(entry, outcome);
    })();
    return { ...info };
  }

  private finish(entry: TaskEntry, outcome: TaskOutcome): void {
    const { info } = entry;
    if (info.status === 'running') {
      info.status = entry.stopped ? 'stopped' : outcome.status;
      if (outcome.result !== undefined) info.result = outcome.result;
      info.endedAt = this.clock.now();
    }
    this.options.bus.emit({
      type: 'task.end',
      taskId: info.taskId,
      agentId: info.ownerAgentId,
      kind: info.kind,
      description: info.description,
      status: info.status,
    });
    this.options.onChange?.();
    for (const wake of entry.waiters) wake();
    entry.waiters.clear();
    // Exactly one notification, and none for a task that was stopped on purpose.
    if (!entry.stopped) this.options.notify(info.ownerAgentId, taskNotification(info));
  }

  get(taskId: string): TaskInfo | undefined {
    const entry = this.tasks.get(taskId);
    return entry ? { ...entry.info } : undefined;
  }

  all(): TaskInfo[] {
    return [...this.tasks.values()].map((e) => ({ ...e.info }));
  }

  /** Tasks still running; with an owner, only that owner's. */
  activeCount(owner?: string): number {
    let n = 0;
    for (const entry of this.tasks.values())
      if (entry.info.status === 'running' && (owner === undefined || entry.info.ownerAgentId === owner)) n++;
    return n;
  }

  async wait(taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<TaskInfo | undefined> {
    const entry = this.tasks.get(taskId);
    if (!entry) return undefined;
    if (entry.info.status !== 'running' || timeoutMs <= 0) return { ...entry.info };
    await new Promise<void>((resolve) => {
      const finish = () => {
        this.clock.clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        entry.waiters.delete(finish);
        resolve();
      };
      const timer = this.clock.setTimeout(finish, timeoutMs);
      signal?.addEventListener('abort', finish, { once: true });
      entry.waiters.add(finish);
    });
    return { ...entry.info };
  }

  /** Resolves when one of the owner's running tasks ends (at once when none runs), or the signal aborts. */
  nextEnd(owner: string, signal?: AbortSignal): Promise<void> {
    const running = [...this.tasks.values()].filter(
      (e) => e.info.status === 'running' && e.info.ownerAgentId === owner,
    );
    if (running.length === 0 || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const finish = () => {
        for (const entry of running) entry.waiters.delete(finish);
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      for (const entry of running) entry.waiters.add(finish);
      signal?.addEventListener('abort', finish, { once: true });
    });
  }

  /** Resolves when every task has ended. */
  async settled(): Promise<void> {
    for (;;) {
      const running = [...this.tasks.values()].filter((e) => e.info.status === 'running');
      if (running.length === 0) return;
      await Promise.all(running.map((e) => e.done));
    }
  }

  async tail(taskId: string, maxBytes: number): Promise<string> {
    const entry = this.tasks.get(taskId);
    if (!entry) return '';
    let fd: number | undefined;
    try {
      fd = openSync(entry.info.outputPath, 'r');
      const size = fstatSync(fd).size;
      const length = Math.min(size, maxBytes);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      return buffer.toString('utf8');
    } catch {
      return '';
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  stop(taskId: string, reason: string): TaskInfo | undefined {
    const entry = this.tasks.get(taskId);
    if (!entry) return undefined;
    if (entry.info.status === 'running') {
      entry.stopped = true;
      entry.info.status = 'stopped';
      entry.info.result = reason;
      entry.info.endedAt = this.clock.now();
      entry.controller.abort(new Error(reason));
    }
    return { ...entry.info };
  }

  /** Stops every running task (the run is ending), or every one of an owner. */
  stopAll(reason: string, owner?: string): void {
    for (const [id, entry] of this.tasks)
      if (owner === undefined || entry.info.ownerAgentId === owner) this.stop(id, reason);
  }

  /** The registry as one agent sees it. */
  viewFor(owner: string): BackgroundTasks {
    return {
      start: (spec) => this.start(owner, spec),
      list: ({ activeOnly, limit }) =>
        [...this.tasks.values()]
          .map((e) => e.info)
          .filter((i) => i.ownerAgentId === owner && (!activeOnly || i.status === 'running'))
          .slice(-limit)
          .map((i) => ({ ...i })),
      get: (id) => {
        const info = this.get(id);
        return info && info.ownerAgentId === owner ? info : undefined;
      },
      wait: (id, timeoutMs, signal) =>
        this.get(id)?.ownerAgentId === owner ? this.wait(id, timeoutMs, signal) : Promise.resolve(undefined),
      tail: (id, maxBytes) => (this.get(id)?.ownerAgentId === owner ? this.tail(id, maxBytes) : Promise.resolve('')),
      stop: (id, reason) => (this.get(id)?.ownerAgentId === owner ? this.stop(id, reason) : undefined),
    };
  }
}
