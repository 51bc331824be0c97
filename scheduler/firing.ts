// The rules of firing, as a pure function of a task, its run history and the time: what is due now.
// Jitter is derived from the task id, so it is the same on every check, every run and every machine.
import { localTime, nextAfter, periodAt, untilLimit } from './schedule.js';
import { STALE_AFTER_MS, type RunRecord, type RunTrigger, type ScheduledTask } from './types.js';

const MAX_RECURRING_JITTER_MS = 15 * 60 * 1000;
const ONE_SHOT_EARLY_MS = 90 * 1000;
/** Missed fires counted one by one up to this many (a minutely task asleep for months stops counting here). */
const MAX_COALESCE_SCAN = 100_000;

/** A number in [0, 1) from the task id (FNV-1a, then mixed). */
export function jitterFraction(taskId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < taskId.length; i++) {
    h ^= taskId.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // murmur3's finalizer, so ids that differ in one character spread over the whole range.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return (h >>> 0) / 0x1_0000_0000;
}

type Timing = Pick<ScheduledTask, 'id' | 'schedule' | 'timezone' | 'recurring'>;

/**
 * How much later (positive) or earlier (negative) than its ideal time `ideal` the task fires: a recurring task
 * in [0, min(10 % of its period, 15 min)); a one-shot task on :00 or :30 up to 90 s earlier; else on time.
 */
export function jitterMs(task: Timing, ideal: number): number {
  const f = jitterFraction(task.id);
  if (task.recurring) {
    const max = Math.min(periodAt(task.schedule, task.timezone, ideal) * 0.1, MAX_RECURRING_JITTER_MS);
    return Math.floor(f * max);
  }
  const local = localTime(ideal, task.timezone);
  if (local.second === 0 && local.minute % 30 === 0 && ideal % 1000 === 0) return -Math.floor(f * ONE_SHOT_EARLY_MS);
  return 0;
}

export type EndReason = NonNullable<ScheduledTask['ended']>['reason'];

export interface FireSpec {
  trigger: RunTrigger;
  /** The ideal time the run stands for (the latest of coalesced fires; the request time for run-now). */
  planned: number;
  coalescedCount: number;
  stale: boolean;
}

export type FireDecision =
  /** Nothing due; `nextAt` is when the next fire is due (jitter applied), if there is one. */
  | { kind: 'idle'; nextAt?: number }
  /** Start a run now. `cursor`/`countsAsFire` update the task; `end` ends it (or deletes it, when stale). */
  | { kind: 'fire'; fire: FireSpec; cursor?: number; countsAsFire: boolean; end?: EndReason }
  /** A fire came while the previous run is still going: it waits (merged with one already waiting). */
  | {
      kind: 'queue';
      queued: NonNullable<ScheduledTask['queued']>;
      cursor: number;
      countsAsFire: boolean;
      end?: EndReason;
    }
  /** The schedule has no fire left (past `until`, or a one-shot time that never comes). */
  | { kind: 'end'; reason: EndReason };

export function isRunning(history: readonly RunRecord[]): boolean {
  return history.some((r) => r.state === 'running');
}

/** Whether an agent's task is past its 7 days (a person's task, or a kept one, never is). */
export function isStale(task: ScheduledTask, now: number): boolean {
  return task.createdBy === 'agent' && task.recurring && task.kept !== true && now - task.createdAt > STALE_AFTER_MS;
}

/** What the due time of a task depends on: a stored `due` is valid while this is unchanged. */
export function dueKey(task: Pick<ScheduledTask, 'cursor' | 'updatedAt'>): string {
  return `${task.cursor}:${task.updatedAt}`;
}

/**
 * Stores in the task when its next fire is due, so a scheduler that starts (or re-reads a changed file) need
 * not compute it again for every task. Called by every writer; a stale or missing value is just recomputed.
 */
export function stampDue(task: ScheduledTask): void {
  const at = task.ended || task.paused ? undefined : nextDueAt(task);
  task.due = { key: dueKey(task), at: at ?? null };
}

/** The jittered time of the next fire after the task's cursor, or undefined when none is left. */
export function nextDueAt(task: ScheduledTask): number | undefined {
  const t = nextAfter(task.schedule, task.timezone, task.cursor);
  if (t === undefined || t >= untilLimit(task.until, task.timezone)) return undefined;
  return t + jitterMs(task, t);
}

export function decideFire(task: ScheduledTask, history: readonly RunRecord[], now: number): FireDecision {
  const running = isRunning(history);
  // A run that waited behind the previous one still starts when the task has ended meanwhile.
  if (task.queued && !running) {
    return { kind: 'fire', fire: { trigger: 'queued', ...task.queued }, countsAsFire: false };
  }
  // A person's run-now is honoured on an ended or paused task too (once; the task stays as it is), so the
  // request is always settled rather than left pending for ever.
  if (task.runNowAt !== undefined && !running) {
    return {
      kind: 'fire',
      fire: { trigger: 'run-now', planned: task.runNowAt, coalescedCount: 1, stale: false },
      countsAsFire: false,
    };
  }
  if (task.ended) return { kind: 'idle' };
  if (task.paused) return { kind: 'idle' };

  const limit = untilLimit(task.until, task.timezone);
  let count = 0;
  let last: number | undefined;
  let t = nextAfter(task.schedule, task.timezone, task.cursor);
  let jitter = t === undefined ? 0 : jitterMs(task, t);
  while (t !== undefined && t < limit && t + jitter <= now) {
    count++;
    last = t;
    if (!task.recurring || count >= MAX_COALESCE_SCAN) break;
    t = nextAfter(task.schedule, task.timezone, t);
    if (t !== undefined) jitter = jitterMs(task, t);
  }
  if (last === undefined) {
    if (t === undefined || t >= limit) return { kind: 'end', reason: task.recurring ? 'until' : 'once' };
    return { kind: 'idle', nextAt: t + jitter };
  }

  const stale = isStale(task, now);
  // A fire merged into the one already waiting behind a running run adds no run, so it adds no fire either.
  const countsAsFire = !(running && task.queued);
  let end: EndReason | undefined;
  if (!task.recurring) end = 'once';
  else if (task.maxFires !== undefined && task.fires + (countsAsFire ? 1 : 0) >= task.maxFires) end = 'max-fires';
  else if (stale) end = 'stale';
  else {
    const after = nextAfter(task.schedule, task.timezone, last);
    if (after === undefined || after >= limit) end = 'until';
  }
  if (running) {
    const waiting = task.queued;
    const queued = { planned: last, coalescedCount: count + (waiting?.coalescedCount ?? 0), stale };
    return end
      ? { kind: 'queue', queued, cursor: last, countsAsFire, end }
      : { kind: 'queue', queued, cursor: last, countsAsFire };
  }
  const decision: FireDecision = {
    kind: 'fire',
    fire: { trigger: 'scheduled', planned: last, coalescedCount: count, stale },
    cursor: last,
    countsAsFire: true,
  };
  if (end) decision.end = end;
  return decision;
}

/** The prompt a run executes: verbatim, or in a `<cron-fire>` envelope when fires were merged or it is stale. */
export function firePrompt(prompt: string, fire: Pick<FireSpec, 'coalescedCount' | 'stale'>): string {
  if (fire.coalescedCount <= 1 && !fire.stale) return prompt;
  const attrs = [`coalescedCount="${fire.coalescedCount}"`];
  if (fire.stale) attrs.push('stale="true"');
  const note = fire.stale
    ? 'This scheduled task is more than 7 days old and was created by an agent: this is its last run; it is deleted afterwards.'
    : `The scheduler missed ${fire.coalescedCount - 1} earlier fire time(s) of this task; this one run stands for all ${fire.coalescedCount}.`;
  return `<cron-fire ${attrs.join(' ')}>\n${note}\n\n${prompt}\n</cron-fire>`;
}
