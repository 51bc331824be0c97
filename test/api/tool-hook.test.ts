// onToolCall, the host's hook on every tool call before the permission checks (allow goes on to them, deny refuses
// with the reason the model reads, rewrite replaces the arguments and they are checked again, a hook that throws
// denies), and a run's toolAccess, which filters what its agents see (unknown names name the entry; a resume keeps
// it; test/roles/catalog.test.ts checks the filter and the shell bridge's refusal).
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMurmur, type ToolCallHandler, type ToolCallInfo } from '../../api/index.js';
import { scriptedModel } from '../../api/testing.js';
import { syncError } from './option-errors.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-tool-hook-')));
  writeFileSync(path.join(dir, 'a.md'), 'A\n');
  writeFileSync(path.join(dir, 'b.txt'), 'B\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Call = { name: string; arguments: Record<string, unknown> };

/** The main agent makes these calls, then answers; the test reads the results from the recorded second request. */
function oneTurn(...calls: Call[]) {
  return scriptedModel({ agents: [{ match: { role: 'main' }, turns: [{ toolCalls: calls }, { text: 'done' }] }] });
}

/** The text of each tool result the model was sent back, in call order. */
function results(model: ReturnType<typeof oneTurn>): string[] {
  const last = model.calls.at(-1)!;
  return last.messages
    .filter((message) => message.role === 'tool')
    .map((message) => JSON.stringify((message as { content: unknown }).content));
}

async function runWith(
  onToolCall: ToolCallHandler | undefined,
  calls: Call[],
  extra: { permissionMode?: 'manual' | 'auto' | 'yolo' } = {},
) {
  const model = oneTurn(...calls);
  const murmur = await createMurmur({ cwd: dir, model, ...(onToolCall ? { onToolCall } : {}), ...extra });
  const handle = murmur.run('look around');
  const report = await handle;
  await murmur.close();
  return { model, report, sessionId: handle.sessionId };
}

describe('onToolCall', () => {
  it('sees every call with its agent, role, tool and checked arguments; deny refuses with the reason the model reads', async () => {
    const seen: ToolCallInfo[] = [];
    const { model, report, sessionId } = await runWith(
      (call) => {
        seen.push(call);
        return call.tool === 'read' ? { kind: 'deny', reason: 'reading is off today' } : { kind: 'allow' };
      },
      [
        { name: 'glob', arguments: { pattern: '*.md' } },
        { name: 'read', arguments: { path: 'a.md' } },
      ],
    );
    expect(report.status).toBe('completed');
    expect(seen.map((call) => [call.agentId, call.agent, call.role, call.tool, call.args])).toEqual([
      ['main', 'main', 'main', 'glob', { pattern: '*.md' }],
      ['main', 'main', 'main', 'read', { path: 'a.md' }],
    ]);
    expect(seen.every((call) => call.sessionId === sessionId && call.callId !== '')).toBe(true);
    const [globbed, read] = results(model);
    expect(globbed).toContain('a.md');
    expect(read).toContain('Tool \\"read\\" was refused: reading is off today');
  });

  it('rewrite replaces the arguments, checked against the schema again; async hooks and a hook that throws', async () => {
    const { model } = await runWith(
      async (call) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (call.tool === 'glob') return { kind: 'rewrite', args: { pattern: '*.txt' } };
        if (call.tool === 'grep') return { kind: 'rewrite', args: { pattern: 42 } };
        throw new Error('no reads here');
      },
      [
        { name: 'glob', arguments: { pattern: '*.md' } },
        { name: 'grep', arguments: { pattern: 'A' } },
        { name: 'read', arguments: { path: 'a.md' } },
      ],
    );
    const [globbed, grepped, read] = results(model);
    expect(globbed).toContain('b.txt');
    expect(globbed).not.toContain('a.md');
    expect(grepped).toContain('Invalid arguments for tool \\"grep\\"');
    expect(grepped).toContain("the arguments as the host's onToolCall rewrote them");
    expect(read).toContain('onToolCall failed: no reads here');
  });

  it('allow goes on to the permission checks: a write in manual mode with nobody to ask waits for a person', async () => {
    const calls: string[] = [];
    const { report } = await runWith(
      (call) => {
        calls.push(call.tool);
        return undefined;
      },
      [{ name: 'write', arguments: { path: 'new.md', content: 'x' } }],
      { permissionMode: 'manual' },
    );
    expect(calls).toEqual(['write']);
    expect(report.status).toBe('waiting');
    expect(report.interruptions?.map((i) => [i.tool, i.call])).toEqual([
      ['write', 'write new.md (overwrite, 1 bytes)'],
    ]);
  });
});

describe('toolAccess', () => {
  it('filters what the agents of the run see; unknown names are errors naming the entry', async () => {
    const model = scriptedModel({ agents: [{ turns: [{ text: 'ok' }] }] });
    const murmur = await createMurmur({ cwd: dir, model, sessions: false });
    await murmur.run('one', { toolAccess: { allow: ['read', 'glob', 'Bash'], deny: ['bash'] } });
    await murmur.swarm({ template: '{{item}}', items: ['x'], role: 'explore', toolAccess: { deny: ['grep'] } });
    await murmur.run('all');
    const offered = model.calls.map((call) => call.tools.map((tool) => tool.name).sort());
    expect(offered[0]).toEqual(['glob', 'read']);
    expect(offered[1]).not.toContain('grep');
    expect(offered[1]).toContain('read');
    expect(offered[2]).toContain('bash');
    expect(syncError(() => murmur.run('x', { toolAccess: { allow: ['read', 'raed'] } }))).toMatchObject({
      option: 'toolAccess.allow[1]',
      message: expect.stringContaining('"raed" is not a tool'),
    });
    expect(
      syncError(() => murmur.swarm({ template: '{{item}}', items: ['x'], toolAccess: { only: [] } as never })).option,
    ).toBe('swarm.toolAccess.only');
    await murmur.close();
  });

  it('is saved with the session, and a resume keeps it', async () => {
    const slow = scriptedModel({ agents: [{ turns: [{ latencyMs: 10_000, text: 'late' }] }] });
    const first = await createMurmur({ cwd: dir, model: slow });
    const handle = first.run('slow', { toolAccess: { allow: ['read'] } });
    setTimeout(() => handle.abort('later'), 100);
    expect((await handle).status).toBe('aborted');
    await first.close();
    const state = JSON.parse(
      readFileSync(path.join(dir, '.murmur', 'sessions', handle.sessionId, 'state.json'), 'utf8'),
    ) as { settings?: { toolAccess?: unknown } };
    expect(state.settings?.toolAccess).toEqual({ allow: ['read'] });
    const model = scriptedModel({ agents: [{ turns: [{ text: 'resumed' }] }] });
    const again = await createMurmur({ cwd: dir, model });
    expect(await again.resume(handle.sessionId)).toMatchObject({ status: 'completed' });
    await again.close();
    expect(model.calls[0]?.tools.map((tool) => tool.name)).toEqual(['read']);
  });
});
