// The console's schedule vocabulary: the structural choices of the New task form (hourly, daily, every weekday,
// weekly, monthly, custom interval, once) mapped onto exactly the cron and interval forms of `murmur schedule`, and
// back for a pre-filled Settings tab; the predicted timeline with its computed (theoretical) last moment; the
// time-zone select's names (the same list `murmur schedule` checks against).
import { checkSchedule, runsOnce, type Checked, type TaskInput } from '../../scheduler/validate.js';
import { endedAfterEdit } from '../../scheduler/rearm.js';
import { isoInZone, nextAfter, nextTimes } from '../../scheduler/schedule.js';
import { timeZoneNames } from '../../scheduler/time-zones.js';
import { scheduleNote } from '../../scheduler/schedule-words.js';
import type { ScheduledTask } from '../../scheduler/types.js';

export type ScheduleKind = 'hourly' | 'daily' | 'weekday' | 'weekly' | 'monthly' | 'custom' | 'once' | 'cron';

/** What the form holds for a schedule (the page's script builds the same TaskInput from it). */
export interface ScheduleChoice {
  kind: ScheduleKind;
  minute?: number;
  time?: string;
  day?: number;
  dom?: number;
  every?: string;
  /** The first day of an interval, or the day of a one-time task. */
  start?: string;
  until?: string;
  /** kind "cron": a cron the structural choices cannot say (made at the command line or by an agent), kept as is. */
  cron?: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * The structural choice a task's schedule is, or "cron" when none fits (a one-shot cron among them: "Monthly
 * on day 5" would not say that it runs once). An end date goes with every recurring kind, as `--until` does.
 */
export function choiceOf(task: Pick<ScheduledTask, 'schedule' | 'until' | 'recurring'>): ScheduleChoice {
  const s = task.schedule;
  const until = task.until !== undefined ? { until: task.until } : {};
  if (s.kind === 'every') {
    if (s.every.n === 1 && s.every.unit === 'd' && task.until === s.start)
      return { kind: 'once', time: s.at, start: s.start };
    return { kind: 'custom', every: `${s.every.n}${s.every.unit}`, time: s.at, start: s.start, ...until };
  }
  const cron = s.cron;
  const num = '([0-9]|[1-5][0-9])';
  const hour = '([0-9]|1[0-9]|2[0-3])';
  let m = new RegExp(`^${num} \\* \\* \\* \\*$`).exec(cron);
  if (m && task.recurring) return { kind: 'hourly', minute: Number(m[1]), ...until };
  m = new RegExp(`^${num} ${hour} (\\*|[1-9]|[12][0-9]|3[01]) \\* (\\*|1-5|[0-6])$`).exec(cron);
  if (m && task.recurring) {
    const time = `${pad(Number(m[2]))}:${pad(Number(m[1]))}`;
    const [dom, dow] = [m[3]!, m[4]!];
    if (dom === '*' && dow === '*') return { kind: 'daily', time, ...until };
    if (dom === '*' && dow === '1-5') return { kind: 'weekday', time, ...until };
    if (dom === '*' && /^[0-6]$/.test(dow)) return { kind: 'weekly', time, day: Number(dow), ...until };
    if (/^\d+$/.test(dom) && dow === '*') return { kind: 'monthly', time, dom: Number(dom), ...until };
  }
  return { kind: 'cron', cron, ...until };
}

export interface PredictedTimeline {
  zone: string;
  /** The most recent ideal time before now: computed, not a run record (null: none, e.g. before the start date). */
  theoretical: string | null;
  /** The next ideal time and the one after (fewer when the schedule ends, the task runs once or reaches its cap). */
  next: string[];
  /** Why the times are fewer, or will not happen as shown (ended, paused), in plain words. */
  note?: string;
}

const LOOKBACK_MS = [3_600_000, 86_400_000, 8 * 86_400_000, 32 * 86_400_000, 366 * 86_400_000, 4 * 366 * 86_400_000];

/** The last ideal time before `now`: searched forward from ever earlier points until one is found. */
export function theoreticalLast(
  input: Pick<TaskInput, 'cron' | 'every' | 'at' | 'start' | 'until' | 'timezone'>,
  now: number,
): number | undefined {
  const checked = checkSchedule({ ...input, until: undefined }, now);
  if (!checked.ok) return undefined;
  const { schedule, timezone } = checked.value;
  for (const back of LOOKBACK_MS) {
    let last: number | undefined;
    let t = now - back;
    // Walks forward to now; the lookbacks grow, so a frequent schedule stops after a few steps.
    for (let step = 0; step < 10_000; step++) {
      const next = nextAfter(schedule, timezone, t);
      if (next === undefined || next >= now) break;
      last = next;
      t = next;
    }
    if (last !== undefined) return last;
  }
  return undefined;
}

/** The schedule fields of a form, with what decides how many of its times happen. */
export type PreviewInput = Pick<
  TaskInput,
  'cron' | 'every' | 'at' | 'start' | 'until' | 'timezone' | 'recurring' | 'maxFires'
>;

const ENDED: Record<NonNullable<ScheduledTask['ended']>['reason'], string> = {
  once: 'its one run is done; change when it runs to run it again',
  until: 'its end date is over; change the schedule to run it again',
  'max-fires': 'it made all its runs; raise or clear "At most … runs" to run it again',
  stale: 'it went stale (an agent made it and nobody kept it)',
};

/**
 * The form's timeline: what the task would do if saved now. For a saved task (`task`) an ended one that the
 * edit does not re-arm shows no times, a paused one says it waits, and its past runs count against its cap.
 */
export function predictTimeline(
  input: PreviewInput,
  now: number,
  task?: Pick<ScheduledTask, 'schedule' | 'timezone' | 'until' | 'recurring' | 'ended' | 'fires' | 'paused'>,
): Checked<PredictedTimeline> {
  const checked = checkSchedule(input, now);
  if (!checked.ok) return checked;
  const { schedule, timezone, until } = checked.value;
  const last = theoreticalLast(input, now);
  const once = runsOnce(input.recurring, checked.value);
  const capText = typeof input.maxFires === 'number' ? String(input.maxFires) : (input.maxFires ?? '').trim();
  const cap = /^\d+$/.test(capText) && !once ? Number(capText) : undefined;
  const value: PredictedTimeline = {
    zone: timezone,
    theoretical: last === undefined ? null : isoInZone(last, timezone),
    next: [],
  };
  const ended = task ? endedAfterEdit(task, { schedule, timezone, until, recurring: !once, maxFires: cap }) : undefined;
  if (ended) {
    value.note = `Ended: ${ENDED[ended.reason]}.`;
    return { ok: true, value };
  }
  const count = Math.max(0, Math.min(once ? 1 : 2, cap === undefined ? 2 : cap - (task?.fires ?? 0)));
  value.next = nextTimes(schedule, timezone, until, now, count).map((t) => isoInZone(t, timezone));
  const notes = [
    task?.paused ? 'Paused: it runs at these times only if you resume it before then.' : once ? 'It runs once.' : '',
    // A monthly day some months lack: said as the day is chosen (the preview follows each edit).
    once ? '' : (scheduleNote(schedule) ?? ''),
  ].filter(Boolean);
  if (notes.length > 0) value.note = notes.join(' ');
  return { ok: true, value };
}

/** An ISO time with offset as "2026-12-07 09:00 (Europe/Berlin)". */
export function shortTime(iso: string | undefined | null, zone: string): string {
  if (!iso) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} (${zone})`;
}

/**
 * The time-zone select's names: the shared list (so a task in Asia/Kolkata finds Asia/Kolkata, not the first
 * option), with this machine's zone and a task's own zone put first when the list lacks them.
 */
export function zoneOptions(defaultZone: string, ...taskZones: (string | undefined)[]): string[] {
  const zones = [...timeZoneNames()];
  for (const zone of [defaultZone, ...taskZones]) if (zone && !zones.includes(zone)) zones.unshift(zone);
  return zones;
}
