// murmur-agents/testing: the scripted model records every request it is sent (`calls`) and says which scripted
// turns went unused (`assertComplete()`); the README's testing example runs as written.
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMurmur } from '../../api/index.js';
import { scriptedModel, type ScriptedProvider } from '../../api/testing.js';
import { testCountNotes } from './examples/scripted-test.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-testing-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(model: ScriptedProvider, task: string) {
  const murmur = await createMurmur({ cwd: dir, model, sessions: false });
  try {
    return await murmur.run(task);
  } finally {
    await murmur.close();
  }
}

describe('scriptedModel calls', () => {
  it('records each request: the agent, its system prompt, the conversation as it was, and the tools offered', async () => {
    writeFileSync(path.join(dir, 'a.txt'), 'a');
    const model = scriptedModel({
      agents: [{ turns: [{ toolCalls: [{ name: 'glob', arguments: { pattern: '*.txt' } }] }, { text: 'one file' }] }],
    });
    expect((await run(model, 'List the files')).result).toBe('one file');
    expect(model.calls).toHaveLength(2);
    const [first, second] = model.calls;
    expect(first!.agent).toEqual({ id: 'main', role: 'main' });
    expect(first!.system.length).toBeGreaterThan(0);
    // A copy: the conversation went on, the first call's messages did not grow.
    expect(first!.messages).toEqual([{ role: 'user', content: 'List the files' }]);
    expect(first!.tools.map((tool) => tool.name)).toContain('glob');
    expect(second!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(second!.messages[2]).toMatchObject({ role: 'tool', toolName: 'glob', isError: false });
    model.assertComplete();
  });

  it('records retried attempts and requests the script cannot answer', async () => {
    const model = scriptedModel({
      agents: [
        {
          match: { role: 'main', prompt: 'retry' },
          turns: [{ failFirst: { status: 503, times: 1, retryAfterMs: 1 }, text: 'ok' }],
        },
      ],
    });
    expect((await run(model, 'retry once')).result).toBe('ok');
    expect(model.calls).toHaveLength(2);
    const failed = await run(model, 'something unscripted');
    expect(failed.status).toBe('failed');
    expect(model.calls).toHaveLength(3);
    expect(model.calls[2]!.messages).toEqual([{ role: 'user', content: 'something unscripted' }]);
  });

  it('records a script loaded from a file too', async () => {
    const file = path.join(dir, 'script.json');
    writeFileSync(file, JSON.stringify({ agents: [{ turns: [{ text: 'from the file' }] }] }));
    const model = scriptedModel(file);
    expect(model.name).toBe(`scripted:${file}`);
    expect((await run(model, 'hello')).result).toBe('from the file');
    expect(model.calls.map((call) => call.agent.id)).toEqual(['main']);
  });
});

describe('scriptedModel assertComplete', () => {
  it('passes once every entry was matched and every agent reached its last turn', async () => {
    const model = scriptedModel({ agents: [{ turns: [{ text: 'done' }] }] });
    expect(() => model.assertComplete()).toThrow(
      /agents\[0\] \(any role\): no agent matched it \(1 turn\(s\) unused\)/,
    );
    await run(model, 'go');
    expect(() => model.assertComplete()).not.toThrow();
  });

  it('names an entry no agent matched and an agent that stopped before its last turn', async () => {
    const model = scriptedModel({
      agents: [
        { match: { role: 'main', prompt: 'short' }, turns: [{ text: 'stopped early' }, { text: 'never sent' }] },
        { match: { role: 'verifier', prompt: 'check (\\S+)' }, turns: [{ text: 'VERDICT: pass' }] },
      ],
    });
    await run(model, 'a short task');
    let message = '';
    try {
      model.assertComplete();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'scripted model: scripted turns left unused — agents[0] (role main, prompt /short/): agent main used 1 of its 2 turn(s); ' +
        'agents[1] (role verifier, prompt /check (\\S+)/): no agent matched it (1 turn(s) unused)',
    );
  });

  it('counts each agent of a shared entry on its own', async () => {
    const model = scriptedModel({
      agents: [
        { match: { role: 'worker' }, turns: [{ text: 'done $0' }] },
        { match: { role: 'main' }, turns: [{ text: 'ok' }] },
      ],
    });
    const murmur = await createMurmur({ cwd: dir, model, sessions: false });
    try {
      const report = await murmur.swarm({ template: 'Do {{item}}', items: ['a', 'b', 'c'], role: 'worker' });
      expect(report.status).toBe('completed');
    } finally {
      await murmur.close();
    }
    expect(model.calls.map((call) => call.agent.role)).toEqual(['worker', 'worker', 'worker']);
    expect(() => model.assertComplete()).toThrow(
      /^scripted model: scripted turns left unused — agents\[1\] \(role main\): no agent matched it/,
    );
  });
});

describe('README testing example', () => {
  it('runs as written', async () => {
    mkdirSync(path.join(dir, 'notes'));
    writeFileSync(path.join(dir, 'notes', 'plan.md'), '# plan\n');
    writeFileSync(path.join(dir, 'notes', 'retro.md'), '# retro\n');
    await testCountNotes(dir);
  });

  it('fails, saying why, when the code under test does not get what the script expects', async () => {
    // No notes folder: glob finds nothing, so the example's last check fails.
    await expect(testCountNotes(dir)).rejects.toThrow('glob did not find notes/plan.md');
  });
});
