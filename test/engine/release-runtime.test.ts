// A settled swarm item's agent lets its runtime go (a million items must not keep a million tool catalogs and
// prompts); if it runs again it gets a new one and goes on with its conversation, its tools working as before.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinProfile } from '../../roles/profile.js';
import { scriptedEngine, textOf, workspacePerTest, type Script } from './helpers.js';

const workspace = workspacePerTest('murmur-release-');

const SCRIPT: Script = {
  agents: [
    {
      match: { role: 'worker' },
      turns: [
        { text: 'first answer' },
        { toolCalls: [{ name: 'read', arguments: { path: 'notes.txt' } }] },
        { toolCalls: [{ name: 'edit', arguments: { path: 'notes.txt', old_string: 'old', new_string: 'new' } }] },
        { text: 'second answer' },
      ],
    },
  ],
};

describe('an agent whose runtime was released', () => {
  it('runs again with a new runtime, continuing its conversation', async () => {
    writeFileSync(path.join(workspace.dir, 'notes.txt'), 'old\n');
    const { engine } = scriptedEngine(workspace.dir, SCRIPT);
    const tree = engine.agentTree;
    const spawned = tree.spawn({ profile: builtinProfile('worker'), description: 'w', detached: true });
    if (!spawned.ok) throw new Error(spawned.error);
    const first = await tree.run(spawned.record, 'Do it');
    expect(first.status).toBe('completed');

    expect(spawned.record.agent.released).toBe(false);
    tree.releaseRuntime(spawned.record.id);
    expect(spawned.record.agent.released).toBe(true);
    const second = await tree.run(spawned.record, 'Now change notes.txt');
    expect(second.status).toBe('completed');
    expect(spawned.record.agent.state.messages.map(textOf)).toContain('first answer');
    expect(spawned.record.agent.state.lastText).toBe('second answer');
    expect(spawned.record.agent.released).toBe(false);
    expect(readFileSync(path.join(workspace.dir, 'notes.txt'), 'utf8')).toBe('new\n');
    await engine.close();
  });
});
