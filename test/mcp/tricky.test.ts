// The hub against a misbehaving server (test/mcp/fixtures/tricky-server.mjs, a real process speaking raw
// JSON-RPC): malformed results, odd content, crashes, start failures, silence and list_changed on demand.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resultText, type RuntimeTool } from '../../tools/contract.js';
import { McpHub, type McpHubEvent, type McpHubOptions } from '../../tools/mcp/hub.js';
import { listMcpRuntimeTools, mcpToolOrigin } from '../../tools/mcp/mcp-tools.js';
import type { McpServerConfig } from '../../tools/mcp/config.js';
import { isAlive, never, tempDir, toolContext, trickyServer } from './helpers.js';

const hubs: McpHub[] = [];

function makeHub(servers: McpServerConfig[], options: McpHubOptions = {}): McpHub {
  const hub = new McpHub(servers, options);
  hubs.push(hub);
  return hub;
}

afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
});

async function toolMap(hub: McpHub): Promise<Map<string, RuntimeTool>> {
  const listed = await listMcpRuntimeTools(hub);
  return new Map(listed.tools.map((tool) => [tool.def.name, tool]));
}

function call(tool: RuntimeTool, args: unknown = {}) {
  return tool.impl(toolContext(), args as never, never, () => undefined);
}

describe('MCP results that are not what they should be', () => {
  it('reports a malformed result as an error result instead of throwing', async () => {
    const tools = await toolMap(makeHub([trickyServer()]));
    const result = await call(tools.get('mcp__tricky__malformed')!);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(
      /^MCP tool "mcp__tricky__malformed" failed: the server returned a malformed result \(content: /,
    );
  });

  it('maps audio, resource links, binary and image resources, and embedded text', async () => {
    const tools = await toolMap(makeHub([trickyServer()]));
    const result = await call(tools.get('mcp__tricky__odd-content')!);
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([
      { type: 'text', text: '[audio audio/wav, 3 bytes, not shown]' },
      { type: 'text', text: 'Resource link: notes file:///notes.txt (text/plain) — some notes' },
      { type: 'text', text: '[binary resource file:///data.bin (application/octet-stream), 6 bytes, not shown]' },
      { type: 'image', data: expect.any(String), mimeType: 'image/png' },
      { type: 'text', text: 'Resource file:///readme.md (text/markdown):\n# Read me' },
    ]);
  });

  it('turns isError into an error result carrying the server text', async () => {
    const tools = await toolMap(makeHub([trickyServer()]));
    const result = await call(tools.get('mcp__tricky__fail')!);
    expect(result).toEqual({
      content: [{ type: 'text', text: 'the thing you asked for does not exist' }],
      isError: true,
    });
  });

  it('sanitises names model APIs would reject, and keeps the real name for the call', async () => {
    const tools = await toolMap(makeHub([trickyServer('my.server')]));
    const weird = tools.get('mcp__my_server__weird_name_with_spaces')!;
    expect(weird).toBeDefined();
    expect(mcpToolOrigin(weird)).toEqual({
      server: 'my.server',
      tool: 'weird.name/with spaces',
      qualifiedName: 'mcp__my_server__weird_name_with_spaces',
    });
    expect(resultText(await call(weird))).toBe('weird ok');
    for (const name of tools.keys()) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });
});

describe('tools/list_changed', () => {
  it('refetches the list after the server announces a change', async () => {
    const hub = makeHub([trickyServer()]);
    const events: McpHubEvent[] = [];
    hub.on((event) => events.push(event));
    const before = await toolMap(hub);
    expect(before.has('mcp__tricky__late')).toBe(false);
    await call(before.get('mcp__tricky__add-tool')!, { name: 'late' });
    await vi.waitFor(() => expect(events).toContainEqual({ type: 'tools_changed', server: 'tricky' }));
    const after = await toolMap(hub);
    expect(after.get('mcp__tricky__late')?.def.description).toBe('Added at run time: late');
  });
});

describe('timeouts, crashes and restarts', () => {
  it('times out a call the server never answers', async () => {
    const hub = makeHub([trickyServer('tricky', {}, { timeoutMs: 250 })]);
    const tools = await toolMap(hub);
    const result = await call(tools.get('mcp__tricky__hang')!);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(
      'MCP tool "mcp__tricky__hang" failed: no answer within 250 ms (the request was cancelled)',
    );
    expect(resultText(await call(tools.get('mcp__tricky__echo')!, { text: 'alive' }))).toBe('echo: alive');
  });

  it('stops waiting when the agent is aborted', async () => {
    const tools = await toolMap(makeHub([trickyServer()]));
    const controller = new AbortController();
    const pending = tools
      .get('mcp__tricky__hang')!
      .impl(toolContext(), {} as never, controller.signal, () => undefined);
    setTimeout(() => controller.abort(), 50);
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('the call was aborted');
  });

  it('reports a server that fails to start, with its stderr, and lists no tools', async () => {
    const hub = makeHub([trickyServer('broken', { TRICKY_EXIT_ON_START: '1' })]);
    const listed = await listMcpRuntimeTools(hub);
    expect(listed.tools).toEqual([]);
    expect(listed.problems).toHaveLength(1);
    expect(listed.problems[0]!.message).toMatch(/could not be started: .*refusing to start/s);
    expect(hub.state('broken')).toBe('crashed');
  });

  it('gives up on a server that never answers initialize, and stops its process', async () => {
    const pidFile = path.join(await tempDir(), 'pid');
    const hub = makeHub([trickyServer('mute', { TRICKY_SILENT_INIT: '1', TRICKY_PID_FILE: pidFile })], {
      startTimeoutMs: 300,
    });
    const outcome = await hub.callTool('mute', 'echo', { text: 'x' });
    expect(outcome).toMatchObject({ ok: false, reason: 'unavailable' });
    expect(!outcome.ok && outcome.error).toContain('could not be started: it did not answer initialize within 300 ms');
    const pid = Number(await readFile(pidFile, 'utf8'));
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 5_000 });
  });

  it('close() during a start leaves no process behind', async () => {
    const pidFile = path.join(await tempDir(), 'pid');
    const hub = makeHub([trickyServer('slow', { TRICKY_SILENT_INIT: '1', TRICKY_PID_FILE: pidFile })]);
    const listing = hub.listTools('slow');
    await vi.waitFor(async () => expect(Number(await readFile(pidFile, 'utf8'))).toBeGreaterThan(0));
    const pid = Number(await readFile(pidFile, 'utf8'));
    await hub.close();
    expect((await listing).error).toBe('the MCP hub is closed');
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 5_000 });
  });

  it('reports a command that does not exist', async () => {
    const hub = makeHub([
      {
        name: 'ghost',
        transport: 'stdio',
        command: '/nonexistent/mcp-server',
        args: [],
        env: {},
        source: 'configured',
        file: 'test',
      },
    ]);
    const outcome = await hub.callTool('ghost', 'anything', {});
    expect(outcome).toMatchObject({ ok: false, reason: 'unavailable' });
    expect(!outcome.ok && outcome.error).toMatch(/MCP server "ghost" is unavailable: could not be started: .*ENOENT/);
  });

  it('restarts a crashed server with backoff, at most maxRestarts times in the window', async () => {
    let clock = 1_000_000;
    const hub = makeHub([trickyServer()], {
      now: () => clock,
      restart: { maxRestarts: 2, backoffMs: 1_000, windowMs: 60_000 },
    });
    const tools = await toolMap(hub);
    const echo = tools.get('mcp__tricky__echo')!;
    const crash = async () => {
      const pid = hub.pid('tricky')!;
      const result = await call(tools.get('mcp__tricky__crash')!);
      expect(result.isError).toBe(true);
      expect(resultText(result)).toContain('tricky: crashing on request');
      expect(hub.state('tricky')).toBe('crashed');
      await vi.waitFor(() => expect(isAlive(pid)).toBe(false));
    };

    await crash();
    // First restart: at once, on the next call.
    expect(resultText(await call(echo, { text: 'one' }))).toBe('echo: one');
    expect(hub.restarts('tricky')).toBe(1);

    await crash();
    // Second restart waits 1 s after the crash; meanwhile a call says the server is unavailable.
    const early = await call(echo, { text: 'too soon' });
    expect(early.isError).toBe(true);
    expect(resultText(early)).toMatch(/MCP server "tricky" is unavailable: .*restarted on a call made in 1 s or later/);
    clock += 1_000;
    expect(resultText(await call(echo, { text: 'two' }))).toBe('echo: two');

    await crash();
    clock += 10_000;
    const exhausted = await call(echo, { text: 'three' });
    expect(resultText(exhausted)).toMatch(
      /restarted 2 times in the last 60 s, the most allowed; it is not started again for \d+ s/,
    );
    expect(hub.pid('tricky')).toBeUndefined();

    // Once the window has passed, the budget is back.
    clock += 60_000;
    expect(resultText(await call(echo, { text: 'four' }))).toBe('echo: four');
  });
});
