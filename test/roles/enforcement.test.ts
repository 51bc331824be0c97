// A role cap is enforced when a call runs, whatever the model sends: a scripted explore agent that calls write
// and bash gets error results, no file is written and no process starts.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeDir, scriptedEngine, tempDir, textOf, toolResults, writeTree, type Script } from '../engine/helpers.js';

let cwd: string;
beforeEach(async () => {
  cwd = await tempDir('murmur-enforce-');
});
afterEach(async () => {
  await removeDir(cwd);
});

describe('enforcement at execution', () => {
  it('refuses write and bash to an explore agent: nothing is written, no process starts', async () => {
    writeTree(cwd, { 'notes.txt': 'hello\n' });
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                {
                  name: 'agent',
                  arguments: { prompt: 'Look around', description: 'look around', subagent_type: 'explore' },
                },
              ],
            },
            { text: 'done' },
          ],
        },
        {
          match: { role: 'explore' },
          turns: [
            {
              toolCalls: [
                { name: 'read', arguments: { path: 'notes.txt' } },
                { name: 'write', arguments: { path: 'hacked.txt', content: 'x' } },
                { name: 'bash', arguments: { command: 'touch started.txt' } },
                { name: 'edit', arguments: { path: 'notes.txt', old_string: 'hello', new_string: 'bye' } },
              ],
            },
            { text: 'looked' },
          ],
        },
      ],
    };
    const { engine, recorder } = scriptedEngine(cwd, script);
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    const results = toolResults(engine.agentTree.get('a-1')!.agent.state.messages);
    expect(results.map((r) => r.isError)).toEqual([false, true, true, true]);
    expect(textOf(results[0]!)).toContain('hello');
    for (const [index, tool] of [
      [1, 'write'],
      [2, 'bash'],
      [3, 'edit'],
    ] as const) {
      expect(textOf(results[index]!)).toBe(
        `Tool "${tool}" is not available to the explore agent. Available tools: read, grep, glob.`,
      );
    }
    expect(existsSync(path.join(cwd, 'hacked.txt'))).toBe(false);
    expect(existsSync(path.join(cwd, 'started.txt'))).toBe(false);
    // The refusals end at once, before the read: compare regardless of order.
    expect(
      recorder
        .of('tool.end', 'a-1')
        .map((e) => `${e.tool}:${e.isError}`)
        .sort(),
    ).toEqual(['bash:true', 'edit:true', 'read:false', 'write:true']);
  });
});
