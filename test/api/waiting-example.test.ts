// The README's waiting example, run as written on the scripted model (from MURMUR_MODEL, as for a user): the run
// waits at the write that manual mode asks for, the answer given from code lets it run once, and the run completes.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAnswering } from './examples/waiting.js';

let dir: string;
const savedModel = process.env.MURMUR_MODEL;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-waiting-')));
  const script = {
    agents: [
      {
        match: { role: 'main' },
        turns: [
          { toolCalls: [{ name: 'write', arguments: { path: 'CHANGELOG.md', content: '# Changes\n' } }] },
          { text: 'Tidied.' },
        ],
      },
    ],
  };
  writeFileSync(path.join(dir, 'script.json'), JSON.stringify(script));
  process.env.MURMUR_MODEL = `scripted:${path.join(dir, 'script.json')}`;
});
afterEach(async () => {
  if (savedModel === undefined) delete process.env.MURMUR_MODEL;
  else process.env.MURMUR_MODEL = savedModel;
  await rm(dir, { recursive: true, force: true });
});

describe('README waiting example', () => {
  it('approves the waiting write from code: it runs once and the run completes', async () => {
    const outcome = await runAnswering({ cwd: dir }, 'Tidy the changelog', () => true);
    expect(outcome).toEqual({
      status: 'completed',
      result: 'Tidied.',
      asked: ['write CHANGELOG.md (overwrite, 10 bytes) (write changes files)'],
    });
    expect(readFileSync(path.join(dir, 'CHANGELOG.md'), 'utf8')).toBe('# Changes\n');
  });

  it('denies it from code: nothing is written and the run still completes', async () => {
    const outcome = await runAnswering({ cwd: dir }, 'Tidy the changelog', () => false);
    expect(outcome.status).toBe('completed');
    expect(existsSync(path.join(dir, 'CHANGELOG.md'))).toBe(false);
  });
});
