// The rules of firing on a fake clock: decideFire is a pure function of the task, its history and the time.
import { describe, expect, it } from 'vitest';
import { decideFire, firePrompt, jitterFraction, jitterMs, nextDueAt } from '../../scheduler/firing.js';
import { isoInZone, nextTimes } from '../../scheduler/schedule.js';
import { STALE_AFTER_MS, type RunRecord, type ScheduledTask } from '../../scheduler/types.js';

const MIN = 60_000;
const T0 = Date.parse('2026-06-01T08:00:00Z');

function task(over: Partial<ScheduledTask> = {}): ScheduledTask {
  return {
    id: 'st-test',
    title: 't',
    workspace: '/w',
    prompt: 'do it',
    schedule: { kind: 'cron', cron: '0 * * * *' },
    timezone: 'UTC',
    recurring: true,
    createdBy: 'person',
    createdAt: T0,
    updatedAt: T0,
    paused: false,
    cursor: T0,
    fires: 0,
    ...over,
  };
}

function running(): RunRecord[] {
  return [
    {
      id: 'r1',
      taskId: 'st-test',
      trigger: 'scheduled',
      planned: T0,
      started: T0,
      lateMs: 0,
      state: 'running',
      coalescedCount: 1,
      stale: false,
    },
  ];
}

describe('jitter', () => {
  it('is derived from the task id: the same every time, different across ids', () => {
    expect(jitterFraction('st-a')).toBe(jitterFraction('st-a'));
    const fractions = new Set(['a', 'b', 'c', 'd', 'e'].map((s) => jitterFraction(`st-${s}`)));
    expect(fractions.size).toBe(5);
    for (const f of fractions) expect(f >= 0 && f < 1).toBe(true);
  });

  it('delays a recurring fire by [0, min(10 % of the period, 15 min))', () => {
    const ideal = Date.parse('2026-06-01T09:00:00Z');
    for (let i = 0; i < 200; i++) {
      const hourly = jitterMs(task({ id: `st-${i}` }), ideal);
      expect(hourly).toBeGreaterThanOrEqual(0);
      expect(hourly).toBeLessThan(6 * MIN); // 10 % of an hour
      const daily = jitterMs(task({ id: `st-${i}`, schedule: { kind: 'cron', cron: '0 9 * * *' } }), ideal);
      expect(daily).toBeLessThan(15 * MIN); // capped at 15 min
      expect(jitterMs(task({ id: `st-${i}` }), ideal)).toBe(hourly);
    }
    const spread = new Set(
      Array.from({ length: 50 }, (_, i) =>
        Math.floor(jitterMs(task({ id: `st-${i}`, schedule: { kind: 'cron', cron: '0 9 * * *' } }), ideal) / MIN),
      ),
    );
    expect(spread.size).toBeGreaterThan(5);
  });

  it('fires a one-shot task at :00 or :30 up to 90 s early, other one-shot times on time', () => {
    const onHour = Date.parse('2026-06-01T09:00:00Z');
    const at17 = Date.parse('2026-06-01T09:17:00Z');
    let early = 0;
    for (let i = 0; i < 100; i++) {
      const t = task({ id: `st-${i}`, recurring: false, schedule: { kind: 'cron', cron: '0 9 1 6 *' } });
      const j = jitterMs(t, onHour);
      expect(j).toBeLessThanOrEqual(0);
      expect(j).toBeGreaterThan(-90_000);
      if (j < 0) early++;
      expect(jitterMs(t, at17)).toBe(0);
    }
    expect(early).toBeGreaterThan(90);
    const t = task({ id: 'st-early', recurring: false, schedule: { kind: 'cron', cron: '0 9 1 6 *' } });
    const due = nextDueAt(t)!;
    expect(due).toBe(onHour + jitterMs(t, onHour));
    expect(decideFire(t, [], due - 1).kind).toBe('idle');
    const fired = decideFire(t, [], due);
    expect(fired).toMatchObject({
      kind: 'fire',
      fire: { trigger: 'scheduled', planned: onHour, coalescedCount: 1 },
      end: 'once',
    });
  });
});

describe('decideFire', () => {
  it('fires at the ideal time plus jitter, and reports when the next is due while idle', () => {
    const t = task();
    const ideal = Date.parse('2026-06-01T09:00:00Z');
    const due = ideal + jitterMs(t, ideal);
    expect(decideFire(t, [], due - 1)).toEqual({ kind: 'idle', nextAt: due });
    expect(decideFire(t, [], due)).toMatchObject({
      kind: 'fire',
      cursor: ideal,
      countsAsFire: true,
      fire: { planned: ideal, coalescedCount: 1, stale: false },
    });
  });

  it('coalesces missed fires into one run with their count', () => {
    const t = task();
    const now = Date.parse('2026-06-01T13:30:00Z'); // 09:00 … 13:00 missed: 5 fires
    const d = decideFire(t, [], now);
    expect(d).toMatchObject({ kind: 'fire', fire: { coalescedCount: 5, planned: Date.parse('2026-06-01T13:00:00Z') } });
    expect(firePrompt('do it', { coalescedCount: 5, stale: false })).toMatch(
      /^<cron-fire coalescedCount="5">[\s\S]*do it\n<\/cron-fire>$/,
    );
    expect(firePrompt('do it', { coalescedCount: 1, stale: false })).toBe('do it');
  });

  it('never replays the fires of a paused task', () => {
    const now = Date.parse('2026-06-01T13:30:00Z');
    expect(decideFire(task({ paused: true }), [], now)).toEqual({ kind: 'idle' });
    // Unpausing moves the cursor to now (the store does it): the missed hours are gone.
    const unpaused = task({ cursor: now });
    const d = decideFire(unpaused, [], now);
    expect(d.kind).toBe('idle');
    const later = decideFire(unpaused, [], Date.parse('2026-06-01T14:30:00Z'));
    expect(later).toMatchObject({ kind: 'fire', fire: { coalescedCount: 1 } });
  });

  it("makes a stale final fire for an agent task alive more than 7 days, unless kept; a person's task never goes stale", () => {
    const created = T0;
    const now = created + STALE_AFTER_MS + 30 * MIN;
    const cursor = now - 60 * MIN;
    const agentTask = task({ createdBy: 'agent', cursor });
    const d = decideFire(agentTask, [], now);
    expect(d).toMatchObject({ kind: 'fire', end: 'stale', fire: { stale: true } });
    expect(firePrompt('p', { coalescedCount: 1, stale: true })).toContain('stale="true"');
    expect(decideFire(task({ createdBy: 'agent', cursor, kept: true }), [], now)).not.toHaveProperty('end');
    expect(decideFire(task({ createdBy: 'person', cursor }), [], now)).not.toHaveProperty('end');
    // Before 7 days: no stale flag.
    expect(decideFire(task({ createdBy: 'agent' }), [], T0 + 90 * MIN)).toMatchObject({ fire: { stale: false } });
  });

  it('ends the task when max_fires is reached', () => {
    const now = Date.parse('2026-06-01T09:30:00Z');
    expect(decideFire(task({ maxFires: 3, fires: 1 }), [], now)).not.toHaveProperty('end');
    expect(decideFire(task({ maxFires: 3, fires: 2 }), [], now)).toMatchObject({ kind: 'fire', end: 'max-fires' });
    expect(
      decideFire(task({ maxFires: 3, fires: 3, ended: { at: now, reason: 'max-fires' } }), [], now + 10 * 60 * MIN),
    ).toEqual({ kind: 'idle' });
  });

  it('queues a fire behind a running run (at most one waits, merging later fires), then starts it as "queued"', () => {
    const now = Date.parse('2026-06-01T09:30:00Z');
    const first = decideFire(task(), running(), now);
    expect(first).toMatchObject({
      kind: 'queue',
      queued: { planned: Date.parse('2026-06-01T09:00:00Z'), coalescedCount: 1 },
    });
    const waiting = task({
      cursor: Date.parse('2026-06-01T09:00:00Z'),
      fires: 1,
      queued: { planned: Date.parse('2026-06-01T09:00:00Z'), coalescedCount: 1, stale: false },
    });
    const second = decideFire(waiting, running(), Date.parse('2026-06-01T10:30:00Z'));
    expect(second).toMatchObject({
      kind: 'queue',
      queued: { planned: Date.parse('2026-06-01T10:00:00Z'), coalescedCount: 2 },
    });
    const done: RunRecord[] = [{ ...running()[0]!, state: 'succeeded' }];
    expect(decideFire(waiting, done, Date.parse('2026-06-01T09:40:00Z'))).toMatchObject({
      kind: 'fire',
      countsAsFire: false,
      fire: { trigger: 'queued', coalescedCount: 1 },
    });
  });

  it('counts a fire merged into the one already waiting as no fire: max_fires runs all its runs', () => {
    const now = Date.parse('2026-06-01T10:30:00Z');
    const waiting = task({
      maxFires: 3,
      fires: 2,
      cursor: Date.parse('2026-06-01T09:00:00Z'),
      queued: { planned: Date.parse('2026-06-01T09:00:00Z'), coalescedCount: 1, stale: false },
    });
    const merged = decideFire(waiting, running(), now);
    expect(merged).toMatchObject({ kind: 'queue', countsAsFire: false, queued: { coalescedCount: 2 } });
    expect(merged).not.toHaveProperty('end');
    // A new waiting fire is one more run, and may reach the cap.
    expect(decideFire(task({ maxFires: 3, fires: 2 }), running(), now)).toMatchObject({
      kind: 'queue',
      countsAsFire: true,
      end: 'max-fires',
    });
  });

  it('honours run-now on an ended task (once; the task stays ended)', () => {
    const now = Date.parse('2026-06-01T08:10:00Z');
    const ended = task({ runNowAt: now, ended: { at: T0, reason: 'max-fires' }, maxFires: 1, fires: 1 });
    expect(decideFire(ended, [], now)).toEqual({
      kind: 'fire',
      countsAsFire: false,
      fire: { trigger: 'run-now', planned: now, coalescedCount: 1, stale: false },
    });
  });

  it('runs a run-now request once nothing is running, without counting it as a fire', () => {
    const now = Date.parse('2026-06-01T08:10:00Z');
    expect(decideFire(task({ runNowAt: now, paused: true }), [], now)).toMatchObject({
      kind: 'fire',
      countsAsFire: false,
      fire: { trigger: 'run-now', planned: now },
    });
    expect(decideFire(task({ runNowAt: now }), running(), now).kind).toBe('idle');
  });

  it('ends a task whose until day is over, and runs on the until day itself', () => {
    const t = task({ schedule: { kind: 'cron', cron: '0 9 * * *' }, until: '2026-06-02' });
    expect(decideFire(t, [], Date.parse('2026-06-02T09:20:00Z'))).toMatchObject({
      kind: 'fire',
      fire: { coalescedCount: 2 },
      end: 'until',
    });
    expect(decideFire(task({ schedule: { kind: 'cron', cron: '0 9 * * *' }, until: '2026-05-31' }), [], T0)).toEqual({
      kind: 'end',
      reason: 'until',
    });
  });

  it('fires a 02:30 daily task once on the spring-forward day in a named zone (at 03:00 local)', () => {
    const zone = 'America/New_York';
    const t = task({
      schedule: { kind: 'cron', cron: '30 2 * * *' },
      timezone: zone,
      cursor: Date.parse('2026-03-07T12:00:00Z'),
      createdAt: Date.parse('2026-03-07T12:00:00Z'),
    });
    const times = nextTimes(t.schedule, zone, undefined, t.cursor, 3).map((x) => isoInZone(x, zone));
    expect(times).toEqual(['2026-03-08T03:00:00-04:00', '2026-03-09T02:30:00-04:00', '2026-03-10T02:30:00-04:00']);
    const d = decideFire(t, [], Date.parse('2026-03-08T12:00:00Z'));
    expect(d).toMatchObject({ kind: 'fire', fire: { coalescedCount: 1, planned: Date.parse('2026-03-08T07:00:00Z') } });
  });

  it('computes interval schedules in the zone, months clamped to their last day', () => {
    const zone = 'Europe/Berlin';
    const times = nextTimes(
      { kind: 'every', every: { n: 1, unit: 'mo' }, at: '09:30', start: '2026-01-31' },
      zone,
      '2026-04-30',
      Date.parse('2026-01-01T00:00:00Z'),
      5,
    ).map((x) => isoInZone(x, zone));
    expect(times).toEqual([
      '2026-01-31T09:30:00+01:00',
      '2026-02-28T09:30:00+01:00',
      '2026-03-31T09:30:00+02:00',
      '2026-04-30T09:30:00+02:00',
    ]);
    const weekly = nextTimes(
      { kind: 'every', every: { n: 2, unit: 'w' }, at: '07:00', start: '2026-06-01' },
      'UTC',
      undefined,
      Date.parse('2026-06-10T00:00:00Z'),
      2,
    );
    expect(weekly.map((x) => new Date(x).toISOString())).toEqual([
      '2026-06-15T07:00:00.000Z',
      '2026-06-29T07:00:00.000Z',
    ]);
  });
});
