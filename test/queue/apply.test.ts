// A worker's diff applied on the coordinator's tree: once, even when the coordinator died between the apply and
// saving the item's end and applies it again on resume — also for a diff that only adds lines (its context is
// still there after the first apply, so it would apply forward a second time).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDiff } from '../../swarm/queue/apply.js';
import { WaitingDiffs } from '../../swarm/queue/diffs.js';
import { JOB_FORMAT } from '../../swarm/queue/job.js';
import type { ItemResult } from '../../swarm/report.js';
import { git, gitRepo, removeDir, tempDir } from '../swarm/helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir('murmur-apply-');
});
afterEach(async () => {
  await removeDir(dir);
});

describe('applyDiff', () => {
  it('applies an added-lines diff once, and counts a second apply as done', async () => {
    gitRepo(dir, { 'a.txt': 'a\n' });
    writeFileSync(path.join(dir, 'a.txt'), 'a\nchanged\n');
    const diff = git(dir, 'diff', '--binary', '--no-color');
    git(dir, 'checkout', '--', 'a.txt');
    const patches = path.join(dir, '.patches');
    expect(await applyDiff(dir, diff, 0, patches)).toEqual({ kind: 'applied' });
    expect(await applyDiff(dir, diff, 0, patches)).toEqual({ kind: 'applied' });
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('a\nchanged\n');
  });
});

/** The diff that turns `file`'s content into `to` (the tree is put back after). */
function diffOf(file: string, to: string): string {
  const before = readFileSync(path.join(dir, file), 'utf8');
  writeFileSync(path.join(dir, file), to);
  const diff = git(dir, 'diff', '--binary', '--no-color');
  writeFileSync(path.join(dir, file), before);
  return diff;
}

describe('waiting diffs', () => {
  /** Five items' diffs (the last changes a.txt again, written against the first's change); `mine`: c.txt changed here meanwhile. */
  async function commitAll(mine: boolean): Promise<{ outcomes: string[]; files: string[] }> {
    gitRepo(dir, { 'a.txt': 'a\n', 'b.txt': 'a\n', 'c.txt': 'a\n', 'd.txt': 'a\n' });
    const diffs = [
      diffOf('a.txt', 'b\n'),
      diffOf('b.txt', 'b\n'),
      diffOf('c.txt', 'b\n'),
      diffOf('d.txt', 'b\n'),
      // Only in item order does it apply.
      diffOf('a.txt', 'c\n').replace('-a\n+c\n', '-b\n+c\n'),
    ];
    if (mine) writeFileSync(path.join(dir, 'c.txt'), 'mine\n');
    const waiting = new WaitingDiffs(dir, path.join(dir, '.patches'));
    const data = {
      format: JOB_FORMAT,
      kind: 'done',
      outcome: 'completed',
      text: '',
      rounds: 0,
      host: 'h',
      model: 'm',
    } as const;
    diffs.forEach((diff, index) => waiting.hold(index, { ...data, diff }));
    const outcomes: string[] = [];
    for (const [index, item] of ['a', 'b', 'c', 'd', 'a2'].entries()) {
      const result: ItemResult = { index, item, outcome: 'completed', rounds: 0, text: '' };
      outcomes.push((await waiting.commit(index, result)).outcome);
    }
    const files = ['a.txt', 'b.txt', 'c.txt', 'd.txt'].map((file) => readFileSync(path.join(dir, file), 'utf8'));
    return { outcomes, files };
  }

  it('apply a run of ended items together, in item order', async () => {
    expect(await commitAll(false)).toEqual({
      outcomes: ['completed', 'completed', 'completed', 'completed', 'completed'],
      files: ['c\n', 'b\n', 'b\n', 'b\n'],
    });
  });

  it('go one by one when the run does not apply: the one that does not is kept, the others land', async () => {
    expect(await commitAll(true)).toEqual({
      outcomes: ['completed', 'completed', 'conflict', 'completed', 'completed'],
      files: ['c\n', 'b\n', 'mine\n', 'b\n'],
    });
  });
});
