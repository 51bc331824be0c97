// The in-process patch of changed text files, checked against real git: git applies it to the base and gets the
// item's bytes, its index line names the blobs git names, and what git could convert or quote gets no patch.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { textPatch, type TextChange } from '../../swarm/text-patch.js';
import { git, gitRepo } from './helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const lines = (count: number, from = 1) => Array.from({ length: count }, (_, i) => `line ${i + from}\n`).join('');

/** Commits `base`, applies the patch of base → now with git, and returns what git left in each file. */
function appliedByGit(base: Record<string, string>, now: Record<string, string>): Record<string, string> {
  const repo = mkdtempSync(path.join(tmpdir(), 'murmur-text-patch-'));
  dirs.push(repo);
  gitRepo(repo, base);
  const changes: TextChange[] = Object.keys(base).map((file) => ({
    path: file,
    base: Buffer.from(base[file]!),
    now: Buffer.from(now[file]!),
  }));
  const patch = textPatch(changes, 40)!;
  expect(patch).toBeDefined();
  writeFileSync(path.join(repo, '..', `${path.basename(repo)}.patch`), patch);
  git(repo, 'apply', '--check', `../${path.basename(repo)}.patch`);
  git(repo, 'apply', `../${path.basename(repo)}.patch`);
  return Object.fromEntries(Object.keys(base).map((file) => [file, readFileSync(path.join(repo, file), 'utf8')]));
}

describe('the in-process text patch', () => {
  it('is applied by git to give the item’s bytes: one change, changes far apart, several files, folders', () => {
    const base = { 'a.txt': lines(20), 'src/deep/b.ts': lines(200), 'c.md': 'one\n' };
    const now = {
      'a.txt': lines(20).replace('line 10\n', 'line ten\nand more\n'),
      'src/deep/b.ts': lines(200).replace('line 3\n', '').replace('line 150\n', 'line 150 changed\n') + 'end\n',
      'c.md': 'one\n',
    };
    expect(appliedByGit(base, now)).toEqual(now);
  });

  it('keeps end-of-file newlines exactly: removed, added, and changes to a last line without one', () => {
    const base = { 'a.txt': 'x\ny\n', 'b.txt': 'x\ny', 'c.txt': 'x\ny', 'd.txt': '', 'e.txt': 'gone\n' };
    const now = { 'a.txt': 'x\ny', 'b.txt': 'x\ny\n', 'c.txt': 'x\nz', 'd.txt': 'new\nfile\n', 'e.txt': '' };
    expect(appliedByGit(base, now)).toEqual(now);
  });

  it('keeps a byte-order mark and multi-byte text', () => {
    const base = { 'u.txt': '\uFEFFprémier\nzweite Zeile\n第三行\n' };
    const now = { 'u.txt': '\uFEFFpremier\nzweite Zeile\n第三行 🎉\n' };
    expect(appliedByGit(base, now)).toEqual(now);
  });

  it('names the blobs as git does on its index line, and leaves unchanged files out', () => {
    const repo = mkdtempSync(path.join(tmpdir(), 'murmur-text-patch-'));
    dirs.push(repo);
    gitRepo(repo, { 'a.txt': 'before\n' });
    const patch = textPatch(
      [
        { path: 'a.txt', base: Buffer.from('before\n'), now: Buffer.from('after\n') },
        { path: 'same.txt', base: Buffer.from('same\n'), now: Buffer.from('same\n') },
      ],
      40,
    )!;
    expect(patch.split('\n').slice(0, 4)).toEqual([
      'diff --git a/a.txt b/a.txt',
      `index ${git(repo, 'rev-parse', 'HEAD:a.txt').trim()}..${hashOf('after\n')}`,
      '--- a/a.txt',
      '+++ b/a.txt',
    ]);
    expect(patch).not.toContain('same.txt');
    expect(textPatch([{ path: 'a', base: Buffer.from('x'), now: Buffer.from('x') }], 40)).toBe('');
  });

  it('gives no patch for what git could convert, see as binary or quote, or a rewrite too large', () => {
    const one = (file: string, base: string | Buffer, now: string | Buffer) =>
      textPatch([{ path: file, base: Buffer.from(base), now: Buffer.from(now) }], 40);
    expect(one('a.txt', 'x\r\n', 'y\r\n')).toBeUndefined();
    expect(one('a.txt', 'x\n', 'y\r\n')).toBeUndefined();
    expect(one('a.bin', Buffer.from([1, 0, 2]), 'y\n')).toBeUndefined();
    expect(one('a.txt', Buffer.from([0xff, 0xfe, 0x41]), 'y\n')).toBeUndefined();
    expect(one('a.c', '/* $Id$ */\n', '/* $Id$ */\nint x;\n')).toBeUndefined();
    expect(one('with space.txt', 'x\n', 'y\n')).toBeUndefined();
    expect(one('quo"te.txt', 'x\n', 'y\n')).toBeUndefined();
    expect(one('../out.txt', 'x\n', 'y\n')).toBeUndefined();
    expect(one('big.txt', lines(3000), lines(3000, 5000))).toBeUndefined();
  });
});

/** git's blob id of `text`, computed by git. */
function hashOf(text: string): string {
  const repo = mkdtempSync(path.join(tmpdir(), 'murmur-text-patch-'));
  dirs.push(repo);
  writeFileSync(path.join(repo, 'f'), text);
  return git(repo, 'hash-object', 'f').trim();
}
