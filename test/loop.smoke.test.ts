import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { Agent } from '../orchestrator/agent.js';
import { EventBus } from '../orchestrator/events.js';
import { ScriptedModel } from '../orchestrator/models/scripted.js';
import { defineRuntimeTool } from '../tools/contract.js';
import { toLoopTools } from '../tools/loop-tools.js';

describe('smoke', () => {
  it('runs', async () => {
    const echo = defineRuntimeTool({
      def: { name: 'echo', description: 'echo', parameters: Type.Object({ text: Type.String() }), executionMode: 'parallel' },
      execute: (_ctx, input) => ({ content: [{ type: 'text', text: input.text }] }),
    });
    const model = new ScriptedModel({ agents: [{ match: { prompt: 'say (\\w+)' }, turns: [{ toolCalls: [{ name: 'echo', arguments: { text: '$1' } }] }, { text: 'done $1' }] }] });
    const bus = new EventBus();
    const events: string[] = [];
    bus.on('*', (e) => events.push(e.type));
    const loopTools = toLoopTools([echo]);
    const agent = new Agent({ id: 'a1', role: 'main' }, { system: '', maxTurns: 10, callModel: (r, s) => model.complete(r, s), toolsForTurn: () => loopTools, context: { agentId: 'a1', role: 'main', cwd: '/tmp' } }, bus);
    const result = await agent.run('say hello');
    expect(result.status).toBe('completed');
    expect(result.text).toBe('done hello');
    expect(agent.state.messages[2]).toMatchObject({ role: 'tool', content: [{ text: 'hello' }] });
    console.log(events);
  });
});
