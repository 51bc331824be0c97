// End to end: a scripted agent (orchestrator Agent + ScriptedModel) whose per-turn catalog lists MCP tools from
// real servers, calls them, reaches a deferred catalog through tool_search + mcp_invoke, and survives a server
// killed mid-run.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../orchestrator/agent.js';
import { EventBus, type MurmurEvent } from '../../orchestrator/events.js';
import type { TurnTools } from '../../orchestrator/loop.js';
import { ScriptedModel } from '../../orchestrator/models/scripted.js';
import type { ToolResultMessage } from '../../orchestrator/types.js';
import { planMcpDisclosure } from '../../tools/mcp/disclosure.js';
import { McpHub } from '../../tools/mcp/hub.js';
import { listMcpRuntimeTools } from '../../tools/mcp/mcp-tools.js';
import { toLoopTools } from '../../tools/loop-tools.js';
import { everythingServer, filesystemServer, tempDir } from './helpers.js';

type Script = ConstructorParameters<typeof ScriptedModel>[0];

describe('a scripted agent using MCP tools', () => {
  let dir: string;
  let hub: McpHub;

  beforeAll(async () => {
    dir = await tempDir();
    await writeFile(path.join(dir, 'todo.txt'), 'buy milk\n');
    hub = new McpHub([everythingServer(), filesystemServer(dir, 'fs')], { cwd: dir });
  });

  afterAll(async () => {
    await hub?.close();
  });

  function agentWith(script: Script, toolsForTurn: () => Promise<TurnTools>, events: MurmurEvent[] = []) {
    const model = new ScriptedModel(script);
    const bus = new EventBus();
    bus.on('*', (event) => events.push(event));
    return new Agent(
      { id: 'w1', role: 'worker' },
      {
        system: '',
        maxTurns: 10,
        callModel: (request, signal) => model.complete(request, signal),
        toolsForTurn,
        context: { agentId: 'w1', role: 'worker', cwd: dir },
      },
      bus,
    );
  }

  const mcpTurn = async () => toLoopTools((await listMcpRuntimeTools(hub)).tools, { fallback: false });

  function toolResults(agent: Agent): ToolResultMessage[] {
    return agent.state.messages.filter((m): m is ToolResultMessage => m.role === 'tool');
  }

  function text(message: ToolResultMessage): string {
    return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  }

  it('lists MCP tools per turn and calls them; errors come back as error results', async () => {
    const events: MurmurEvent[] = [];
    let offered: string[] = [];
    const agent = agentWith(
      {
        agents: [
          {
            match: { role: 'worker', prompt: 'Check (\\S+)' },
            turns: [
              {
                toolCalls: [
                  { name: 'mcp__fs__read_text_file', arguments: { path: `${dir}/$1` } },
                  { name: 'mcp__everything__echo', arguments: { message: 'from $1' } },
                ],
              },
              {
                toolCalls: [
                  { name: 'mcp__everything__get-sum', arguments: { a: 'not a number', b: 1 } },
                  { name: 'mcp__fs__read_text_file', arguments: { path: '/etc/passwd' } },
                ],
              },
              { text: 'Checked $1' },
            ],
          },
        ],
      },
      async () => {
        const turn = await mcpTurn();
        offered = turn.schemas.map((schema) => schema.name);
        return turn;
      },
      events,
    );
    const result = await agent.run('Check todo.txt');
    expect(result.status).toBe('completed');
    expect(result.text).toBe('Checked todo.txt');
    expect(offered).toEqual(expect.arrayContaining(['mcp__fs__read_text_file', 'mcp__everything__echo']));
    const results = toolResults(agent);
    expect(results.map((r) => [r.toolName, r.isError])).toEqual([
      ['mcp__fs__read_text_file', false],
      ['mcp__everything__echo', false],
      ['mcp__everything__get-sum', true],
      ['mcp__fs__read_text_file', true],
    ]);
    expect(text(results[0]!)).toBe('buy milk\n');
    expect(text(results[1]!)).toBe('Echo: from todo.txt');
    expect(text(results[2]!)).toBe('Invalid arguments for tool "mcp__everything__get-sum": /a: must be number');
    expect(text(results[3]!)).toMatch(/denied|outside allowed/i);
    const ends = events
      .filter((e) => e.type === 'tool.end')
      .map((e) => [(e as { tool: string }).tool, (e as { isError: boolean }).isError]);
    // Read-only MCP tools run in parallel, so their end events come in completion order.
    expect(ends).toHaveLength(4);
    expect(ends).toEqual(expect.arrayContaining(results.map((r) => [r.toolName, r.isError])));
  });

  it('reaches a deferred catalog through tool_search and mcp_invoke, with the instruction before the prompt', async () => {
    let instruction = '';
    const toolsForTurn = async () => {
      const listed = await listMcpRuntimeTools(hub);
      const plan = planMcpDisclosure({
        tools: listed.tools,
        model: 'scripted:test',
        contextWindow: 8_000,
        settings: { models: ['scripted:*'] },
      });
      expect(plan.decision).toBe('deferred');
      instruction = plan.instruction!;
      return toLoopTools(plan.tools, { fallback: false });
    };
    const first = await toolsForTurn();
    expect(first.schemas.map((s) => s.name)).toEqual(['tool_search', 'mcp_invoke']);
    const agent = agentWith(
      {
        agents: [
          {
            match: { prompt: 'Read (\\S+) please' },
            turns: [
              { toolCalls: [{ name: 'tool_search', arguments: { query: 'read text file', limit: 2 } }] },
              {
                toolCalls: [
                  {
                    name: 'mcp_invoke',
                    arguments: { name: 'mcp__fs__read_text_file', arguments: { path: `${dir}/$1` } },
                  },
                ],
              },
              { toolCalls: [{ name: 'mcp__fs__read_text_file', arguments: { path: `${dir}/$1` } }] },
              { text: 'done' },
            ],
          },
        ],
      },
      toolsForTurn,
    );
    const result = await agent.run(`${instruction}\n\nRead todo.txt please`);
    expect(result.status).toBe('completed');
    const [search, invoked, direct] = toolResults(agent);
    expect(text(search!)).toContain('"name": "mcp__fs__read_text_file"');
    expect(invoked!.isError).toBe(false);
    expect(text(invoked!)).toBe('buy milk\n');
    // A deferred tool called by its own name is outside this turn's catalog, so the loop refuses it.
    expect(direct!.isError).toBe(true);
    expect(text(direct!)).toMatch(/^Tool "mcp__fs__read_text_file" is not available to the worker agent/);
  });

  it('survives the server being killed mid-run: the call fails, the next one restarts it', async () => {
    const events: MurmurEvent[] = [];
    const agent = agentWith(
      {
        agents: [
          {
            match: { prompt: 'Long job' },
            turns: [
              {
                toolCalls: [
                  { name: 'mcp__everything__trigger-long-running-operation', arguments: { duration: 10, steps: 10 } },
                ],
              },
              { toolCalls: [{ name: 'mcp__everything__echo', arguments: { message: 'after the crash' } }] },
              { text: 'recovered' },
            ],
          },
        ],
      },
      mcpTurn,
      events,
    );
    let killed: number | undefined;
    const bus = events;
    const watcher = setInterval(() => {
      if (killed === undefined && bus.some((e) => e.type === 'tool.start')) {
        killed = hub.pid('everything');
        if (killed) setTimeout(() => process.kill(killed!, 'SIGKILL'), 150);
      }
    }, 20);
    try {
      const result = await agent.run('Long job');
      expect(result.status).toBe('completed');
      expect(result.text).toBe('recovered');
    } finally {
      clearInterval(watcher);
    }
    const [crashed, echoed] = toolResults(agent);
    expect(crashed!.isError).toBe(true);
    expect(text(crashed!)).toMatch(/closed the connection.*restarted on the next call/);
    expect(echoed!.isError).toBe(false);
    expect(text(echoed!)).toBe('Echo: after the crash');
    expect(hub.pid('everything')).not.toBe(killed);
  });
});
