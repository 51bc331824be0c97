// Deferred disclosure: every condition of planMcpDisclosure, the tool_search ranking, and a tool_search +
// mcp_invoke round trip against the real reference servers.
import { Type } from '@sinclair/typebox';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkArguments,
  defineRuntimeTool,
  resultText,
  type RuntimeTool,
  type ToolSource,
} from '../../tools/contract.js';
import type { McpServerConfig } from '../../tools/mcp/config.js';
import {
  DEFAULT_MCP_DISCLOSURE,
  estimateToolTokens,
  modelIsAllowed,
  parseMcpDisclosureSettings,
  planMcpDisclosure,
  type McpDisclosureSettings,
} from '../../tools/mcp/disclosure.js';
import { McpHub } from '../../tools/mcp/hub.js';
import { buildMcpRuntimeTools, listMcpRuntimeTools, mcpToolOrigin } from '../../tools/mcp/mcp-tools.js';
import { everythingServer, filesystemServer, never, tempDir, toolContext } from './helpers.js';

const read = defineRuntimeTool({
  def: { name: 'read', description: 'Reads a file', parameters: Type.Object({ path: Type.String() }) },
  execute: () => ({ content: [{ type: 'text', text: 'file' }] }),
});

function serverConfig(name: string, source: ToolSource): McpServerConfig {
  return { name, transport: 'stdio', command: 'unused', args: [], env: {}, source, file: 'test' };
}

const notCalled = async () => ({
  ok: false as const,
  reason: 'failed' as const,
  error: 'these tests never call the server',
});

/** MCP tools with long descriptions, so their size is easy to reason about. */
async function mcpTools(server: string, source: ToolSource, count: number): Promise<RuntimeTool[]> {
  const listed = Array.from({ length: count }, (_, i) => ({
    name: `tool${i}`,
    description: `Tool number ${i} of ${server}. ${'It does something useful with the data you give it. '.repeat(4)}`,
    inputSchema: { type: 'object' as const, properties: { value: { type: 'string' } } },
  }));
  return buildMcpRuntimeTools(serverConfig(server, source), server, listed, notCalled);
}

const ON: Partial<McpDisclosureSettings> = { models: ['openai:big-model'] };

describe('planMcpDisclosure conditions', () => {
  let configured: RuntimeTool[];
  let builtin: RuntimeTool[];
  let catalog: RuntimeTool[];

  beforeAll(async () => {
    configured = await mcpTools('docs', 'configured', 5);
    builtin = [...(await mcpTools('web', 'builtin', 3)), ...(await mcpTools('matrix', 'builtin-matrix', 2))];
    catalog = [read, ...builtin, ...configured];
  });

  const base = () => ({ tools: catalog, model: 'openai:big-model', contextWindow: 1_000 });

  it('defers nothing by default: the allow list is empty', () => {
    expect(DEFAULT_MCP_DISCLOSURE).toEqual({ enabled: true, models: [], minDeferCount: 1, thresholdPct: 0.15 });
    const plan = planMcpDisclosure(base());
    expect(plan.decision).toBe('model-not-allowed');
    expect(plan.tools).toEqual(catalog);
    expect(plan.replacements).toEqual([]);
    expect(plan.instruction).toBeUndefined();
  });

  it('defers nothing when the switch is off', () => {
    const plan = planMcpDisclosure({ ...base(), settings: { ...ON, enabled: false } });
    expect(plan.decision).toBe('disabled');
    expect(plan.tools).toEqual(catalog);
  });

  it('defers nothing for a model that is not on the allow list', () => {
    const plan = planMcpDisclosure({ ...base(), model: 'openai:small-model', settings: ON });
    expect(plan.decision).toBe('model-not-allowed');
    expect(plan.reason).toContain('openai:small-model');
  });

  it('matches the allow list by full id, bare model name or glob', () => {
    expect(modelIsAllowed('openai:gpt-4o', ['gpt-4o'])).toBe(true);
    expect(modelIsAllowed('openai:gpt-4o', ['OPENAI:GPT-4O'])).toBe(true);
    expect(modelIsAllowed('anthropic:claude-sonnet-4-5', ['anthropic:*'])).toBe(true);
    expect(modelIsAllowed('ollama:qwen3', ['anthropic:*', 'gpt-*'])).toBe(false);
  });

  it('defers nothing with fewer configured candidates than minDeferCount', () => {
    const plan = planMcpDisclosure({ ...base(), settings: { ...ON, minDeferCount: 6 } });
    expect(plan.decision).toBe('too-few-candidates');
    const none = planMcpDisclosure({ ...base(), tools: [read, ...builtin], settings: ON });
    expect(none.decision).toBe('too-few-candidates');
  });

  it('defers nothing while the candidates stay within thresholdPct of the context window', () => {
    const tokens = estimateToolTokens(configured);
    expect(tokens).toBe(
      Math.ceil(
        JSON.stringify(
          configured.map((t) => ({ name: t.def.name, description: t.def.description, parameters: t.def.parameters })),
        ).length / 4,
      ),
    );
    // Exactly at the threshold is not above it.
    const atThreshold = planMcpDisclosure({ ...base(), contextWindow: tokens / 0.15, settings: ON });
    expect(atThreshold.decision).toBe('under-threshold');
    expect(atThreshold.candidateTokens).toBe(tokens);
    const bigWindow = planMcpDisclosure({ ...base(), contextWindow: 1_000_000, settings: ON });
    expect(bigWindow.decision).toBe('under-threshold');
    const lowShare = planMcpDisclosure({
      ...base(),
      contextWindow: tokens * 2,
      settings: { ...ON, thresholdPct: 0.6 },
    });
    expect(lowShare.decision).toBe('under-threshold');
    const highShare = planMcpDisclosure({
      ...base(),
      contextWindow: tokens * 2,
      settings: { ...ON, thresholdPct: 0.4 },
    });
    expect(highShare.decision).toBe('deferred');
  });

  it('defers only configured MCP tools, keeps the order of the rest and adds tool_search and mcp_invoke', () => {
    const plan = planMcpDisclosure({ ...base(), settings: ON });
    expect(plan.decision).toBe('deferred');
    expect(plan.deferred).toEqual(configured);
    expect(plan.inline).toEqual([read, ...builtin]);
    expect(plan.replacements.map((t) => t.def.name)).toEqual(['tool_search', 'mcp_invoke']);
    expect(plan.tools.map((t) => t.def.name)).toEqual([
      'read',
      ...builtin.map((t) => t.def.name),
      'tool_search',
      'mcp_invoke',
    ]);
    expect(plan.replacements.every((t) => t.source === 'builtin')).toBe(true);
    expect(plan.instruction).toBe(
      '5 more tools, from the MCP server docs, are not listed to save context. To use one, call tool_search with a few words about what you need; ' +
        'it answers with matching tool names and their input schemas. Then call mcp_invoke with {"name": "<tool name>", "arguments": {...}}.',
    );
    // A configured tool that is not from MCP (an extension's) is never deferred.
    const extension = defineRuntimeTool({
      def: { name: 'ext', description: 'x'.repeat(4_000), parameters: Type.Object({}) },
      execute: () => ({ content: [] }),
      source: 'configured',
    });
    const withExtension = planMcpDisclosure({ ...base(), tools: [...catalog, extension], settings: ON });
    expect(withExtension.inline).toContain(extension);
  });

  it('reads settings from configuration, naming bad fields', () => {
    expect(parseMcpDisclosureSettings({ models: ['gpt-*'], thresholdPct: 0.1 }, 'murmur.toml: mcp.disclosure')).toEqual(
      {
        settings: { enabled: true, models: ['gpt-*'], minDeferCount: 1, thresholdPct: 0.1 },
        problems: [],
      },
    );
    const bad = parseMcpDisclosureSettings({ enabled: 'yes', thresholdPct: 15, minDeferCount: 0, colour: 1 }, 'cfg');
    expect(bad.settings).toEqual(DEFAULT_MCP_DISCLOSURE);
    expect(bad.problems).toEqual([
      'cfg.colour: unknown setting (known: enabled, models, minDeferCount, thresholdPct)',
      'cfg.enabled: must be true or false, got "yes"',
      'cfg.minDeferCount: must be a whole number of at least 1, got 0',
      'cfg.thresholdPct: must be a fraction in (0, 1], such as 0.15, got 15',
    ]);
  });
});

describe('tool_search and mcp_invoke against real servers', () => {
  let dir: string;
  let hub: McpHub;
  let all: RuntimeTool[];

  beforeAll(async () => {
    dir = await tempDir();
    await writeFile(path.join(dir, 'plan.md'), '# The plan\nShip it.\n');
    hub = new McpHub([everythingServer(), filesystemServer(dir, 'fs'), everythingServer('web', { source: 'builtin' })]);
    const listed = await listMcpRuntimeTools(hub);
    expect(listed.problems).toEqual([]);
    all = listed.tools;
  });

  afterAll(async () => {
    await hub?.close();
  });

  function planFor(tools: RuntimeTool[]) {
    return planMcpDisclosure({
      tools: [read, ...tools],
      model: 'anthropic:claude-test',
      contextWindow: 4_000,
      settings: { models: ['anthropic:*'] },
    });
  }

  function named(plan: ReturnType<typeof planFor>, name: string): RuntimeTool {
    return plan.tools.find((tool) => tool.def.name === name)!;
  }

  async function invoke(tool: RuntimeTool, args: unknown, role = 'worker') {
    const prepared = tool.def.prepareArguments ? tool.def.prepareArguments(args) : args;
    const problem = checkArguments(tool.def, prepared);
    if (problem) return { content: [{ type: 'text' as const, text: problem }], isError: true };
    return tool.impl(toolContext(role), prepared as never, never, () => undefined);
  }

  it('defers the large configured catalog and keeps the built-in server inline', () => {
    const plan = planFor(all);
    expect(plan.decision).toBe('deferred');
    expect(plan.deferred.length).toBeGreaterThan(20);
    expect(plan.deferred.every((tool) => ['everything', 'fs'].includes(mcpToolOrigin(tool)!.server))).toBe(true);
    expect(plan.inline.filter((tool) => mcpToolOrigin(tool)?.server === 'web').length).toBeGreaterThan(5);
    expect(plan.tools.some((tool) => tool.def.name === 'mcp__fs__read_text_file')).toBe(false);
  });

  it('ranks tools by name and description', async () => {
    const search = named(planFor(all), 'tool_search');
    const reading = await invoke(search, { query: 'read the text of a file', limit: 3 });
    const names = (reading.details as { names: string[] }).names;
    expect(names[0]).toBe('mcp__fs__read_text_file');
    expect(resultText(reading)).toContain('"parameters"');
    const sum = await invoke(search, { query: 'add two numbers', limit: 1 });
    expect((sum.details as { names: string[] }).names).toEqual(['mcp__everything__get-sum']);
    const directory = await invoke(search, { query: 'list directory contents' });
    expect((directory.details as { names: string[] }).names.slice(0, 2)).toEqual(
      expect.arrayContaining(['mcp__fs__list_directory']),
    );
    const exact = await invoke(search, { query: 'select:mcp__everything__echo, mcp__fs__write_file' });
    expect((exact.details as { names: string[] }).names).toEqual(['mcp__everything__echo', 'mcp__fs__write_file']);
    const none = await invoke(search, { query: 'quantum teleportation' });
    expect(resultText(none)).toContain('No tool matches "quantum teleportation"');
    // Built-in server tools are inline, not searchable.
    const echoes = await invoke(search, { query: 'echo', limit: 20 });
    expect((echoes.details as { names: string[] }).names).not.toContain('mcp__web__echo');
  });

  it('finds a tool with tool_search and calls it with mcp_invoke', async () => {
    const plan = planFor(all);
    const found = await invoke(named(plan, 'tool_search'), { query: 'read text file contents' });
    const name = (found.details as { names: string[] }).names[0]!;
    const result = await invoke(named(plan, 'mcp_invoke'), { name, arguments: { path: path.join(dir, 'plan.md') } });
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toBe('# The plan\nShip it.\n');
    // Arguments sent as a JSON string are accepted too.
    const sum = await invoke(named(plan, 'mcp_invoke'), {
      name: 'mcp__everything__get-sum',
      arguments: '{"a": 1, "b": 2}',
    });
    expect(resultText(sum)).toContain('is 3');
  });

  it('checks mcp_invoke arguments against the real schema, naming the path', async () => {
    const invokeTool = named(planFor(all), 'mcp_invoke');
    const result = await invoke(invokeTool, { name: 'mcp__everything__get-sum', arguments: { a: 'one', b: 2 } });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Invalid arguments for tool "mcp__everything__get-sum": /a: must be number' }],
      isError: true,
    });
  });

  it("refuses tools outside this agent's deferred set, so the role filter holds through mcp_invoke", async () => {
    // The agent's catalog was filtered before planning: no get-env, and no fs server at all.
    const filtered = all.filter(
      (tool) => tool.def.name !== 'mcp__everything__get-env' && mcpToolOrigin(tool)?.server !== 'fs',
    );
    const plan = planFor(filtered);
    expect(plan.decision).toBe('deferred');
    const invokeTool = named(plan, 'mcp_invoke');
    const env = await invoke(invokeTool, { name: 'mcp__everything__get-env' }, 'explore');
    expect(env).toEqual({
      content: [
        {
          type: 'text',
          text: 'Tool "mcp__everything__get-env" is not available to the explore agent through mcp_invoke. Use tool_search to find the tools you can call this way.',
        },
      ],
      isError: true,
    });
    const write = await invoke(
      invokeTool,
      { name: 'mcp__fs__write_file', arguments: { path: path.join(dir, 'x.txt'), content: 'no' } },
      'explore',
    );
    expect(write.isError).toBe(true);
    const inline = await invoke(invokeTool, { name: 'read', arguments: { path: 'a' } });
    expect(resultText(inline)).toContain('It is listed directly: call "read" itself.');
    const search = await invoke(named(plan, 'tool_search'), { query: 'environment variables get-env' });
    expect((search.details as { names: string[] }).names).not.toContain('mcp__everything__get-env');
  });
});
