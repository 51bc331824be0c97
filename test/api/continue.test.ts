// The library's continue(): a run's conversation takes the next message on the same session (its model sees every
// message before), and what cannot take one — a swarm's session, an empty message — is a MurmurOptionsError naming
// the option.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMurmur, MurmurOptionsError } from '../../api/index.js';
import { scriptedModel } from '../../api/testing.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-continue-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function refusal(run: () => unknown): MurmurOptionsError | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof MurmurOptionsError) return error;
    throw error;
  }
  return undefined;
}

describe('continue()', () => {
  it('adds a turn to a finished conversation, with its history, in the same session', async () => {
    const model = scriptedModel({
      agents: [{ match: { role: 'main' }, turns: [{ text: 'Paris.' }, { text: 'About 2.1 million.' }] }],
    });
    const murmur = await createMurmur({ cwd: dir, model });
    const first = await murmur.run('Capital of France?');
    const next = await murmur.continue(first.sessionId!, 'How many live there?');
    await murmur.close();
    expect(next).toMatchObject({ status: 'completed', result: 'About 2.1 million.', sessionId: first.sessionId });
    const seen = model.calls.at(-1)!.messages.map((m) => (m.role === 'assistant' ? m.text : m.content));
    expect(seen).toEqual(['Capital of France?', 'Paris.', 'How many live there?']);
    model.assertComplete();
  });

  it("refuses a swarm's session and an empty message, naming the option", async () => {
    const model = scriptedModel({
      agents: [
        { match: { role: 'worker' }, turns: [{ text: 'ok' }] },
        { match: { role: 'main' }, turns: [{ text: 'hi' }] },
      ],
    });
    const murmur = await createMurmur({ cwd: dir, model });
    const swarm = await murmur.swarm({ template: 'Check {{item}}', items: ['a'] });
    const onSwarm = refusal(() => murmur.continue(swarm.sessionId!, 'and b?'));
    expect(onSwarm?.option).toBe('sessionId');
    expect(onSwarm?.message).toContain('is a swarm');
    const run = await murmur.run('x');
    const empty = refusal(() => murmur.continue(run.sessionId!, ' '));
    expect(empty?.option).toBe('message');
    await murmur.close();
  });
});
