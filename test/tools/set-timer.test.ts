// set_timer refuses delays beyond a day (a pending timer keeps its run alive) before registering anything, and
// formats the due time without throwing.
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../orchestrator/clock.js';
import { TimerService } from '../../orchestrator/timers.js';
import { createSetTimerTool, MAX_TIMER_MINUTES } from '../../tools/agents/set-timer.js';
import type { RuntimeTool } from '../../tools/contract.js';
import type { ToolContext } from '../../tools/contract.js';
import { call, contextFor, text } from './helpers.js';

/** A clock frozen at `now` whose timeouts never fire (the check loop is not under test). */
function frozenClock(now: number): Clock {
  return { now: () => now, setTimeout: () => 1, clearTimeout: () => {} };
}

/** set_timer made with a timer service (the engine's port), and a context for agent-1. */
function withTimers(now = Date.UTC(2025, 0, 1)): {
  ctx: ToolContext;
  service: TimerService;
  setTimerTool: RuntimeTool;
} {
  const service = new TimerService(() => {}, frozenClock(now));
  return { ctx: contextFor('/tmp'), service, setTimerTool: createSetTimerTool(service) };
}

describe('set_timer', () => {
  it('accepts a delay of up to one day', async () => {
    const { ctx, service, setTimerTool } = withTimers();
    const result = await call(setTimerTool, ctx, { delay_minutes: MAX_TIMER_MINUTES, message: 'tomorrow' });
    expect(text(result)).toBe(
      'Timer timer-1 set: the message arrives in about 1440 minutes (at 2025-01-02T00:00:00.000Z).',
    );
    expect(service.count()).toBe(1);
  });

  it('refuses a longer delay naming the limit, and registers nothing', async () => {
    const { ctx, service, setTimerTool } = withTimers();
    for (const delay of [1441, 60 * 24 * 7, 1e12]) {
      const result = await call(setTimerTool, ctx, { delay_minutes: delay, message: 'later' });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('/delay_minutes');
      expect(text(result)).toContain('1440');
    }
    expect(service.count()).toBe(0);
  });

  it('checks the limit itself when called without the schema check', async () => {
    const { ctx, service, setTimerTool } = withTimers();
    for (const delay of [1e12, Number.POSITIVE_INFINITY, Number.NaN, -5]) {
      const result = await setTimerTool.impl(
        ctx,
        { delay_minutes: delay, message: 'x' },
        new AbortController().signal,
        () => {},
      );
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(
        `delay_minutes ${String(delay)} is not accepted: give a number of minutes from 0 to 1440 (one day).`,
      );
    }
    expect(service.count()).toBe(0);
  });

  it('formats a due time past the last date JavaScript knows without throwing', async () => {
    const { ctx, setTimerTool } = withTimers(8.64e15);
    const result = await call(setTimerTool, ctx, { delay_minutes: 5, message: 'x' });
    expect(text(result)).toBe('Timer timer-1 set: the message arrives in about 5 minutes (at an unknown time).');
  });
});
