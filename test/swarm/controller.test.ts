// The swarm controller is a pure state machine: every test drives it with explicit times (a fake clock) and
// checks the actions it returns. No timers run here.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONTROLLER_OPTIONS,
  SwarmController,
  type ControllerAction,
  type ControllerOptions,
} from '../../swarm/controller.js';

function controller(size: number, options: Partial<ControllerOptions> = {}): SwarmController {
  return new SwarmController(size, { ...DEFAULT_CONTROLLER_OPTIONS, ...options });
}

const launches = (actions: ControllerAction[]) =>
  actions.filter((a) => a.type === 'launch').map((a) => (a as { index: number }).index);
const ofType = <T extends ControllerAction['type']>(actions: ControllerAction[], type: T) =>
  actions.filter((a): a is Extract<ControllerAction, { type: T }> => a.type === type);

/** Calls tick at every wake-up the controller asks for, up to `until`; returns launches with their times. */
function runClock(c: SwarmController, until: number): { at: number; index: number }[] {
  const out: { at: number; index: number }[] = [];
  for (let at = c.nextWakeAt(); at !== undefined && at <= until; at = c.nextWakeAt()) {
    for (const index of launches(c.tick(at))) out.push({ at, index });
  }
  return out;
}

describe('SwarmController: the ramp', () => {
  it('launches 5 at 0 ms, the 6th at 700 ms and the 7th at 1400 ms', () => {
    const c = controller(10);
    expect(launches(c.start(0))).toEqual([0, 1, 2, 3, 4]);
    expect(c.nextWakeAt()).toBe(700);
    expect(launches(c.tick(699))).toEqual([]);
    const at700 = c.tick(700);
    expect(launches(at700)).toEqual([5]);
    expect(ofType(at700, 'capacity')).toEqual([{ type: 'capacity', capacity: 6, running: 5, limited: false }]);
    expect(c.nextWakeAt()).toBe(1400);
    expect(launches(c.tick(1400))).toEqual([6]);
    expect(runClock(c, 10_000)).toEqual([
      { at: 2100, index: 7 },
      { at: 2800, index: 8 },
      { at: 3500, index: 9 },
    ]);
    expect(c.nextWakeAt()).toBeUndefined();
    expect(c.snapshot()).toMatchObject({ running: 10, queued: 0, capacity: 10 });
  });

  it('starts from the given clock origin', () => {
    const c = controller(7);
    expect(launches(c.start(50_000))).toHaveLength(5);
    expect(c.nextWakeAt()).toBe(50_700);
    expect(runClock(c, 60_000)).toEqual([
      { at: 50_700, index: 5 },
      { at: 51_400, index: 6 },
    ]);
  });

  it('never runs more than maxConcurrency at once, and stops asking for wake-ups at the cap', () => {
    const c = controller(20, { maxConcurrency: 6 });
    expect(launches(c.start(0))).toHaveLength(5);
    expect(runClock(c, 100_000)).toEqual([{ at: 700, index: 5 }]);
    expect(c.nextWakeAt()).toBeUndefined();
    expect(c.snapshot()).toMatchObject({ capacity: 6, running: 6, queued: 14 });
    // A completion frees a slot, refilled at once; still never more than 6.
    expect(launches(c.finished(2, 200_000))).toEqual([6]);
    expect(c.snapshot().running).toBe(6);
  });

  it('a cap below the initial burst holds from the start', () => {
    const c = controller(5, { maxConcurrency: 2 });
    expect(launches(c.start(0))).toEqual([0, 1]);
    expect(launches(c.tick(10_000))).toEqual([]);
    expect(launches(c.finished(0, 10_001))).toEqual([2]);
  });

  it('refills free slots when items finish, in input order', () => {
    const c = controller(9);
    c.start(0);
    expect(launches(c.finished(3, 100))).toEqual([5]);
    expect(launches(c.finished(0, 150))).toEqual([6]);
    // At 700 the ramp adds a slot on top of the refills.
    expect(launches(c.tick(700))).toEqual([7]);
    expect(c.snapshot()).toMatchObject({ running: 6, finished: 2, queued: 1 });
  });

  it('is done when every item finished', () => {
    const c = controller(2);
    c.start(0);
    expect(c.done).toBe(false);
    c.finished(0, 1);
    c.finished(1, 2);
    expect(c.done).toBe(true);
    expect(c.nextWakeAt()).toBeUndefined();
  });
});

describe('SwarmController: rate limits', () => {
  /** 6 running (the 6th launched at 700 ms), 14 queued. */
  function rampedTo6(size = 20, options: Partial<ControllerOptions> = {}): SwarmController {
    const c = controller(size, options);
    c.start(0);
    c.tick(700);
    expect(c.snapshot()).toMatchObject({ running: 6, capacity: 6 });
    return c;
  }

  it('puts the item in backoff, lowers capacity to running minus one, and holds the ramp', () => {
    const c = rampedTo6();
    const actions = c.rateLimited(3, 800, 1000);
    expect(actions).toEqual([{ type: 'rate_limited', index: 3, attempt: 1, retryAt: 1800, capacity: 5, running: 5 }]);
    expect(c.phaseOf(3)).toBe('backoff');
    expect(c.snapshot()).toMatchObject({ capacity: 5, running: 5, backoff: 1, limited: true });
    // The normal ramp would have added slots at 1400 and 2100: while held, nothing grows.
    expect(launches(c.tick(1400))).toEqual([]);
    expect(launches(c.tick(2100))).toEqual([]);
    expect(c.snapshot().capacity).toBe(5);
  });

  it('uses its own backoff when the provider gave no retry-after', () => {
    const c = rampedTo6(20, { backoffMs: (attempt) => 250 * attempt });
    expect(ofType(c.rateLimited(1, 1000), 'rate_limited')[0]).toMatchObject({ retryAt: 1250, attempt: 1 });
  });

  it('puts the item back at the front of the queue after its backoff', () => {
    const c = rampedTo6();
    c.rateLimited(3, 800, 1000);
    // A completion during the backoff launches the next queued item (3 is not due yet).
    expect(launches(c.finished(0, 900))).toEqual([6]);
    // 3 is due at 1800: it rejoins the queue at the front but every slot is taken.
    expect(c.nextWakeAt()).toBe(1800);
    expect(launches(c.tick(1800))).toEqual([]);
    expect(c.phaseOf(3)).toBe('queued');
    // The next free slot goes to 3, ahead of items 7…19.
    expect(launches(c.finished(1, 1900))).toEqual([3]);
  });

  it('relaunches several due items in the order they were limited', () => {
    const c = rampedTo6();
    c.rateLimited(4, 800, 100);
    c.rateLimited(2, 810, 100);
    expect(c.snapshot()).toMatchObject({ running: 4, capacity: 4 });
    c.tick(1000);
    // Two slots free up: the two limited items come first, in the order they were limited.
    expect(launches(c.finished(0, 1001))).toEqual([4]);
    expect(launches(c.finished(1, 1002))).toEqual([2]);
    expect(launches(c.finished(3, 1003))).toEqual([6]);
  });

  it('recovers one slot per quiet window, then ramps normally from the old capacity', () => {
    const c = rampedTo6(20, { quietWindowMs: 30_000 });
    c.rateLimited(3, 800, 1000);
    c.tick(1800);
    // Waiting at capacity: the next change is the end of the quiet window.
    expect(c.nextWakeAt()).toBe(30_800);
    expect(launches(c.tick(30_799))).toEqual([]);
    const recovered = c.tick(30_800);
    expect(launches(recovered)).toEqual([3]);
    // The capacity change is reported before the launch it allows.
    expect(ofType(recovered, 'capacity')).toEqual([{ type: 'capacity', capacity: 6, running: 5, limited: false }]);
    expect(c.snapshot().limited).toBe(false);
    // Back to the normal ramp: one more every 700 ms from the recovery.
    expect(c.nextWakeAt()).toBe(31_500);
    expect(runClock(c, 32_200)).toEqual([
      { at: 31_500, index: 6 },
      { at: 32_200, index: 7 },
    ]);
  });

  it('takes one quiet window per slot when several limits lowered capacity', () => {
    const c = rampedTo6(20, { quietWindowMs: 1000 });
    c.rateLimited(5, 800, 100);
    c.rateLimited(4, 800, 100);
    expect(c.snapshot()).toMatchObject({ capacity: 4, running: 4, limited: true });
    c.tick(900);
    const first = c.tick(1800);
    expect(launches(first)).toEqual([5]);
    expect(ofType(first, 'capacity')).toEqual([{ type: 'capacity', capacity: 5, running: 4, limited: true }]);
    expect(c.nextWakeAt()).toBe(2800);
    const second = c.tick(2800);
    expect(launches(second)).toEqual([4]);
    expect(ofType(second, 'capacity')[0]).toMatchObject({ capacity: 6, limited: false });
    expect(c.nextWakeAt()).toBe(3500);
  });

  it('a new 429 during recovery restarts the quiet window', () => {
    const c = rampedTo6(20, { quietWindowMs: 1000 });
    c.rateLimited(5, 800, 100);
    c.rateLimited(4, 800, 100);
    c.tick(1800); // capacity 5
    expect(c.snapshot()).toMatchObject({ capacity: 5, running: 5 });
    c.rateLimited(0, 2500, 100);
    expect(c.snapshot()).toMatchObject({ capacity: 4, running: 4, limited: true });
    expect(launches(c.tick(3400))).toEqual([]);
    expect(launches(c.tick(3500))).toEqual([0]);
    expect(c.snapshot().capacity).toBe(5);
  });

  it('never drops capacity below one', () => {
    const c = controller(3, { initialBurst: 1 });
    c.start(0);
    const limited = c.rateLimited(0, 10, 50);
    expect(ofType(limited, 'rate_limited')[0]).toMatchObject({ capacity: 1, running: 0 });
    // The one slot goes to the next queued item; the limited one waits for the next free slot.
    expect(launches(limited)).toEqual([1]);
    expect(launches(c.tick(60))).toEqual([]);
    expect(launches(c.finished(1, 70))).toEqual([0]);
  });

  it('fails an item with the reason once its retries are used up', () => {
    const c = controller(3, { maxRateLimitRetries: 2 });
    c.start(0);
    c.finished(0, 0);
    c.finished(2, 0);
    let now = 0;
    for (let attempt = 1; attempt <= 2; attempt++) {
      const limited = c.rateLimited(1, ++now, 10);
      expect(ofType(limited, 'rate_limited')[0]).toMatchObject({ index: 1, attempt });
      now += 10;
      expect(launches(c.tick(now))).toEqual([1]);
    }
    const last = c.rateLimited(1, ++now, 10);
    const [giveUp] = ofType(last, 'give_up');
    expect(giveUp).toMatchObject({ index: 1 });
    expect(giveUp!.reason).toContain('rate limited 3 times');
    expect(giveUp!.reason).toContain('at most 2');
    expect(ofType(last, 'rate_limited')).toEqual([]);
    expect(c.phaseOf(1)).toBe('finished');
    expect(c.done).toBe(true);
    expect(c.nextWakeAt()).toBeUndefined();
  });
});

describe('SwarmController: abort', () => {
  it('returns every never-started item (queued or in backoff) and launches nothing more', () => {
    const c = controller(10);
    c.start(0);
    c.rateLimited(2, 100, 5000);
    const notStarted = c.abort();
    expect(notStarted).toEqual([2, 5, 6, 7, 8, 9]);
    expect(c.nextWakeAt()).toBeUndefined();
    expect(launches(c.tick(100_000))).toEqual([]);
    // The running ones end on their own; nothing refills their slots.
    for (const index of [0, 1, 3]) expect(launches(c.finished(index, 100_001))).toEqual([]);
    expect(c.done).toBe(false);
    c.finished(4, 100_002);
    expect(c.done).toBe(true);
  });

  it('a rate limit that arrives after the abort ends the item instead of queueing it again', () => {
    const c = controller(3);
    c.start(0);
    c.abort();
    const actions = c.rateLimited(1, 10, 100);
    expect(ofType(actions, 'rate_limited')).toEqual([]);
    expect(ofType(actions, 'give_up')[0]).toMatchObject({ index: 1 });
    c.finished(0, 11);
    c.finished(2, 12);
    expect(c.done).toBe(true);
    expect(c.nextWakeAt()).toBeUndefined();
  });
});
