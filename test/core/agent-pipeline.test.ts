// The pipeline builder alone: the built-in batch veto before the host's, the permission gate asked as the agent,
// the result budget made once with whether the agent reads, then the skill chain — and nothing the host did not give.
import { describe, expect, it } from 'vitest';
import { buildToolContext } from '../../orchestrator/agent-context.js';
import { pipelineFor } from '../../orchestrator/agent-pipeline.js';
import type { GateAgent, PermissionGate, ResultBudgetFor } from '../../orchestrator/runtime-ports.js';
import { SWARM_ALONE_MESSAGE } from '../../orchestrator/vetoes.js';
import type { RuntimeTool, ToolResult } from '../../tools/contract.js';
import { errorResult, textResult } from '../../tools/contract.js';

const agent: GateAgent = { id: 'a-1', profile: { name: 'worker' } };
const context = () =>
  buildToolContext(agent, {
    cwd: '/w',
    workspace: { root: '/w', extraRoots: [], allowSensitive: [] },
    env: { secretPatterns: [] },
  });
const call = (name: string, id = 'c1') => ({ id, name, arguments: '{}' });
const tool = { def: { name: 'write' } } as RuntimeTool;
const signal = new AbortController().signal;

describe('pipelineFor', () => {
  it('with no ports: only the built-in veto and the skill chain', async () => {
    const { hooks } = pipelineFor(agent, {}, context(), true);
    expect(hooks.beforeCall).toBeUndefined();
    expect(hooks.afterCall!.map((s) => s.name)).toEqual(['skill chain']);
    expect(hooks.vetoBatch!([call('agent_swarm'), call('read', 'c2')])).toBe(SWARM_ALONE_MESSAGE);
    expect(hooks.vetoBatch!([call('read')])).toBeUndefined();
  });

  it('runs the built-in veto first, then the host’s for this agent', () => {
    const asked: string[] = [];
    const { hooks } = pipelineFor(
      agent,
      { extraVetoes: (a) => (asked.push(a.id), (calls) => (calls.length > 1 ? 'host says no' : undefined)) },
      context(),
      true,
    );
    expect(asked).toEqual(['a-1']);
    expect(hooks.vetoBatch!([call('agent_swarm'), call('read', 'c2')])).toBe(SWARM_ALONE_MESSAGE);
    expect(hooks.vetoBatch!([call('read'), call('grep', 'c2')])).toBe('host says no');
  });

  it('asks the gate as the agent, with the call, tool, arguments and signal', async () => {
    const seen: unknown[][] = [];
    const gate: PermissionGate = (...args) => {
      seen.push(args);
      return errorResult('denied');
    };
    const { hooks } = pipelineFor(agent, { permission: gate }, context(), true);
    const denied = await hooks.beforeCall!(call('write'), tool, { path: 'x' }, signal);
    expect(denied?.isError).toBe(true);
    expect(seen).toEqual([[agent, call('write'), tool, { path: 'x' }, signal]]);
  });

  it('puts the result budget first, made once with whether the agent reads', async () => {
    const made: boolean[] = [];
    const budget: ResultBudgetFor = (_agent, hasRead) => {
      made.push(hasRead);
      return async (budgetCall, _tool, result): Promise<ToolResult> =>
        textResult(`${budgetCall.id}:${result.content.length}`);
    };
    const { hooks } = pipelineFor(agent, { resultBudget: budget }, context(), false);
    expect(made).toEqual([false]);
    expect(hooks.afterCall!.map((s) => s.name)).toEqual(['result budget', 'skill chain']);
    // The budget sees the call under an id unique in the run (agent id first).
    const out = await hooks.afterCall![0]!.run({ id: 'c7', name: 'read' }, undefined, textResult('x'));
    expect(out).toEqual(textResult('a-1-c7:1'));
  });

  it('keeps the skill chain on the agent’s context until a person speaks', async () => {
    const ctx = context();
    const pipeline = pipelineFor(agent, {}, ctx, true);
    const stage = pipeline.hooks.afterCall![0]!;
    await stage.run({ id: 'c1', name: 'skill' }, undefined, textResult('loaded', { chain: ['release'] }));
    expect(ctx.skillChain).toEqual(['release']);
    // Failed skill calls and other tools leave it as it is.
    await stage.run({ id: 'c2', name: 'skill' }, undefined, errorResult('no', { chain: ['other'] }));
    await stage.run({ id: 'c3', name: 'read' }, undefined, textResult('x', { chain: ['other'] }));
    expect(ctx.skillChain).toEqual(['release']);
    pipeline.onPrompt();
    expect(ctx.skillChain).toBeUndefined();
  });
});
