// A task as the outside sees it (`--json`, the console's API): the contract fields of `murmur schedule`.
import { isoInZone, nextTimes } from './schedule.js';
import { describeSchedule } from './schedule-words.js';
import type { RunRecord, ScheduledTask } from './types.js';

export { describeSchedule } from './schedule-words.js';

/** A scheduled task's state as the CLI and the console show it; not a background task's (BackgroundTaskStatus). */
export type ScheduledTaskStatus = 'active' | 'paused' | 'ended' | 'failed';

export function taskStatus(task: ScheduledTask, history: readonly RunRecord[]): ScheduledTaskStatus {
  if (task.ended) return 'ended';
  if (task.paused) return 'paused';
  const last = history.at(-1);
  return last?.state === 'failed' ? 'failed' : 'active';
}

/** The next `count` ideal (unjittered) times from now, ISO with the zone's offset. */
export function nextIdealTimes(task: ScheduledTask, now: number, count = 3): string[] {
  if (task.ended) return [];
  return nextTimes(
    task.schedule,
    task.timezone,
    task.until,
    Math.max(task.cursor, now),
    task.recurring ? count : 1,
  ).map((t) => isoInZone(t, task.timezone));
}

export function runObject(run: RunRecord, zone: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: run.id,
    trigger: run.trigger,
    planned: isoInZone(run.planned, zone),
    started: isoInZone(run.started, zone),
    lateMs: run.lateMs,
    sessionId: run.sessionId ?? null,
    state: run.state,
    summary: run.summary ?? null,
  };
  if (run.coalescedCount > 1) out.coalescedCount = run.coalescedCount;
  if (run.stale) out.stale = true;
  if (run.ended !== undefined) out.ended = isoInZone(run.ended, zone);
  return out;
}

export function taskObject(
  task: ScheduledTask,
  history: readonly RunRecord[],
  now: number,
  withHistory = false,
): Record<string, unknown> {
  const out: Record<string, unknown> = { id: task.id, title: task.title, workspace: task.workspace };
  if (task.schedule.kind === 'cron') out.cron = task.schedule.cron;
  else {
    out.every = `${task.schedule.every.n}${task.schedule.every.unit}`;
    out.at = task.schedule.at;
    out.start = task.schedule.start;
  }
  Object.assign(out, {
    until: task.until ?? null,
    timezone: task.timezone,
    recurring: task.recurring,
    maxFires: task.maxFires ?? null,
    fires: task.fires,
    status: taskStatus(task, history),
    next: nextIdealTimes(task, now),
    schedule: describeSchedule(task),
    prompt: task.prompt,
    permissionMode: task.permissionMode ?? null,
    model: task.model ?? null,
    effort: task.effort ?? null,
    createdBy: task.createdBy,
    kept: task.kept === true,
    createdAt: isoInZone(task.createdAt, task.timezone),
  });
  if (task.ended) out.ended = { at: isoInZone(task.ended.at, task.timezone), reason: task.ended.reason };
  if (withHistory) out.history = history.map((r) => runObject(r, task.timezone));
  return out;
}

/** A run's lateness for a log line: `late 12 s`, or `early 45 s` for an early one-shot fire. */
export function lateWords(lateMs: number): string {
  const s = Math.round(Math.abs(lateMs) / 1000);
  return lateMs < 0 && s > 0 ? `early ${s} s` : `late ${s} s`;
}
