// set_timer: a message to yourself, delivered once after a delay (at most a day: a run waits for its timers).
// Made with the timer port (createSetTimerTool(timers)).
import { Type } from '@sinclair/typebox';
import { defineRuntimeTool, errorResult, textResult, type RuntimeTool, type ToolTraits } from '../contract.js';
import type { TimerPort } from '../ports.js';

/** One day. A pending timer keeps its run alive, so a longer delay would hold a run open for that long. */
export const MAX_TIMER_MINUTES = 24 * 60;

/** The due time for the model; never throws (an out-of-range date has no ISO form). */
function dueText(dueAt: number): string {
  const date = new Date(dueAt);
  return Number.isNaN(date.getTime()) ? 'an unknown time' : date.toISOString();
}

/** set_timer's traits: a timer only sends the agent a message later. */
export const SET_TIMER_TRAITS = { selfChecked: true } as const satisfies ToolTraits;

export function createSetTimerTool(timers: TimerPort): RuntimeTool {
  return defineRuntimeTool({
    def: {
      ...SET_TIMER_TRAITS,
      name: 'set_timer',
      description:
        `Deliver a message to yourself once, after a delay in whole minutes (less than 1 counts as 1; at most ${MAX_TIMER_MINUTES}, one day). ` +
        'It arrives as a user message; if you are busy, after your current step.',
      parameters: Type.Object({
        delay_minutes: Type.Number({
          minimum: 0,
          maximum: MAX_TIMER_MINUTES,
          description: `Whole minutes to wait (fractions round up; less than 1 counts as 1; at most ${MAX_TIMER_MINUTES}).`,
        }),
        message: Type.String({ minLength: 1, description: 'The text you will receive.' }),
      }),
      executionMode: 'parallel',
    },
    execute(ctx, input) {
      const delay = input.delay_minutes;
      // Checked here too: the schema check can be skipped by a caller, and the timer must not be registered.
      if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0 || delay > MAX_TIMER_MINUTES) {
        return errorResult(
          `delay_minutes ${String(delay)} is not accepted: give a number of minutes from 0 to ${MAX_TIMER_MINUTES} (one day).`,
        );
      }
      const minutes = Math.max(1, Math.ceil(delay));
      const timer = timers.set(ctx.agentId, minutes, input.message);
      return textResult(
        `Timer ${timer.timerId} set: the message arrives in about ${minutes} minute${minutes === 1 ? '' : 's'} (at ${dueText(timer.dueAt)}).`,
        timer,
      );
    },
  });
}
