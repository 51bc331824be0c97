// The hub and the MCP runtime tools against the real reference servers from npm, started over stdio.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkArguments, resultText, type RuntimeTool } from '../../tools/contract.js';
import { McpHub, type McpHubEvent } from '../../tools/mcp/hub.js';
import { listMcpRuntimeTools, mcpToolOrigin } from '../../tools/mcp/mcp-tools.js';
import { everythingServer, filesystemServer, isAlive, never, tempDir, toolContext } from './helpers.js';

describe('McpHub with server-everything and server-filesystem', () => {
  let dir: string;
  let hub: McpHub;
  const events: McpHubEvent[] = [];

  beforeAll(async () => {
    dir = await tempDir();
    await writeFile(path.join(dir, 'notes.txt'), 'hello from a real file\n');
    await mkdir(path.join(dir, 'sub'));
    hub = new McpHub([everythingServer(), filesystemServer(dir, 'fs'), everythingServer('unused')], {
      callTimeoutMs: 20_000,
    });
    hub.on((event) => events.push(event));
  });

  afterAll(async () => {
    await hub?.close();
  });

  async function tools(servers?: string[]): Promise<Map<string, RuntimeTool>> {
    const listed = await listMcpRuntimeTools(hub, servers ? { servers } : {});
    expect(listed.problems).toEqual([]);
    return new Map(listed.tools.map((tool) => [tool.def.name, tool]));
  }

  async function run(tool: RuntimeTool, args: unknown) {
    const prepared = tool.def.prepareArguments ? tool.def.prepareArguments(args) : args;
    const problem = checkArguments(tool.def, prepared);
    if (problem) return { content: [{ type: 'text' as const, text: problem }], isError: true };
    return tool.impl(toolContext(), prepared as never, never, () => undefined);
  }

  it('starts servers lazily: nothing runs before the first listing, and only the servers listed start', async () => {
    expect(hub.state('everything')).toBe('idle');
    expect(hub.pid('everything')).toBeUndefined();
    const listed = await tools(['everything', 'fs']);
    expect(hub.state('everything')).toBe('ready');
    expect(hub.state('fs')).toBe('ready');
    expect(hub.state('unused')).toBe('idle');
    expect([...listed.keys()]).toEqual(
      expect.arrayContaining([
        'mcp__everything__echo',
        'mcp__everything__get-sum',
        'mcp__fs__read_text_file',
        'mcp__fs__list_directory',
      ]),
    );
    // Task-only tools cannot be called without the tasks API, so they are left out.
    expect(listed.has('mcp__everything__simulate-research-query')).toBe(false);
  });

  it('gives MCP tools their JSON schemas, descriptions, source tag and origin', async () => {
    const listed = await tools(['everything']);
    const sum = listed.get('mcp__everything__get-sum')!;
    expect(sum.source).toBe('configured');
    expect(sum.def.description).toBe('Returns the sum of two numbers');
    expect(sum.def.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(sum.def.parameters).not.toHaveProperty('$schema');
    expect(sum.def.executionMode).toBe('parallel'); // readOnlyHint
    expect(mcpToolOrigin(sum)).toEqual({
      server: 'everything',
      tool: 'get-sum',
      qualifiedName: 'mcp__everything__get-sum',
    });
    // The same objects come back while the list is unchanged.
    const again = await tools(['everything']);
    expect(again.get('mcp__everything__get-sum')).toBe(sum);
  });

  it('calls tools: echo, get-sum and read_text_file on a temp folder', async () => {
    const listed = await tools(['everything', 'fs']);
    expect(resultText(await run(listed.get('mcp__everything__echo')!, { message: 'hi there' }))).toBe('Echo: hi there');
    expect(resultText(await run(listed.get('mcp__everything__get-sum')!, { a: 2, b: 40 }))).toContain('is 42');
    const read = await run(listed.get('mcp__fs__read_text_file')!, { path: path.join(dir, 'notes.txt') });
    expect(read.isError).toBeFalsy();
    expect(resultText(read)).toBe('hello from a real file\n');
  });

  it('rejects bad arguments before the call, naming the path and the rule', async () => {
    const listed = await tools(['everything']);
    const sum = listed.get('mcp__everything__get-sum')!;
    expect(checkArguments(sum.def, { a: 'two', b: 3 })).toBe(
      'Invalid arguments for tool "mcp__everything__get-sum": /a: must be number',
    );
    expect(checkArguments(sum.def, { a: 1 })).toBe(
      'Invalid arguments for tool "mcp__everything__get-sum": /b: is required',
    );
    const reference = listed.get('mcp__everything__get-resource-reference')!;
    expect(checkArguments(reference.def, { resourceType: 'text' })).toContain(
      '/resourceType: must be one of "Text", "Blob"',
    );
    expect(checkArguments(sum.def, { a: 1, b: 2 })).toBeUndefined();
  });

  it('turns a tool error from the server into an error result', async () => {
    const listed = await tools(['fs']);
    const outside = await run(listed.get('mcp__fs__read_text_file')!, { path: '/etc/hostname' });
    expect(outside.isError).toBe(true);
    expect(resultText(outside)).toMatch(/access denied|outside allowed/i);
    // The server's own validation error (arguments sent straight through the hub) is an error result too.
    const outcome = await hub.callTool('everything', 'get-sum', { a: 'x' });
    expect(outcome.ok).toBe(true);
    expect(outcome.ok && (outcome.result as { isError?: boolean }).isError).toBe(true);
  });

  it('maps image and embedded resource content to our blocks', async () => {
    const listed = await tools(['everything']);
    const image = await run(listed.get('mcp__everything__get-tiny-image')!, {});
    expect(
      image.content.some(
        (block) => block.type === 'image' && block.mimeType === 'image/png' && block.data.length > 100,
      ),
    ).toBe(true);
    const resource = await run(listed.get('mcp__everything__get-resource-reference')!, {
      resourceType: 'Text',
      resourceId: 2,
    });
    expect(resultText(resource)).toMatch(/Resource demo:\/\/resource\/dynamic\/text\/2/);
    const structured = await run(listed.get('mcp__everything__get-structured-content')!, { location: 'Chicago' });
    expect(structured.details).toMatchObject({ structuredContent: { temperature: expect.any(Number) } });
  });

  it('streams progress notifications as tool updates', async () => {
    const listed = await tools(['everything']);
    const updates: string[] = [];
    const tool = listed.get('mcp__everything__trigger-long-running-operation')!;
    const result = await tool.impl(toolContext(), { duration: 0.3, steps: 3 } as never, never, (update) =>
      updates.push(update.text),
    );
    expect(resultText(result)).toContain('Long running operation completed');
    // The last notification may lose the race with the result itself, which ends the call.
    expect(updates.slice(0, 2)).toEqual(['progress 1/3', 'progress 2/3']);
  });

  it('receives tools/list_changed from server-everything (sent once it registers its post-initialize tools)', async () => {
    await vi.waitFor(() => expect(events).toContainEqual({ type: 'tools_changed', server: 'everything' }), {
      timeout: 5_000,
    });
    const listed = await tools(['everything']);
    expect(listed.has('mcp__everything__echo')).toBe(true);
  });

  it('times out a call that takes too long, cancels it, and keeps the server usable', async () => {
    const outcome = await hub.callTool(
      'everything',
      'trigger-long-running-operation',
      { duration: 10, steps: 2 },
      { timeoutMs: 300 },
    );
    expect(outcome).toMatchObject({ ok: false, reason: 'timeout' });
    expect(!outcome.ok && outcome.error).toContain('no answer within 300 ms');
    const echo = await hub.callTool('everything', 'echo', { message: 'still here' });
    expect(echo.ok).toBe(true);
  });

  it('reports a server killed mid-call, then restarts it on the next call', async () => {
    const listed = await tools(['everything']);
    const pid = hub.pid('everything')!;
    expect(isAlive(pid)).toBe(true);
    const long = listed.get('mcp__everything__trigger-long-running-operation')!;
    const pending = long.impl(toolContext(), { duration: 10, steps: 10 } as never, never, () => undefined);
    setTimeout(() => process.kill(pid, 'SIGKILL'), 200);
    const killed = await pending;
    expect(killed.isError).toBe(true);
    expect(resultText(killed)).toMatch(/closed the connection.*restarted on the next call/);
    expect(hub.state('everything')).toBe('crashed');
    // Meanwhile its tools are still listed, marked unavailable.
    const listing = await hub.listTools('everything');
    expect(listing.available).toBe(false);
    expect(listing.tools.length).toBeGreaterThan(5);

    const echo = await run(listed.get('mcp__everything__echo')!, { message: 'back' });
    expect(resultText(echo)).toBe('Echo: back');
    expect(hub.state('everything')).toBe('ready');
    expect(hub.pid('everything')).not.toBe(pid);
    expect(hub.restarts('everything')).toBe(1);
  });

  it('names unknown servers', async () => {
    const outcome = await hub.callTool('nope', 'echo', {});
    expect(outcome).toMatchObject({ ok: false, reason: 'unknown-server' });
    expect(!outcome.ok && outcome.error).toContain('configured: everything, fs, unused');
    const listed = await listMcpRuntimeTools(hub, { servers: ['nope'] });
    expect(listed.problems).toEqual([{ server: 'nope', message: 'no MCP server is named "nope"' }]);
  });

  it('close() stops every server process, and later calls say the hub is closed', async () => {
    const pids = [hub.pid('everything')!, hub.pid('fs')!];
    expect(pids.every(isAlive)).toBe(true);
    await hub.close();
    await vi.waitFor(() => expect(pids.some(isAlive)).toBe(false), { timeout: 5_000 });
    const outcome = await hub.callTool('everything', 'echo', { message: 'x' });
    expect(outcome).toMatchObject({ ok: false, reason: 'unavailable' });
    expect(!outcome.ok && outcome.error).toContain('closed');
  });
});
