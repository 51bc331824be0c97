// A worker's diff applied on the coordinator's tree: once, even when the coordinator died between the apply and
// saving the item's end and applies it again on resume — also for a diff that only adds lines (its context is
// still there after the first apply, so it would apply forward a second time).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDiff } from '../../swarm/queue/apply.js';
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
