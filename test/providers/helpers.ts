// Small helpers shared by the provider tests.
import { Type } from '@sinclair/typebox';
import type { Clock } from '../../orchestrator/clock.js';
import type { ModelError, ModelRequest, ModelResult } from '../../orchestrator/models/provider.js';
import { expect } from 'vitest';
import type { Message } from '../../orchestrator/types.js';
import { defineRuntimeTool } from '../../tools/contract.js';

export function modelRequest(messages: Message[] | string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: 'You are a test.',
    messages: typeof messages === 'string' ? [{ role: 'user', content: messages }] : messages,
    tools: [],
    agent: { id: 'agent-1', role: 'main' },
    ...extra,
  };
}

/** A clock whose timers fire at once, recording the delays asked for (so Retry-After is checked without waiting). */
export function instantClock(): Clock & { delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    now: () => 0,
    setTimeout: (fn, ms) => {
      delays.push(ms);
      return setImmediate(fn);
    },
    clearTimeout: (handle) => clearImmediate(handle as NodeJS.Immediate),
  };
}

export const echoTool = defineRuntimeTool({
  def: {
    name: 'echo',
    description: 'Repeats the text.',
    parameters: Type.Object({ text: Type.String() }),
    executionMode: 'parallel',
  },
  execute: (_ctx, input) => ({ content: [{ type: 'text', text: input.text }] }),
});

/** A one-pixel PNG, base64. */
export const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** The error of a failed result (the test fails when the result succeeded). */
export function failure(result: ModelResult): ModelError {
  expect(result.ok).toBe(false);
  return (result as Extract<ModelResult, { ok: false }>).error;
}
