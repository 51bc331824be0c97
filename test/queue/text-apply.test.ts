// The coordinator's in-process apply: a batch of plain text diffs is written when each file here is exactly the
// base blob the diff names and the result is exactly the item's blob; anything else leaves the tree untouched
// for git.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyTextDiffs } from '../../swarm/queue/text-apply.js';
import { textPatch } from '../../swarm/text-patch.js';
import { git, gitRepo } from '../swarm/helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function repoOf(files: Record<string, string>): string {
  const repo = mkdtempSync(path.join(tmpdir(), 'murmur-text-apply-'));
  dirs.push(repo);
  gitRepo(repo, files);
  return repo;
}

const patchOf = (file: string, before: string, after: string) =>
  textPatch([{ path: file, base: Buffer.from(before), now: Buffer.from(after) }], 40)!;
const read = (repo: string, file: string) => readFileSync(path.join(repo, file), 'utf8');

describe('the coordinator’s in-process apply', () => {
  it('writes a batch in order, two items changing one file included, keeping the executable bit', () => {
    const repo = repoOf({ 'a.txt': 'one\ntwo\nthree\n', 'src/run.sh': 'echo hi\n' });
    chmodSync(path.join(repo, 'src/run.sh'), 0o755);
    const first =
      patchOf('a.txt', 'one\ntwo\nthree\n', 'one\n2\nthree\n') + patchOf('src/run.sh', 'echo hi\n', 'echo bye\n');
    const second = patchOf('a.txt', 'one\n2\nthree\n', 'one\n2\nthree\nfour\n');
    expect(applyTextDiffs(repo, [first, second])).toBe(true);
    expect(read(repo, 'a.txt')).toBe('one\n2\nthree\nfour\n');
    expect(read(repo, 'src/run.sh')).toBe('echo bye\n');
    expect(statSync(path.join(repo, 'src/run.sh')).mode & 0o777).toBe(0o755);
    // git sees the same change it would have applied.
    expect(git(repo, 'diff', '--stat').trim()).toMatch(/2 files changed, 3 insertions\(\+\), 2 deletions\(-\)/);
  });

  it('keeps end-of-file newlines, a byte-order mark and multi-byte text exactly as the item made them', () => {
    const base = { 'a.txt': 'x\ny', 'b.txt': 'x\ny\n', 'c.txt': '\uFEFFprémier\n第三行\n', 'd.txt': '' };
    const now = { 'a.txt': 'x\nz\n', 'b.txt': 'x\ny', 'c.txt': '\uFEFFpremier\n第三行 🎉\n', 'd.txt': 'new\n' };
    const repo = repoOf(base);
    const diffs = Object.keys(base).map((file) =>
      patchOf(file, base[file as keyof typeof base], now[file as keyof typeof now]),
    );
    expect(applyTextDiffs(repo, diffs)).toBe(true);
    for (const file of Object.keys(now)) expect(read(repo, file)).toBe(now[file as keyof typeof now]);
  });

  it('writes nothing when one file moved on here, so that git applies the whole batch or finds the conflict', () => {
    const repo = repoOf({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    writeFileSync(path.join(repo, 'b.txt'), 'b changed here\n');
    const batch = [patchOf('a.txt', 'a\n', 'A\n'), patchOf('b.txt', 'b\n', 'B\n')];
    expect(applyTextDiffs(repo, batch)).toBe(false);
    expect(read(repo, 'a.txt')).toBe('a\n');
    expect(read(repo, 'b.txt')).toBe('b changed here\n');
  });

  it('leaves to git a file under an attributes file, a diff git wrote, a new file, and one beyond a link', () => {
    const repo = repoOf({ 'deep/x/a.txt': 'a\n', 'c.txt': 'c\n' });
    writeFileSync(path.join(repo, 'deep', '.gitattributes'), '*.txt text\n');
    expect(applyTextDiffs(repo, [patchOf('deep/x/a.txt', 'a\n', 'A\n')])).toBe(false);
    writeFileSync(path.join(repo, 'c.txt'), 'C\n');
    const byGit = git(repo, 'diff');
    git(repo, 'checkout', '--', 'c.txt');
    expect(applyTextDiffs(repo, [byGit])).toBe(false);
    mkdirSync(path.join(repo, 'n'));
    writeFileSync(path.join(repo, 'n', 'new.txt'), 'new\n');
    git(repo, 'add', '-N', 'n/new.txt');
    expect(applyTextDiffs(repo, [git(repo, 'diff', '--full-index')])).toBe(false);
    expect(read(repo, 'c.txt')).toBe('c\n');
    expect(applyTextDiffs(repo, [''])).toBe(true);
    // A folder on the way that is a link here (to a folder outside the repository holding the base's bytes).
    const outside = mkdtempSync(path.join(tmpdir(), 'murmur-text-apply-outside-'));
    dirs.push(outside);
    writeFileSync(path.join(outside, 'a.txt'), 'a\n');
    symlinkSync(outside, path.join(repo, 'linked'));
    expect(applyTextDiffs(repo, [patchOf('linked/a.txt', 'a\n', 'A\n')])).toBe(false);
    expect(readFileSync(path.join(outside, 'a.txt'), 'utf8')).toBe('a\n');
  });
});
