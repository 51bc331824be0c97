// A scheduled task's schedule and runs in words, one phrase per kind, shared by the console's cards and task page,
// `murmur schedule show|list` and their `--json` (its `schedule` field): a one-shot task says "once on <day> at
// <time> (<zone>)", never the interval it is stored as; a monthly day some months lack says which months it skips.
import { checkCron, describeCron } from './cron-fields.js';
import { isoInZone, nextAfter } from './schedule.js';
import type { RunRecord, ScheduledTask } from './types.js';

export type Describable = Pick<ScheduledTask, 'schedule' | 'until' | 'recurring'> &
  Partial<Pick<ScheduledTask, 'timezone' | 'cursor' | 'fires' | 'ended'>>;

/**
 * The one time a one-shot task runs (or ran): its fire moved the cursor onto it; before that it is the first time
 * after the cursor. Undefined when that cannot be known (no cursor, a schedule that no longer parses).
 */
function oneShotTime(task: Describable, zone: string): number | undefined {
  // croner reads some crons murmur refuses (a stored "? ? 1 * *"): those are said as written.
  if (task.cursor === undefined || (task.schedule.kind === 'cron' && checkCron(task.schedule.cron))) return undefined;
  if (task.ended && (task.fires ?? 0) > 0) return task.cursor;
  try {
    return nextAfter(task.schedule, zone, task.cursor);
  } catch {
    return undefined;
  }
}

/**
 * The schedule as one phrase: "at 09:00 on Monday (UTC)", "every 2 weeks on Tuesday at 09:00 (UTC) from 2026-12-01, until
 * 2026-12-31", "once on 2026-12-03 at 14:15 (UTC)". The zone follows the time it qualifies; without
 * `task.timezone` (`zone: false`, or none given) the phrase has none (a caller that says the zone itself).
 */
export function describeSchedule(task: Describable, options: { zone?: boolean } = {}): string {
  const zone = options.zone === false ? undefined : task.timezone;
  const inZone = zone ? ` (${zone})` : '';
  if (!task.recurring) {
    const t = oneShotTime(task, zone ?? task.timezone ?? 'UTC');
    if (t !== undefined) {
      const iso = isoInZone(t, zone ?? task.timezone ?? 'UTC');
      return `once on ${iso.slice(0, 10)} at ${iso.slice(11, 16)}${inZone}`;
    }
  }
  const s = task.schedule;
  const base = s.kind === 'cron' ? `${describeCron(s.cron)}${inZone}` : describeInterval(s, inZone);
  const until = task.until ? `, until ${task.until}` : '';
  return task.recurring ? `${base}${until}` : `once, the first time ${base}${until}`;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** "every 2 weeks on Monday at 09:00 (UTC) from 2026-12-07": the day a week or month interval keeps is named. */
function describeInterval(s: Extract<ScheduledTask['schedule'], { kind: 'every' }>, inZone: string): string {
  const { n, unit } = s.every;
  const [y, m, d] = s.start.split('-').map(Number) as [number, number, number];
  const noun = unit === 'd' ? 'day' : unit === 'w' ? 'week' : 'month';
  const weekday = WEEKDAYS[new Date(Date.UTC(y, m - 1, d)).getUTCDay()];
  const every =
    unit === 'w' && n === 1
      ? `every ${weekday}`
      : `every ${n === 1 ? noun : `${n} ${noun}s`}${unit === 'w' ? ` on ${weekday}` : unit === 'mo' ? ` on day ${d}` : ''}`;
  return `${every} at ${s.at}${inZone} from ${s.start}`;
}

const MONTH_NAMES = ['February', 'April', 'June', 'September', 'November'];

/** What the scheduler does with a monthly day some months lack (a cron skips those months: it never clamps). */
export function monthDayNote(day: number): string | undefined {
  if (day === 31) return `Skips ${MONTH_NAMES.slice(0, -1).join(', ')} and ${MONTH_NAMES.at(-1)}: they have no day 31.`;
  if (day === 30) return 'Skips February: it has no day 30.';
  if (day === 29) return 'Skips February outside leap years: it has a day 29 only in leap years.';
  return undefined;
}

/**
 * A note on a schedule whose day is missing in some months, or undefined: a monthly cron on day 29–31 skips those
 * months; an interval of months from a 29th–31st runs on the last day of a shorter month instead.
 */
export function scheduleNote(schedule: ScheduledTask['schedule']): string | undefined {
  if (schedule.kind === 'every') {
    const day = Number(schedule.start.slice(8, 10));
    return schedule.every.unit === 'mo' && day > 28
      ? `In months without a day ${day} it runs on their last day.`
      : undefined;
  }
  const fields = schedule.cron.trim().split(/\s+/);
  if (fields.length !== 5 || !/^\d+$/.test(fields[2]!) || fields[3] !== '*') return undefined;
  // With a day of the week as well, cron runs on either, so the month is not skipped.
  return fields[4] === '*' || fields[4] === '?' ? monthDayNote(Number(fields[2])) : undefined;
}

/** Whether a run stands for a fire time (so how late it started means something): not a "Run now". */
export const timedRun = (run: Pick<RunRecord, 'trigger'>): boolean => run.trigger !== 'run-now';

/** A span of time: "under 1 s", "42 s", "3 min 5 s", "2 h 10 min". */
export function durationWords(ms: number): string {
  if (ms < 1000) return 'under 1 s';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** How long a run ran (started → ended): "running" while it runs, "—" for an old record without its end. */
export function runDuration(run: Pick<RunRecord, 'state' | 'started' | 'ended'>): string {
  if (run.state === 'running') return 'running';
  return run.ended === undefined || run.ended < run.started ? '—' : durationWords(run.ended - run.started);
}
