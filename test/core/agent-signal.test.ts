// Runs hand their abort signal on only when nothing can tell: an aborted run's signal, or one a tool still
// listens to, never reaches the next run.
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { defineRuntimeTool } from '../../tools/contract.js';
import { deferred, scriptedAgent } from './helpers.js';

const oneCall = { agents: [{ turns: [{ toolCalls: [{ name: 'probe', arguments: {} }] }, { text: 'done' }] }] };

/** A tool that records the signal it was given; `hold` keeps an abort listener on it after the call. */
function probe(seen: AbortSignal[], options: { hold?: boolean; started?: () => void; wait?: Promise<void> } = {}) {
  return defineRuntimeTool({
    def: { name: 'probe', description: 'probe', parameters: Type.Object({}) },
    execute: async (_context, _input, signal) => {
      seen.push(signal);
      if (options.hold) signal.addEventListener('abort', () => undefined);
      options.started?.();
      if (options.wait) await options.wait;
      return { content: [{ type: 'text', text: signal.aborted ? 'aborted' : 'ok' }] };
    },
  });
}

describe('the run signal', () => {
  it('an aborted run never hands its signal to a later run', async () => {
    const seen: AbortSignal[] = [];
    const started = deferred();
    const release = deferred();
    const first = scriptedAgent(oneCall, [probe(seen, { started: () => started.resolve(), wait: release.promise })]);
    const running = first.agent.run('go');
    await started.promise;
    first.agent.abort();
    release.resolve();
    expect((await running).status).toBe('aborted');

    const later = scriptedAgent(oneCall, [probe(seen)]);
    const result = await later.agent.run('go');
    expect(result.status).toBe('completed');
    expect(seen[1]).not.toBe(seen[0]);
    expect(seen[1]!.aborted).toBe(false);
  });

  it('a signal a tool still listens to is not handed on, so aborting the next run cannot reach that listener', async () => {
    const seen: AbortSignal[] = [];
    const holder = scriptedAgent(oneCall, [probe(seen, { hold: true })]);
    expect((await holder.agent.run('go')).status).toBe('completed');
    const next = scriptedAgent(oneCall, [probe(seen)]);
    expect((await next.agent.run('go')).status).toBe('completed');
    expect(seen[1]).not.toBe(seen[0]);
  });
});
