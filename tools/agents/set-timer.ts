// set_timer: a message to yourself, delivered once after a delay.
import { Type } from '@sinclair/typebox';
import { defineRuntimeTool, errorResult, textResult } from '../contract.js';

export const setTimerTool = defineRuntimeTool({
  def: {
    name: 'set_timer',
    description:
      'Deliver a message to yourself once, after a delay in whole minutes (less than 1 counts as 1). It arrives as a user message; if you are busy, after your current step.',
    parameters: Type.Object({
      delay_minutes: Type.Number({ minimum: 0, description: 'Whole minutes to wait (fractions round up; less than 1 counts as 1).' }),
      message: Type.String({ minLength: 1, description: 'The text you will receive.' }),
    }),
    executionMode: 'parallel',
  },
  execute(ctx, input) {
    if (!ctx.timers) return errorResult('Timers are not available in this context.');
    const minutes = Math.max(1, Math.ceil(input.delay_minutes));
    const timer = ctx.timers.set(minutes, input.message);
    return textResult(`Timer ${timer.timerId} set: the message arrives in about ${minutes} minute${minutes === 1 ? '' : 's'} (at ${new Date(timer.dueAt).toISOString()}).`, timer);
  },
});
