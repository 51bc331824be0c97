// The console's schedule vocabulary: the structural choices of the New task form (hourly, daily, every weekday,
// weekly, monthly, custom interval) mapped onto exactly the cron and interval forms of `murmur schedule`, and
// back for a pre-filled Settings tab; the predicted timeline with its computed (theoretical) last moment; the
// time-zone select's names (the same list `murmur schedule` checks against).
import { checkSchedule, type Checked, type TaskInput } from '../../orchestrator/cron/validate.js';
import { isoInZone, nextAfter, nextTimes } from '../../orchestrator/cron/schedule.js';
import { timeZoneNames } from '../../orchestrator/cron/time-zones.js';
import type { ScheduledTask } from '../../orchestrator/cron/types.js';

export type ScheduleKind = 'hourly' | 'daily' | 'weekday' | 'weekly' | 'monthly' | 'custom' | 'cron';

/** What the form holds for a schedule (the page's script builds the same TaskInput from it). */
export interface ScheduleChoice {
  kind: ScheduleKind;
  minute?: number;
  time?: string;
  day?: number;
  dom?: number;
  every?: string;
  start?: string;
  until?: string;
  /** kind "cron": a cron the structural choices cannot say (made at the command line or by an agent), kept as is. */
  cron?: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The structural choice a task's schedule is, or "cron" when none fits. */
export function choiceOf(task: Pick<ScheduledTask, 'schedule' | 'until'>): ScheduleChoice {
  const s = task.schedule;
  if (s.kind === 'every') {
    const choice: ScheduleChoice = { kind: 'custom', every: `${s.every.n}${s.every.unit}`, time: s.at, start: s.start };
    if (task.until !== undefined) choice.until = task.until;
    return choice;
  }
  const cron = s.cron;
  const num = '([0-9]|[1-5][0-9])';
  const hour = '([0-9]|1[0-9]|2[0-3])';
  let m = new RegExp(`^${num} \\* \\* \\* \\*$`).exec(cron);
  if (m && !task.until) return { kind: 'hourly', minute: Number(m[1]) };
  m = new RegExp(`^${num} ${hour} (\\*|1-5|[1-9]|[12][0-9]|3[01]) \\* (\\*|1-5|[0-6])$`).exec(cron);
  if (m && !task.until) {
    const time = `${pad(Number(m[2]))}:${pad(Number(m[1]))}`;
    const [dom, dow] = [m[3]!, m[4]!];
    if (dom === '*' && dow === '*') return { kind: 'daily', time };
    if (dom === '*' && dow === '1-5') return { kind: 'weekday', time };
    if (dom === '*' && /^[0-6]$/.test(dow)) return { kind: 'weekly', time, day: Number(dow) };
    if (/^\d+$/.test(dom) && dow === '*') return { kind: 'monthly', time, dom: Number(dom) };
  }
  const choice: ScheduleChoice = { kind: 'cron', cron };
  if (task.until !== undefined) choice.until = task.until;
  return choice;
}

export interface PredictedTimeline {
  zone: string;
  /** The most recent ideal time before now: computed, not a run record (null: none, e.g. before the start date). */
  theoretical: string | null;
  /** The next ideal time and the one after (fewer when the schedule ends). */
  next: string[];
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

export function predictTimeline(
  input: Pick<TaskInput, 'cron' | 'every' | 'at' | 'start' | 'until' | 'timezone'>,
  now: number,
): Checked<PredictedTimeline> {
  const checked = checkSchedule(input, now);
  if (!checked.ok) return checked;
  const { schedule, timezone, until } = checked.value;
  const last = theoreticalLast(input, now);
  return {
    ok: true,
    value: {
      zone: timezone,
      theoretical: last === undefined ? null : isoInZone(last, timezone),
      next: nextTimes(schedule, timezone, until, now, 2).map((t) => isoInZone(t, timezone)),
    },
  };
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
