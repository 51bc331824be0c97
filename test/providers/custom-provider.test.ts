// A library user's own ModelProvider that breaks its contract: a bad value or a throw ends the call in one line
// naming the provider and the field, is never retried, and fails a run as a value (not an internal error).
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMurmur } from '../../api/index.js';
import { checkedProvider } from '../../orchestrator/models/checked-provider.js';
import type { ModelProvider, ModelResult } from '../../orchestrator/models/provider.js';
import { withRetries } from '../../orchestrator/models/retry.js';
import { failure, instantClock, modelRequest } from './helpers.js';

/** A provider named "my-llm" whose complete() does `answer`, counting its calls. */
function myLlm(answer: () => unknown): ModelProvider & { calls: number } {
  const provider = {
    name: 'my-llm',
    capabilities: { images: false, video: false, contextWindow: 8000 },
    calls: 0,
    complete: async () => {
      provider.calls++;
      return answer() as ModelResult;
    },
  };
  return provider;
}

/** The checked provider behind withRetries, as a run has it: its error and how often it was called. */
async function failed(answer: () => unknown) {
  const provider = myLlm(answer);
  const retried = withRetries(
    checkedProvider(provider),
    { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 1 },
    () => {},
    instantClock(),
  );
  const error = failure(await retried.complete(modelRequest('go'), new AbortController().signal));
  return { error, calls: provider.calls };
}

const good = { role: 'assistant', text: 'hi', toolCalls: [], stopReason: 'end' };

describe('checkedProvider', () => {
  it.each([
    [{ ok: true, message: {} }, 'returned message.role that is not "assistant" (undefined)'],
    [undefined, 'returned undefined, not { ok: true, message } or { ok: false, error }'],
    [{ ok: true, message: { ...good, text: undefined } }, 'returned message.text that is not a string (undefined)'],
    [{ ok: true, message: { ...good, toolCalls: {} } }, 'returned message.toolCalls that is not a list (an object)'],
    [
      { ok: true, message: { ...good, toolCalls: [{ id: 'c1', name: 'read', arguments: { path: 'a' } }] } },
      'returned message.toolCalls[0].arguments that is not a string (an object)',
    ],
    [
      { ok: true, message: { ...good, stopReason: 'stop' } },
      'returned message.stopReason that is not "end", "tool_calls" or "length" ("stop")',
    ],
    [
      { ok: true, message: { ...good, usage: { input: '12' } } },
      'returned message.usage.input that is not a count of tokens ("12")',
    ],
    [{ ok: 'yes' }, 'returned ok that is not true or false ("yes")'],
    [{ ok: false, error: { kind: 'oops', message: 'x' } }, 'returned error.kind that is not a ModelErrorKind ("oops")'],
  ])('%j: one line naming the provider and the field, not retried', async (value, said) => {
    const { error, calls } = await failed(() => value);
    expect(error).toEqual({ kind: 'malformed', message: `provider "my-llm": complete() ${said}`, retryable: false });
    expect(calls).toBe(1);
  });

  it('a throw: named with the provider, not retried', async () => {
    const { error, calls } = await failed(() => {
      throw new TypeError("Cannot read properties of undefined (reading 'choices')");
    });
    expect(error.message).toBe(
      `provider "my-llm": complete() threw TypeError: Cannot read properties of undefined (reading 'choices') (a failure must be returned: modelError(kind, message))`,
    );
    expect(error).toMatchObject({ kind: 'malformed', retryable: false });
    expect(calls).toBe(1);
  });

  it('passes a good answer as it is, and gives a hand-made failure without `retryable` its kind default', async () => {
    const ok = { ok: true, message: { ...good, usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 } } };
    expect(await checkedProvider(myLlm(() => ok)).complete(modelRequest('go'), new AbortController().signal)).toBe(ok);
    const { error, calls } = await failed(() => ({ ok: false, error: { kind: 'server', message: 'busy' } }));
    expect(error).toEqual({ kind: 'server', message: 'busy', retryable: true });
    expect(calls).toBe(4);
  });
});

describe('a run on a provider that answers badly', () => {
  it('fails with the one line, not an internal error', async () => {
    const cwd = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-bad-provider-')));
    const model = myLlm(() => ({ ok: true, message: {} }));
    const murmur = await createMurmur({ cwd, model, sessions: false });
    try {
      const report = await murmur.run('hello');
      expect(report.status).toBe('failed');
      expect(report.reason).toBe(
        'provider "my-llm": complete() returned message.role that is not "assistant" (undefined)',
      );
      expect(model.calls).toBe(1);
    } finally {
      await murmur.close();
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
