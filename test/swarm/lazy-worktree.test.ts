// Worktrees made without a checkout, in a real repository: a new item's worktree holds no file until a path tool
// asks for one (then only that one is written, mode and all), a shell or a search gets every file first, git never
// sees a worktree without its files (the rest written through a new index, a file the item changed kept), a lazy
// worktree a killed process left is filled before git touches it, and a repository whose checkout is more than the
// blobs' bytes (.gitattributes) gets whole checkouts as before.
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fillBefore, fillPath } from '../../tools/fs/lazy-trees.js';
import { indexOf } from '../../swarm/lazy-worktree.js';
import {
  commitAll,
  git,
  gitRepo,
  openIsolation,
  makeEngine,
  removeDir,
  resultText,
  tempDir,
  toolResults,
  type TestEngine,
} from './helpers.js';

let dir: string;
let t: TestEngine | undefined;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  await removeDir(dir);
});

const open = () => openIsolation(dir);
const FILES = { 'a.txt': 'a\n', 'b.txt': 'b\n', 'src/deep/c.txt': 'c\n', 'bin/run.sh': '#!/bin/sh\necho run\n' };
const repo = () => {
  gitRepo(dir, FILES);
  chmodSync(path.join(dir, 'bin/run.sh'), 0o755);
  git(dir, 'add', 'bin/run.sh');
  commitAll(dir, 'executable', 'u');
};
const names = (folder: string) => readdirSync(folder).sort();

describe('a worktree made without a checkout', () => {
  it('writes only the files path tools name, with their mode; a folder or a shell fills the rest', async () => {
    repo();
    const pool = await open();
    const work = await pool.prepareFresh(0);
    expect(names(work)).toEqual(['.git']);
    expect(existsSync(indexOf(work)!)).toBe(false);

    await fillPath(path.join(work, 'src/deep/c.txt'));
    await fillPath(path.join(work, 'bin/run.sh'));
    await fillPath(path.join(work, 'new/file.txt'));
    expect(names(work)).toEqual(['.git', 'bin', 'src']);
    expect(readFileSync(path.join(work, 'src/deep/c.txt'), 'utf8')).toBe('c\n');
    expect(statSync(path.join(work, 'bin/run.sh')).mode & 0o777).toBe(0o755);
    // Path tools and tools that touch no file wait for nothing.
    expect(fillBefore(work, 'read')).toBeUndefined();
    expect(fillBefore(work, 'todo_list')).toBeUndefined();

    // The item changed a file before its shell ran: the fill keeps it, and git sees that change only.
    writeFileSync(path.join(work, 'src/deep/c.txt'), 'C\n');
    await fillBefore(work, 'bash');
    expect(names(work)).toEqual(['.git', 'a.txt', 'b.txt', 'bin', 'src']);
    expect(git(work, 'status', '--porcelain')).toBe(' M src/deep/c.txt\n');
    expect(fillBefore(work, 'grep')).toBeUndefined();
    expect(await pool.mergeBack(0, 'c')).toEqual({ kind: 'merged', files: 1 });
    expect(readFileSync(path.join(dir, 'src/deep/c.txt'), 'utf8')).toBe('C\n');
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('asking for a folder fills the worktree whole', async () => {
    repo();
    const pool = await open();
    const work = await pool.prepareFresh(0);
    await fillPath(path.join(work, 'src'));
    expect(names(work)).toEqual(['.git', 'a.txt', 'b.txt', 'bin', 'src']);
    expect(git(work, 'status', '--porcelain')).toBe('');
  });

  it('a file its tools named but never wrote is the base still, not a deletion', async () => {
    repo();
    const pool = await open();
    const work = await pool.prepareFresh(0);
    await fillPath(path.join(work, 'a.txt'));
    writeFileSync(path.join(work, 'a.txt'), 'A\n');
    // b.txt: an edit refused before it ran names it, and the worktree never had it.
    const touched = [path.join(work, 'a.txt'), path.join(work, 'b.txt')];
    expect(await pool.mergeTouched(0, touched)).toEqual({ kind: 'merged', files: 1 });
    expect(readFileSync(path.join(dir, 'b.txt'), 'utf8')).toBe('b\n');
    expect(git(dir, 'status', '--porcelain')).toBe(' M a.txt\n');
  });

  it('when your tree moved on in a file it changed, git merges that file alone; a conflict keeps its branch', async () => {
    const eight = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n';
    gitRepo(dir, { 'a.txt': eight, 'b.txt': 'b\n', 'c.txt': eight });
    const pool = await open();
    const work = await pool.prepareFresh(0);
    await fillPath(path.join(work, 'a.txt'));
    writeFileSync(path.join(work, 'a.txt'), eight.replace('eight', 'EIGHT'));
    writeFileSync(path.join(dir, 'a.txt'), eight.replace('one', 'ONE'));
    expect(await pool.mergeTouched(0, [path.join(work, 'a.txt')])).toEqual({ kind: 'merged', files: 1 });
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe(eight.replace('one', 'ONE').replace('eight', 'EIGHT'));
    // Nothing else was written for it, and the worktree is at the base again.
    expect(names(work)).toEqual(['.git']);

    const next = await pool.prepareFresh(1);
    await fillPath(path.join(next, 'c.txt'));
    writeFileSync(path.join(next, 'c.txt'), eight.replace('two', 'mine'));
    writeFileSync(path.join(dir, 'c.txt'), eight.replace('two', 'yours'));
    expect(await pool.mergeTouched(1, [path.join(next, 'c.txt')])).toBeUndefined();
    const merged = await pool.mergeBack(1, 'c');
    expect(merged).toMatchObject({ kind: 'conflict', branch: 'murmur/x/s-1/item-2' });
    expect(git(dir, 'show', 'murmur/x/s-1/item-2:c.txt')).toBe(eight.replace('two', 'mine'));
    expect(git(dir, 'show', 'murmur/x/s-1/item-2:b.txt')).toBe('b\n');
    expect(readFileSync(path.join(dir, 'c.txt'), 'utf8')).toBe(eight.replace('two', 'yours'));
  });

  it('a lazy worktree a killed process left is filled before git looks at it', async () => {
    repo();
    const before = await open();
    const work = await before.prepare(0);
    writeFileSync(path.join(work, 'a.txt'), 'A\n');
    // Killed here, the worktree without its other files and without an index.
    const after = await open();
    expect(await after.prepare(0)).toBe(work);
    expect(names(work)).toEqual(['.git', 'a.txt', 'b.txt', 'bin', 'src']);
    expect(await after.mergeBack(0, 'a')).toEqual({ kind: 'merged', files: 1 });
    expect(git(dir, 'status', '--porcelain')).toBe(' M a.txt\n');
  });

  it('a repository with .gitattributes gets whole checkouts (a checkout may be more than the bytes)', async () => {
    gitRepo(dir, { ...FILES, '.gitattributes': '*.txt text eol=lf\n' });
    const pool = await open();
    const work = await pool.prepareFresh(0);
    expect(names(work)).toEqual(['.git', '.gitattributes', 'a.txt', 'b.txt', 'bin', 'src']);
    expect(git(work, 'status', '--porcelain')).toBe('');
  });

  it("an item's shell sees every file of its worktree; its edit merges", async () => {
    repo();
    t = makeEngine(dir, {
      agents: [
        {
          match: { role: 'worker', prompt: 'Fix ((\\w)\\.txt)' },
          turns: [
            { toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: '$2', new_string: 'fixed $2' } }] },
            {
              toolCalls: [{ name: 'bash', arguments: { command: 'cat b.txt src/deep/c.txt; git status --porcelain' } }],
            },
            { text: 'fixed $1' },
          ],
        },
      ],
    });
    const answer = await t.swarm({ promptTemplate: 'Fix {{item}}', items: ['a.txt', 'b.txt'], isolation: 'worktree' });
    expect(answer.ok && answer.report).toContain('<summary>completed: 2</summary>');
    const [, shell] = toolResults(t.engine.agentTree.get('a-1')!.agent.state.messages);
    expect(resultText(shell!)).toContain('b\nc\n M a.txt');
    expect(git(dir, 'status', '--porcelain')).toBe(' M a.txt\n M b.txt\n');
    expect(readFileSync(path.join(dir, 'b.txt'), 'utf8')).toBe('fixed b\n');
  });
});
