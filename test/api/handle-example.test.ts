// The README's run-handle example, run as written on the scripted model (from MURMUR_MODEL, as for a user): the
// deadline aborts the slow answer with its reason, the session is listed as aborted, and resume finishes it.
import { writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { finish, runWithDeadline } from './examples/run-handle.js';

let dir: string;
const savedModel = process.env.MURMUR_MODEL;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-api-')));
});
afterEach(async () => {
  if (savedModel === undefined) delete process.env.MURMUR_MODEL;
  else process.env.MURMUR_MODEL = savedModel;
  await rm(dir, { recursive: true, force: true });
});

/** The main agent globs, then answers after `latencyMs`. */
function useScript(latencyMs: number): void {
  const script = {
    agents: [
      {
        match: { role: 'main' },
        turns: [{ toolCalls: [{ name: 'glob', arguments: { pattern: '*' } }] }, { latencyMs, text: 'All read.' }],
      },
    ],
  };
  writeFileSync(path.join(dir, 'script.json'), JSON.stringify(script));
  process.env.MURMUR_MODEL = `scripted:${path.join(dir, 'script.json')}`;
}

describe('README run-handle example', () => {
  it('aborts at the deadline with its reason, keeps the session, and resume finishes it', async () => {
    useScript(5_000);
    // Long enough for the glob step on a busy machine, well before the answer.
    const outcome = await runWithDeadline(dir, 'Read every file', 1_000);
    expect(outcome).toMatchObject({
      status: 'aborted',
      reason: 'no answer within 1000 ms',
      steps: ['main calls glob', 'main aborted'],
      saved: 'aborted',
    });
    useScript(0);
    expect(await finish(dir, outcome.sessionId)).toBe('All read.');
  });
});
