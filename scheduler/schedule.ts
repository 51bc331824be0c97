// Ideal fire times of a schedule (no jitter): croner for a 5-field cron in a time zone, calendar arithmetic
// for "every N days/weeks/months at HH:MM from a start date". Both stop after `until` (that day still runs).
import { Cron } from 'croner';
import type { Schedule } from './types.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export function defaultTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

const zoneCheck = new Map<string, boolean>();
export function isValidTimeZone(zone: string): boolean {
  let ok = zoneCheck.get(zone);
  if (ok === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      ok = zone.trim() !== '';
    } catch {
      ok = false;
    }
    zoneCheck.set(zone, ok);
  }
  return ok;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

export interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall-clock time of an instant in a zone. */
export function localTime(epoch: number, zone: string): LocalTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(epoch)))
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour! % 24,
    minute: parts.minute!,
    second: parts.second!,
  };
}

function offsetAt(epoch: number, zone: string): number {
  const l = localTime(epoch, zone);
  return Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second) - Math.floor(epoch / 1000) * 1000;
}

/** The instant of a wall-clock time in a zone; a time skipped by a DST change moves forward by the gap. */
export function zonedToEpoch(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  zone: string,
): number {
  const guess = Date.UTC(year, month - 1, day, hour, minute);
  const first = guess - offsetAt(guess, zone);
  const second = guess - offsetAt(first, zone);
  if (second === first) return first;
  // In a gap neither guess maps back to the wall time: take the later instant (after the clocks moved on).
  return Math.max(first, second);
}

/** `YYYY-MM-DD` as [year, month, day], or undefined when it is not a real calendar date. */
export function parseDate(text: string): [number, number, number] | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return undefined;
  return [y, mo, d];
}

/** `HH:MM` (24-hour) as [hour, minute], or undefined. */
export function parseClock(text: string): [number, number] | undefined {
  const m = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const [h, mi] = [Number(m[1]), Number(m[2])];
  return h <= 23 && mi <= 59 ? [h, mi] : undefined;
}

/** The first instant after the `until` day in the zone (that day still runs). */
export function untilLimit(until: string | undefined, zone: string): number {
  if (until === undefined) return Number.POSITIVE_INFINITY;
  const [y, m, d] = parseDate(until)!;
  const next = new Date(Date.UTC(y, m - 1, d + 1));
  return zonedToEpoch(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), 0, 0, zone);
}

/** The local date in the zone as `YYYY-MM-DD`. */
export function localDateText(epoch: number, zone: string): string {
  const l = localTime(epoch, zone);
  return `${l.year}-${String(l.month).padStart(2, '0')}-${String(l.day).padStart(2, '0')}`;
}

const crons = new Map<string, Cron>();
function cronOf(expr: string, zone: string): Cron {
  const key = `${expr}\u0000${zone}`;
  let cron = crons.get(key);
  if (!cron) {
    cron = new Cron(expr.trim(), { timezone: zone, paused: true });
    if (crons.size > 5000) crons.clear();
    crons.set(key, cron);
  }
  return cron;
}

/** The n-th occurrence of an interval schedule (n from 0). */
function intervalOccurrence(schedule: Extract<Schedule, { kind: 'every' }>, k: number, zone: string): number {
  const [y, m, d] = parseDate(schedule.start)!;
  const [hh, mm] = parseClock(schedule.at)!;
  const { n, unit } = schedule.every;
  if (unit === 'mo') {
    const months = m - 1 + k * n;
    const year = y + Math.floor(months / 12);
    const month = (months % 12) + 1;
    // The 31st in a shorter month falls on its last day.
    const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
    return zonedToEpoch(year, month, Math.min(d, last), hh, mm, zone);
  }
  const days = k * n * (unit === 'w' ? 7 : 1);
  const date = new Date(Date.UTC(y, m - 1, d + days));
  return zonedToEpoch(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), hh, mm, zone);
}

/** The next ideal time strictly after `after`, ignoring `until`; undefined when the schedule never fires again. */
export function nextAfter(schedule: Schedule, zone: string, after: number): number | undefined {
  if (schedule.kind === 'cron') {
    // croner's resolution is a second: ask from the start of the next second, so a time equal to `after` is skipped.
    const next = cronOf(schedule.cron, zone).nextRun(new Date(Math.floor(after / 1000) * 1000 + 999));
    return next ? next.getTime() : undefined;
  }
  const { n, unit } = schedule.every;
  const first = intervalOccurrence(schedule, 0, zone);
  let k = 0;
  if (after >= first) {
    const step = unit === 'mo' ? 31 * DAY_MS * n : (unit === 'w' ? 7 : 1) * n * DAY_MS;
    const lower = unit === 'mo' ? 28 * DAY_MS * n : step;
    k = Math.max(0, Math.floor((after - first) / (unit === 'mo' ? step : lower)) - 1);
  }
  for (let guard = 0; guard < 10_000; guard++, k++) {
    const t = intervalOccurrence(schedule, k, zone);
    if (t > after) return t;
  }
  return undefined;
}

/** Up to `count` ideal times after `after`, stopping after `until`. */
export function nextTimes(
  schedule: Schedule,
  zone: string,
  until: string | undefined,
  after: number,
  count: number,
): number[] {
  const limit = untilLimit(until, zone);
  const out: number[] = [];
  let t = after;
  while (out.length < count) {
    const next = nextAfter(schedule, zone, t);
    if (next === undefined || next >= limit) break;
    out.push(next);
    t = next;
  }
  return out;
}

/** The gap between an ideal time and the one after it (for jitter); a day when there is none. */
export function periodAt(schedule: Schedule, zone: string, t: number): number {
  const next = nextAfter(schedule, zone, t);
  return next === undefined ? DAY_MS : next - t;
}

/** An ISO time with the zone's offset: `2026-03-08T03:00:00-04:00`. */
export function isoInZone(epoch: number, zone: string): string {
  const l = localTime(epoch, zone);
  const offsetMin = Math.round(offsetAt(epoch, zone) / 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${l.year}-${p(l.month)}-${p(l.day)}T${p(l.hour)}:${p(l.minute)}:${p(l.second)}${sign}${p(Math.floor(abs / 60))}:${p(abs % 60)}`;
}
