// The library's contract beyond the README examples: options checked with one error type naming the option,
// runtime failures as values, typed events, run with a named agent, resume, and a custom tool's grant.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMurmur, defineTool, MurmurOptionsError, textResult, Type, type MurmurEvent } from '../../api/index.js';
import { scriptedModel } from '../../api/testing.js';
import { optionError, syncError } from './option-errors.js';
import { applyFilters, type TurnFacts } from '../../roles/filters.js';
import { builtinProfile } from '../../roles/profile.js';
import type { RuntimeTool } from '../../tools/contract.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-api-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const answer = (text: string) => scriptedModel({ agents: [{ turns: [{ text }] }] });

describe('createMurmur options', () => {
  it('names the bad option and what is accepted', async () => {
    const model = answer('hi');
    expect((await optionError({ cwd: path.join(dir, 'nope'), model })).option).toBe('cwd');
    const mode = await optionError({ cwd: dir, model, permissionMode: 'sometimes' as never });
    expect(mode.option).toBe('permissionMode');
    expect(mode.message).toContain('manual, auto, yolo');
    expect((await optionError({ cwd: dir, model, limits: { maxAgents: 0 } })).option).toBe('limits.maxAgents');
    expect((await optionError({ cwd: dir, model, permissions: { allow: ['Bash(ls'] } })).option).toBe('permissions');
    expect((await optionError({ cwd: dir, model: 'nosuch:thing' })).option).toBe('model');
    expect((await optionError({ cwd: dir, model, colour: 'red' } as never)).option).toBe('colour');
    const tool = defineTool({
      def: { name: 'read', description: 'x', parameters: Type.Object({}) },
      execute: () => textResult('x'),
    });
    expect((await optionError({ cwd: dir, model, tools: [{ tool, roles: ['worker'] }] })).message).toContain(
      'built-in tool',
    );
    expect((await optionError({ cwd: dir, model, tools: [{ tool, roles: [] }] })).option).toBe('tools[0].roles');
  });

  it('reads murmur.toml like the command line, and a bad file is named', async () => {
    writeFileSync(path.join(dir, 'murmur.toml'), 'permissionMode = 3\n');
    expect((await optionError({ cwd: dir, model: answer('x') })).message).toContain('murmur.toml');
  });

  it('a bad script for the testing provider throws the same error type', () => {
    expect(() => scriptedModel({ agents: 'none' } as never)).toThrow(MurmurOptionsError);
  });
});

describe('runs', () => {
  it('runs the main agent, reports as data and sends the typed events', async () => {
    const murmur = await createMurmur({ cwd: dir, model: answer('All done.') });
    const events: MurmurEvent[] = [];
    const types: string[] = [];
    murmur.on('*', (event) => events.push(event));
    const off = murmur.on('agent.end', (event) => types.push(event.status));
    const report = await murmur.run('Say done');
    off();
    expect(report).toMatchObject({ status: 'completed', result: 'All done.' });
    expect(report.sessionId).toMatch(/^\d{8}-\d{6}-/);
    expect(types).toEqual(['completed']);
    expect(events[0]).toMatchObject({ type: 'run.start', mode: 'run', task: 'Say done', model: 'scripted' });
    expect(events.at(-1)).toMatchObject({ type: 'run.end', status: 'completed' });
    await murmur.close();
  });

  it('runs a named agent, and refuses an unknown one before starting', async () => {
    const murmur = await createMurmur({
      cwd: dir,
      model: scriptedModel({ agents: [{ match: { role: 'explore' }, turns: [{ text: 'explored' }] }] }),
      sessions: false,
    });
    expect((await murmur.run('look', { agent: 'explore' })).result).toBe('explored');
    // Refused at the call, synchronously: no handle, nothing started.
    expect(() => murmur.run('look', { agent: 'wizard' })).toThrow(MurmurOptionsError);
    expect(() => murmur.run('look', { agent: 'wizard' })).toThrow('known: explore, worker');
  });

  it('an aborted run is a value, and resume finishes it', async () => {
    const script = { agents: [{ turns: [{ latencyMs: 5_000, text: 'slow' }, { text: 'never' }] }] };
    const controller = new AbortController();
    const murmur = await createMurmur({ cwd: dir, model: scriptedModel(script), signal: controller.signal });
    const started = new Promise<void>((resolve) => murmur.on('turn.start', () => resolve()));
    const running = murmur.run('Take your time');
    await started;
    controller.abort();
    const report = await running;
    expect(report.status).toBe('aborted');
    const again = await createMurmur({ cwd: dir, model: answer('finished now') });
    const resumed = await again.resume(report.sessionId!);
    expect(resumed).toMatchObject({
      kind: 'run',
      status: 'completed',
      result: 'finished now',
      sessionId: report.sessionId,
    });
    expect(syncError(() => again.resume('20200101-000000-zzzz'))).toMatchObject({ option: 'sessionId' });
  });

  it('a swarm with bad items is refused naming the option; a failed item is a value', async () => {
    const murmur = await createMurmur({
      cwd: dir,
      model: scriptedModel({ agents: [{ turns: [{ text: 'ok' }] }] }),
      sessions: false,
    });
    expect(syncError(() => murmur.swarm({ template: 'no placeholder', items: ['a'] })).option).toBe('swarm');
    expect(syncError(() => murmur.swarm({ template: '{{item}}', items: ['a'], role: 'main' })).option).toBe(
      'swarm.role',
    );
    expect(syncError(() => murmur.swarm({ template: '{{item}}', items: ['a'], maxConcurrency: 0 })).option).toBe(
      'swarm.maxConcurrency',
    );
    const failing = await createMurmur({
      cwd: dir,
      model: scriptedModel({
        agents: [
          { match: { prompt: 'b' }, turns: [{ failFirst: { status: 400, times: 1 }, text: 'x' }] },
          { turns: [{ text: 'ok' }] },
        ],
      }),
      sessions: false,
    });
    const report = await failing.swarm({ template: 'do {{item}}', items: ['a', 'b'] });
    expect(report.status).toBe('failed');
    expect(report.items.map((i) => i.outcome)).toEqual(['completed', 'failed']);
  });
});

describe('approvals and queues', () => {
  it('asks onApproval when a person must answer, and the answer decides', async () => {
    const asked: string[] = [];
    const model = scriptedModel({
      agents: [
        {
          turns: [
            { toolCalls: [{ name: 'bash', arguments: { command: 'echo approved > out.txt' } }] },
            { toolCalls: [{ name: 'bash', arguments: { command: 'rm out.txt' } }] },
            { text: 'done' },
          ],
        },
      ],
    });
    const murmur = await createMurmur({
      cwd: dir,
      model,
      permissionMode: 'manual',
      sessions: false,
      onApproval: (request) => (
        asked.push(request.summary),
        request.summary.includes('rm ') ? { kind: 'deny', feedback: 'keep it' } : { kind: 'allow_once' }
      ),
    });
    expect((await murmur.run('write then delete')).status).toBe('completed');
    expect(asked).toEqual(['bash: echo approved > out.txt', 'bash: rm out.txt']);
    expect(readFileSync(path.join(dir, 'out.txt'), 'utf8')).toBe('approved\n');
  });

  it('mcpServers adds the tools of a real MCP server to the catalog', async () => {
    const bin = path
      .join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', '.bin', 'mcp-server-everything')
      .replace(`${path.sep}dist${path.sep}`, path.sep);
    const model = scriptedModel({
      agents: [
        {
          turns: [
            { toolCalls: [{ name: 'mcp__everything__echo', arguments: { message: 'over MCP' } }] },
            { text: 'done' },
          ],
        },
      ],
    });
    const murmur = await createMurmur({
      cwd: dir,
      model,
      permissionMode: 'yolo',
      sessions: false,
      mcpServers: { everything: { command: bin, args: ['stdio'] } },
    });
    const results: string[] = [];
    murmur.on('tool.end', (event) => results.push(`${event.tool}: ${event.isError ? `error ${event.error}` : 'ok'}`));
    try {
      expect((await murmur.run('echo it')).status).toBe('completed');
    } finally {
      await murmur.close();
    }
    expect(results).toEqual(['mcp__everything__echo: ok']);
  }, 30_000);

  it('a bad queue URL is refused naming swarm.queue, before anything starts (on done: checking it takes I/O)', async () => {
    const murmur = await createMurmur({ cwd: dir, model: answer('x'), sessions: false });
    const error = (await murmur
      .swarm({ template: '{{item}}', items: ['a'], queue: 'http://nowhere' })
      .catch((e: unknown) => e)) as MurmurOptionsError;
    expect(error).toBeInstanceOf(MurmurOptionsError);
    expect(error.option).toBe('swarm.queue');
  });
});

describe('custom tools', () => {
  const facts = (name: 'main' | 'worker' | 'explore' | 'verifier', isSubtask = true): TurnFacts => ({
    profile: builtinProfile(name),
    model: { images: false, video: false },
    excluded: new Set(),
    isSubtask,
    interface: 'cli',
    features: { delegation: true, webSearch: true },
    desktopAvailable: false,
  });
  const tool = (grantedTo?: string[]): RuntimeTool => ({
    ...defineTool({
      def: { name: 'deploy', description: 'd', parameters: Type.Object({}) },
      execute: () => textResult('x'),
    }),
    ...(grantedTo ? { grantedTo } : {}),
  });
  const names = (t: RuntimeTool, f: TurnFacts) => applyFilters([t], f).tools.map((x) => x.def.name);

  it('reach exactly the roles they are granted to, past the role cap', () => {
    expect(names(tool(['verifier']), facts('verifier'))).toEqual(['deploy']);
    expect(names(tool(['coder']), facts('worker'))).toEqual(['deploy']);
    expect(names(tool(['verifier']), facts('worker'))).toEqual([]);
    expect(names(tool(['worker']), facts('main', false))).toEqual([]);
    // Without a grant a configured tool keeps the role caps: the verifier never gets it.
    expect(names(tool(), facts('verifier'))).toEqual([]);
  });

  it('a tool for workers only is not offered to the main agent', async () => {
    mkdirSync(path.join(dir, 'src'));
    const seen: string[][] = [];
    const model = scriptedModel({ agents: [{ turns: [{ text: 'done' }] }] });
    const spy = {
      ...model,
      complete: (request: Parameters<typeof model.complete>[0], signal: AbortSignal) => (
        seen.push(request.tools.map((t) => t.name)),
        model.complete(request, signal)
      ),
    };
    const murmur = await createMurmur({
      cwd: dir,
      model: spy,
      sessions: false,
      tools: [{ tool: tool(), roles: ['worker'] }],
    });
    await murmur.run('hello');
    expect(seen[0]).not.toContain('deploy');
    expect(seen[0]).toContain('read');
  });
});
