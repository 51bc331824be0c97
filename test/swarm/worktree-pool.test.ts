// The worktree pool in a real git repository: a completed item's worktree is reset to the base and taken by the
// next new item (nothing of the earlier item is left in it), an item that did not complete keeps its own, a
// conflict keeps its branch and frees its worktree, the end of the swarm removes the free ones, and a resumed
// swarm takes the free worktrees a killed process left into its pool.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, gitRepo, openIsolation, removeDir, tempDir } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

const open = () => openIsolation(dir);
const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
const worktrees = () =>
  git(dir, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .slice(1)
    .map((l) => path.basename(l.slice('worktree '.length)));
const branches = () =>
  git(dir, 'branch', '--list', 'murmur/*', '--format=%(refname:short)').split('\n').filter(Boolean);

describe('the worktree pool', () => {
  it('gives a completed item’s worktree to the next new item, reset to the base', async () => {
    gitRepo(dir, { 'a.txt': 'a\n', 'b.txt': 'b\n', '.gitignore': 'build/\n' });
    const pool = await open();
    const first = await pool.prepareFresh(0);
    writeFileSync(path.join(first, 'a.txt'), 'A\n');
    writeFileSync(path.join(first, 'new.txt'), 'new\n');
    mkdirSync(path.join(first, 'build'));
    writeFileSync(path.join(first, 'build', 'out'), 'ignored\n');
    expect(await pool.mergeBack(0, 'a')).toEqual({ kind: 'merged', files: 2 });
    expect(read('a.txt')).toBe('A\n');
    expect(read('new.txt')).toBe('new\n');

    const second = await pool.prepareFresh(1);
    expect(second).toBe(first);
    // What item 0 left (its edit, its new file, its ignored output) is gone: the base, as a new worktree has it.
    expect(readFileSync(path.join(second, 'a.txt'), 'utf8')).toBe('a\n');
    expect(existsSync(path.join(second, 'new.txt'))).toBe(false);
    expect(existsSync(path.join(second, 'build'))).toBe(false);
    writeFileSync(path.join(second, 'b.txt'), 'B\n');
    expect(await pool.mergeBack(1, 'b')).toEqual({ kind: 'merged', files: 1 });
    expect(read('b.txt')).toBe('B\n');
    expect(worktrees()).toEqual(['item-1']);
    expect(branches()).toEqual([]);
    await pool.close();
    expect(worktrees()).toEqual([]);
  });

  it('an item that did not complete keeps its worktree: the next item gets another', async () => {
    gitRepo(dir, { 'a.txt': 'a\n' });
    const pool = await open();
    const kept = await pool.prepareFresh(0);
    writeFileSync(path.join(kept, 'a.txt'), 'half done\n');
    expect(await pool.keep(0)).toEqual({ branch: 'murmur/x/s-1/item-1', worktree: kept });
    const other = await pool.prepareFresh(1);
    expect(other).not.toBe(kept);
    expect(readFileSync(path.join(kept, 'a.txt'), 'utf8')).toBe('half done\n');
    await pool.close();
    // Only the free ones go: the kept worktree stays for a resume.
    expect(worktrees()).toEqual(['item-1', 'item-2']);
  });

  it('a conflict keeps its work on the item’s branch and frees its worktree', async () => {
    gitRepo(dir, { 'a.txt': 'a\n' });
    const pool = await open();
    const workspace = await pool.prepareFresh(0);
    writeFileSync(path.join(workspace, 'a.txt'), 'theirs\n');
    writeFileSync(path.join(dir, 'a.txt'), 'mine\n');
    const merged = await pool.mergeBack(0, 'a');
    expect(merged).toMatchObject({ kind: 'conflict', branch: 'murmur/x/s-1/item-1' });
    expect(read('a.txt')).toBe('mine\n');
    expect(git(dir, 'show', 'murmur/x/s-1/item-1:a.txt')).toBe('theirs\n');
    // Its worktree is the next item's, at the base.
    const next = await pool.prepareFresh(1);
    expect(next).toBe(workspace);
    expect(readFileSync(path.join(next, 'a.txt'), 'utf8')).toBe('a\n');
    expect(git(dir, 'show', 'murmur/x/s-1/item-1:a.txt')).toBe('theirs\n');
  });

  it('a resumed swarm takes the free worktrees the killed process left into its pool', async () => {
    gitRepo(dir, { 'a.txt': 'a\n' });
    const before = await open();
    const left = await before.prepareFresh(0);
    writeFileSync(path.join(left, 'a.txt'), 'A\n');
    expect(await before.mergeBack(0, 'a')).toEqual({ kind: 'merged', files: 1 });
    // Killed here: item-1 is free in its pool, never removed.
    const after = await open();
    after.collectLeftovers();
    expect(await after.prepareFresh(4)).toBe(left);
    expect(readFileSync(path.join(left, 'a.txt'), 'utf8')).toBe('a\n');
    expect(worktrees()).toEqual(['item-1']);
  });

  // Attributes make worktrees whole checkouts (lazy-worktree.ts): the changed files are copied, then put back.
  for (const [kind, extra] of [
    ['a worktree made without a checkout', {}],
    ['a whole checkout', { '.gitattributes': '*.txt text\n' }],
  ] as const) {
    it(`merges the files a file-tools-only item names without git, and hands ${kind} on clean`, async () => {
      gitRepo(dir, { 'a.txt': 'a\n', 'keep.txt': 'k\n', ...extra });
      const pool = await open();
      const first = await pool.prepareFresh(0);
      writeFileSync(path.join(first, 'a.txt'), 'A\n');
      mkdirSync(path.join(first, 'deep', 'er'), { recursive: true });
      writeFileSync(path.join(first, 'deep', 'er', 'new.txt'), 'new\n');
      const touched = [
        path.join(first, 'a.txt'),
        path.join(first, 'deep', 'er', 'new.txt'),
        path.join(first, 'keep.txt'),
      ];
      expect(await pool.mergeTouched(0, touched)).toEqual({ kind: 'merged', files: 2 });
      expect(read('a.txt')).toBe('A\n');
      expect(read('deep/er/new.txt')).toBe('new\n');
      // The worktree is at the base again: its edit undone, its new file and folders gone, git sees nothing.
      expect(existsSync(path.join(first, 'deep'))).toBe(false);
      expect(await pool.prepareFresh(1)).toBe(first);
      await pool.wholePath(1);
      expect(readFileSync(path.join(first, 'a.txt'), 'utf8')).toBe('a\n');
      expect(readFileSync(path.join(first, 'keep.txt'), 'utf8')).toBe('k\n');
      expect(git(first, 'status', '--porcelain')).toBe('');
    });
  }

  // A worktree made without a checkout merges such a file with git at once (lazy-worktree.test.ts).
  it('leaves the merge to git when the working tree moved on in a file the item changed', async () => {
    gitRepo(dir, { 'a.txt': 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n', '.gitattributes': '*.txt text\n' });
    const pool = await open();
    const workspace = await pool.prepareFresh(0);
    writeFileSync(path.join(workspace, 'a.txt'), 'one\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\n');
    // The user (or an earlier item) changed another part of the same file.
    writeFileSync(path.join(dir, 'a.txt'), 'ONE\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n');
    expect(await pool.mergeTouched(0, [path.join(workspace, 'a.txt')])).toBeUndefined();
    expect(read('a.txt')).toBe('ONE\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n');
    // git's patch applies around the user's change, as it always did.
    expect(await pool.mergeBack(0, 'a')).toEqual({ kind: 'merged', files: 1 });
    expect(read('a.txt')).toBe('ONE\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\n');
  });

  it('a new item waits for a worktree while one is being made, and stops waiting when the swarm stops', async () => {
    gitRepo(dir, { 'a.txt': 'a\n' });
    const pool = await open();
    const making = pool.prepareFresh(0);
    const stop = new AbortController();
    const waiting = pool.prepareFresh(1, stop.signal);
    stop.abort(new Error('the swarm was stopped'));
    await expect(waiting).rejects.toThrow('the swarm was stopped');
    await making;
    expect(worktrees()).toEqual(['item-1']);
  });

  it('in a resumed swarm, a new agent redoing what a lost attempt merged counts as merged, not as a conflict', async () => {
    gitRepo(dir, { 'a.txt': 'a\n' });
    // The lost attempt appended its line and merged it; the process died before the state said so.
    writeFileSync(path.join(dir, 'a.txt'), 'a\nchanged\n');
    // It had also kept a branch (an earlier failed attempt): the merge leaves none behind.
    git(dir, 'branch', 'murmur/x/s-1/item-1');
    const pool = await open();
    await pool.mayHaveMergedBefore();
    const workspace = await pool.prepareFresh(0);
    writeFileSync(path.join(workspace, 'a.txt'), 'a\nchanged\n');
    expect(await pool.mergeTouched(0, [path.join(workspace, 'a.txt')])).toBeUndefined();
    expect(await pool.mergeBack(0, 'a')).toEqual({ kind: 'merged', files: 1 });
    expect(read('a.txt')).toBe('a\nchanged\n');
    expect(branches()).toEqual([]);
  });
});
