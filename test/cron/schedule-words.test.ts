// A schedule in words, one phrase per kind the console's form and `murmur schedule add` make (the phrase the cards,
// the task page and `murmur schedule show|list` all print); the note on a monthly day some months lack, checked
// against the times the scheduler really computes; a run's lateness only for timed runs, and its duration.
import { describe, expect, it } from 'vitest';
import { checkTaskInput, type TaskInput } from '../../scheduler/validate.js';
import { localTime, nextTimes } from '../../scheduler/schedule.js';
import { describeSchedule, monthDayNote, runDuration, scheduleNote, timedRun } from '../../scheduler/schedule-words.js';
import type { ScheduledTask } from '../../scheduler/types.js';

const T0 = Date.parse('2026-12-02T08:00:00Z');

/** A task as `murmur schedule add` makes it at T0 from these flags' values. */
function task(input: TaskInput, extra: Partial<ScheduledTask> = {}) {
  const checked = checkTaskInput({ prompt: 'p', timezone: 'UTC', ...input }, T0);
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return { ...checked.value, cursor: T0, fires: 0, ...extra };
}

describe('one phrase per schedule kind', () => {
  it.each([
    ['hourly', { cron: '5 * * * *' }, 'at minute 5 of every hour (UTC)'],
    ['daily', { cron: '15 14 * * *' }, 'at 14:15 every day (UTC)'],
    ['every weekday', { cron: '0 9 * * 1-5' }, 'at 09:00 on Monday through Friday (UTC)'],
    ['weekly', { cron: '0 9 * * 1' }, 'at 09:00 on Monday (UTC)'],
    ['monthly', { cron: '0 9 31 * *' }, 'at 09:00 on day 31 of the month (UTC)'],
    ['with an end date', { cron: '15 14 * * *', until: '2026-12-31' }, 'at 14:15 every day (UTC), until 2026-12-31'],
    [
      'custom interval of days',
      { every: '1d', at: '09:00', start: '2026-12-02' },
      'every day at 09:00 (UTC) from 2026-12-02',
    ],
    [
      'custom interval of a week',
      { every: '1w', at: '09:00', start: '2026-12-09' },
      'every Wednesday at 09:00 (UTC) from 2026-12-09',
    ],
    [
      'custom interval',
      { every: '2w', at: '09:00', start: '2026-12-07' },
      'every 2 weeks on Monday at 09:00 (UTC) from 2026-12-07',
    ],
    [
      'custom interval, in a zone, with an end date',
      { every: '3mo', at: '18:30', start: '2027-01-15', until: '2027-12-31', timezone: 'Asia/Kolkata' },
      'every 3 months on day 15 at 18:30 (Asia/Kolkata) from 2027-01-15, until 2027-12-31',
    ],
    // The form's "Once": --every 1d --at T --start D --until D.
    [
      'once (the form)',
      { every: '1d', at: '14:15', start: '2026-12-03', until: '2026-12-03' },
      'once on 2026-12-03 at 14:15 (UTC)',
    ],
    [
      'once (the form), in a zone',
      { every: '1d', at: '07:00', start: '2026-12-24', until: '2026-12-24', timezone: 'Europe/Berlin' },
      'once on 2026-12-24 at 07:00 (Europe/Berlin)',
    ],
    // --once: the first time the cron or interval names after it was made.
    ['a cron with --once', { cron: '0 9 * * *', recurring: false }, 'once on 2026-12-02 at 09:00 (UTC)'],
    [
      'a cron with --once, its time passed today',
      { cron: '0 7 * * *', recurring: false },
      'once on 2026-12-03 at 07:00 (UTC)',
    ],
    [
      'an interval with --once',
      { every: '1w', at: '10:00', start: '2026-12-10', recurring: false },
      'once on 2026-12-10 at 10:00 (UTC)',
    ],
  ] as [string, TaskInput, string][])('%s', (_kind, input, phrase) => {
    const made = task(input);
    expect(describeSchedule(made)).toBe(phrase);
    // Nothing of the stored form leaks into a one-shot's phrase.
    if (!made.recurring) expect(describeSchedule(made)).not.toMatch(/every|until|\(once\)/);
  });

  it('a one-shot task that has fired still names the time it ran, not a later one', () => {
    const planned = Date.parse('2026-12-02T09:00:00Z');
    const fired = task(
      { cron: '0 9 * * *', recurring: false },
      { cursor: planned, fires: 1, ended: { at: planned + 5000, reason: 'once' } },
    );
    expect(describeSchedule(fired)).toBe('once on 2026-12-02 at 09:00 (UTC)');
  });

  it('leaves the zone to a caller that says it itself, and never throws on a stored cron that no longer parses', () => {
    expect(describeSchedule(task({ cron: '0 9 * * *' }), { zone: false })).toBe('at 09:00 every day');
    const broken = {
      ...task({ cron: '0 9 1 * *', recurring: false }),
      schedule: { kind: 'cron' as const, cron: '? ? 1 * *' },
    };
    expect(describeSchedule(broken)).toContain('? ? 1 * *');
  });
});

/** The months (1–12) in which the next `count` ideal times after `from` fall, in order. */
function monthsOf(cron: string, from: string, count: number): number[] {
  return nextTimes({ kind: 'cron', cron }, 'UTC', undefined, Date.parse(from), count).map(
    (t) => localTime(t, 'UTC').month,
  );
}
/** A month's English name, as Intl has it (not murmur's own list). */
const monthName = (m: number) =>
  new Date(Date.UTC(2026, m - 1, 1)).toLocaleString('en-US', { month: 'long', timeZone: 'UTC' });

describe('a monthly day that some months lack', () => {
  it('names exactly the months the scheduler skips (it skips them: it never moves the run to another day)', () => {
    const ran = monthsOf('0 9 31 * *', '2026-12-01T00:00:00Z', 7);
    expect(ran).toEqual([12, 1, 3, 5, 7, 8, 10]);
    const skipped = [2, 4, 6, 9, 11].map(monthName);
    expect(monthDayNote(31)).toBe(`Skips ${skipped.slice(0, -1).join(', ')} and November: they have no day 31.`);
    for (const t of nextTimes({ kind: 'cron', cron: '0 9 31 * *' }, 'UTC', undefined, T0, 7))
      expect(localTime(t, 'UTC').day).toBe(31);

    expect(monthsOf('0 9 30 * *', '2027-01-01T00:00:00Z', 11)).toEqual([1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(monthDayNote(30)).toBe('Skips February: it has no day 30.');

    // 2027 is no leap year, 2028 is.
    expect(monthsOf('0 9 29 * *', '2027-01-01T00:00:00Z', 2)).toEqual([1, 3]);
    expect(monthsOf('0 9 29 * *', '2028-01-01T00:00:00Z', 2)).toEqual([1, 2]);
    expect(monthDayNote(29)).toBe('Skips February outside leap years: it has a day 29 only in leap years.');
    expect(monthDayNote(28)).toBeUndefined();
  });

  it('is said for the monthly kind, not when a day of the week runs it too; an interval of months says it clamps', () => {
    expect(scheduleNote({ kind: 'cron', cron: '0 9 31 * *' })).toBe(monthDayNote(31));
    expect(scheduleNote({ kind: 'cron', cron: '30 6 30 * ?' })).toBe(monthDayNote(30));
    expect(scheduleNote({ kind: 'cron', cron: '0 9 15 * *' })).toBeUndefined();
    expect(scheduleNote({ kind: 'cron', cron: '0 9 31 * 1' })).toBeUndefined();
    expect(scheduleNote({ kind: 'cron', cron: '0 9 * * *' })).toBeUndefined();
    const interval = { kind: 'every' as const, every: { n: 1, unit: 'mo' as const }, at: '09:00', start: '2027-01-31' };
    expect(scheduleNote(interval)).toBe('In months without a day 31 it runs on their last day.');
    const [, feb] = nextTimes(interval, 'UTC', undefined, Date.parse('2027-01-01T00:00:00Z'), 2);
    expect(new Date(feb!).toISOString().slice(0, 10)).toBe('2027-02-28');
    expect(scheduleNote({ ...interval, every: { n: 1, unit: 'w' } })).toBeUndefined();
  });
});

describe('a run in words', () => {
  const run = { started: 1_000_000, state: 'succeeded' as const };
  it('has a lateness only when it stands for a fire time', () => {
    expect(timedRun({ trigger: 'scheduled' })).toBe(true);
    expect(timedRun({ trigger: 'queued' })).toBe(true);
    expect(timedRun({ trigger: 'run-now' })).toBe(false);
  });
  it('says how long it ran; a running one says so; an old record without its end says nothing', () => {
    expect(runDuration({ ...run, ended: 1_000_400 })).toBe('under 1 s');
    expect(runDuration({ ...run, ended: 1_042_000 })).toBe('42 s');
    expect(runDuration({ ...run, ended: 1_000_000 + 185_000 })).toBe('3 min 5 s');
    expect(runDuration({ ...run, ended: 1_000_000 + 7_800_000 })).toBe('2 h 10 min');
    expect(runDuration({ ...run, state: 'running', ended: 1_042_000 })).toBe('running');
    expect(runDuration(run)).toBe('—');
  });
});
