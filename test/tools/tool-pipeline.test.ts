// One pipeline for a tool call: preparation gives a tagged union, the gate may refuse, the after-call stages
// run in order on every result, and the result message keeps the tool's details.
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { prepareCall, runToolCallOutcome, type BatchOptions } from '../../orchestrator/tool-batch.js';
import type { AfterCallStage } from '../../tools/call-stage.js';
import { defineRuntimeTool, errorResult, textResult, type RuntimeTool } from '../../tools/contract.js';

const greet = defineRuntimeTool({
  def: {
    name: 'greet',
    description: 'greets',
    parameters: Type.Object({ who: Type.String() }),
    executionMode: 'parallel',
  },
  execute: (_ctx, input) => textResult(`hello ${input.who}`, { greeted: input.who }),
});
const tools = new Map<string, RuntimeTool>([['greet', greet as RuntimeTool]]);

function options(extra: Partial<BatchOptions> = {}): BatchOptions {
  return {
    tools,
    context: { agentId: 'a1', role: 'worker', cwd: '/' },
    signal: new AbortController().signal,
    ...extra,
  };
}

describe('the tool-call pipeline', () => {
  it('prepares a call into refused-with-a-result or ready-with-checked-arguments', () => {
    const ready = prepareCall({ id: 'c1', name: 'greet', arguments: '{"who":"ann"}' }, tools, 'worker');
    expect(ready).toEqual({ kind: 'ready', tool: greet, args: { who: 'ann' } });
    const unknown = prepareCall({ id: 'c2', name: 'nope', arguments: '{}' }, tools, 'worker');
    expect(unknown.kind === 'refused' && unknown.result.content[0]).toMatchObject({
      text: expect.stringMatching(/not available to the worker agent/),
    });
    const bad = prepareCall({ id: 'c3', name: 'greet', arguments: '{"who":1}' }, tools, 'worker');
    expect(bad.kind === 'refused' && bad.result.content[0]).toMatchObject({
      text: expect.stringMatching(/\/who: Expected string/),
    });
  });

  it('runs the after-call stages in order on every result, refusals included, and keeps details', async () => {
    const seen: string[] = [];
    const stage = (name: string): AfterCallStage => ({
      name,
      run: (_call, _tool, result) => {
        seen.push(name);
        return { ...result, content: [...result.content, { type: 'text', text: name }] };
      },
    });
    const hooks = { afterCall: [stage('first'), stage('second')] };
    const ran = await runToolCallOutcome({ id: 'c1', name: 'greet', arguments: '{"who":"bo"}' }, options({ hooks }));
    expect(ran.refused).toBeUndefined();
    expect(ran.message.content.map((b) => (b.type === 'text' ? b.text : ''))).toEqual(['hello bo', 'first', 'second']);
    expect(ran.message.details).toEqual({ greeted: 'bo' });

    const denied = await runToolCallOutcome(
      { id: 'c2', name: 'greet', arguments: '{"who":"bo"}' },
      options({ hooks: { ...hooks, beforeCall: () => errorResult('no greeting today') } }),
    );
    expect(denied.refused).toBe('denied');
    expect(denied.message.isError).toBe(true);
    const invalid = await runToolCallOutcome({ id: 'c3', name: 'greet', arguments: 'not json' }, options({ hooks }));
    expect(invalid.refused).toBe('invalid');
    expect(seen).toEqual(['first', 'second', 'first', 'second', 'first', 'second']);
  });

  it('turns a stage that throws into an error result naming the stage', async () => {
    const broken: AfterCallStage = {
      name: 'broken stage',
      run: () => {
        throw new Error('boom');
      },
    };
    const out = await runToolCallOutcome(
      { id: 'c1', name: 'greet', arguments: '{"who":"cy"}' },
      options({ hooks: { afterCall: [broken] } }),
    );
    expect(out.message.isError).toBe(true);
    expect(out.message.content[0]).toMatchObject({ text: expect.stringContaining('(broken stage): boom') });
  });
});
