// The pieces that keep an agent's work contained, on real git repositories in temp folders: a verifier's changes
// in an item's worktree are put back after its verdict (ignored build output stays); an item's seal names every
// protected git file and foreign ref that moved; what a sandboxed command created among the protected paths is
// removed after it; the git-ignored folders a verifier may write are found from the ignore rules.
import { existsSync, mkdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markWork, restoreWork } from '../../swarm/verifier-guard.js';
import { brokenSeal, sealItem, type SealPlace } from '../../swarm/item-seal.js';
import { restoreProtected, snapshotProtected } from '../../tools/shell/sandbox-guard.js';
import { ignoredFolders } from '../../tools/shell/ignored-folders.js';
import { protectedPathsIn, isProtectedPath } from '../../tools/fs/protected-paths.js';
import { commitAll, git, gitRepo, removeDir, tempDir, writeTree } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir('murmur-contain-');
});
afterEach(async () => {
  await removeDir(dir);
});

const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');

describe("a verifier's changes in an item's worktree", () => {
  it('are put back after its verdict: files, additions, removals, index and HEAD; ignored output stays', async () => {
    gitRepo(dir, { 'a.txt': 'base\n', 'b.txt': 'b\n', '.gitignore': 'dist/\n' });
    // The worker's uncommitted work: an edit, a new file, a staged removal.
    writeTree(dir, { 'a.txt': 'worker\n', 'w.txt': 'new by worker\n' });
    git(dir, 'rm', '-q', 'b.txt');
    const statusBefore = git(dir, 'status', '--porcelain');
    const mark = await markWork(dir);
    expect(mark).toBeDefined();
    // The verifier edits, adds, deletes, stages, commits, and builds into an ignored folder.
    writeTree(dir, { 'a.txt': 'worker\nverifier was here\n', 'v.txt': 'by verifier\n', 'dist/out.js': 'built\n' });
    rmSync(path.join(dir, 'w.txt'));
    commitAll(dir, 'verifier commit');
    const undone = await restoreWork(dir, mark!);
    expect(undone).toEqual(expect.arrayContaining(['HEAD', 'a.txt', 'v.txt', 'w.txt']));
    expect(read('a.txt')).toBe('worker\n');
    expect(existsSync(path.join(dir, 'v.txt'))).toBe(false);
    expect(read('w.txt')).toBe('new by worker\n');
    expect(existsSync(path.join(dir, 'b.txt'))).toBe(false);
    expect(read('dist/out.js')).toBe('built\n');
    expect(git(dir, 'status', '--porcelain')).toBe(statusBefore);
    expect(git(dir, 'log', '--format=%s').trim()).toBe('initial');
  });

  it('a verifier that only read changes nothing', async () => {
    gitRepo(dir, { 'a.txt': 'base\n' });
    writeTree(dir, { 'a.txt': 'worker\n' });
    const mark = await markWork(dir);
    expect(await restoreWork(dir, mark!)).toEqual([]);
    expect(read('a.txt')).toBe('worker\n');
  });
});

describe("an item's seal", () => {
  function place(): SealPlace {
    git(dir, 'worktree', 'add', '-q', '--detach', path.join(dir, 'wt'), 'HEAD');
    return {
      root: dir,
      commonDir: path.join(dir, '.git'),
      worktree: path.join(dir, 'wt'),
      worktreeGitDir: path.join(dir, '.git', 'worktrees', 'wt'),
      ownPrefix: 'murmur/run1/',
    };
  }

  it("names the protected git files and foreign refs that moved, not the run's own branches", async () => {
    gitRepo(dir, { 'a.txt': 'a\n' });
    const p = place();
    git(dir, 'branch', 'murmur/run1/s-1/item-2');
    const seal = await sealItem(p);
    expect(await brokenSeal(seal, p)).toEqual([]);
    writeFileSync(path.join(dir, '.git', 'hooks', 'post-commit'), '#!/bin/sh\ntouch /tmp/pwned\n');
    git(dir, 'config', 'core.fsmonitor', '/tmp/evil');
    writeFileSync(path.join(dir, '.git', 'worktrees', 'wt', 'commondir'), '/elsewhere\n');
    git(dir, 'branch', 'sneaky');
    git(dir, 'branch', '-f', 'murmur/run1/s-1/item-2', 'HEAD');
    writeTree(dir, { 'b.txt': 'b\n' });
    commitAll(dir, 'moves main');
    const broken = await brokenSeal(seal, p);
    expect(broken).toEqual(
      expect.arrayContaining([
        path.join('.git', 'hooks'),
        path.join('.git', 'config'),
        path.join('.git', 'worktrees', 'wt', 'commondir'),
        'refs/heads/sneaky',
        'refs/heads/main',
      ]),
    );
    expect(broken).not.toContain('refs/heads/murmur/run1/s-1/item-2');
  });
});

describe('what a sandboxed command created among the protected paths', () => {
  it('is removed after it; a repository it made keeps its objects but not its config and hooks', () => {
    writeTree(dir, { 'src/a.ts': 'x\n' });
    symlinkSync('dotfiles/bashrc', path.join(dir, '.bashrc'));
    const snapshot = snapshotProtected(protectedPathsIn(dir), [dir]);
    // The command's doing:
    writeTree(dir, { '.mcp.json': '{}', '.vscode/tasks.json': '{}', 'src/b.ts': 'fine\n' });
    git(dir, 'init', '-q');
    writeFileSync(path.join(dir, '.git', 'hooks', 'pre-commit'), 'evil');
    // A protected symlink replaced by a file.
    const bashrc = path.join(dir, '.bashrc');
    rmSync(bashrc);
    writeFileSync(bashrc, 'evil\n');
    const undone = restoreProtected(snapshot, dir);
    expect(undone).toEqual(
      expect.arrayContaining([
        '.mcp.json',
        '.vscode',
        '.bashrc',
        path.join('.git', 'config'),
        path.join('.git', 'hooks'),
      ]),
    );
    expect(existsSync(path.join(dir, '.mcp.json'))).toBe(false);
    expect(existsSync(path.join(dir, '.vscode'))).toBe(false);
    expect(readlinkSync(bashrc)).toBe('dotfiles/bashrc');
    expect(existsSync(path.join(dir, '.git', 'hooks'))).toBe(false);
    expect(existsSync(path.join(dir, '.git', 'objects'))).toBe(true);
    expect(read('src/b.ts')).toBe('fine\n');
  });
});

describe('the protected list', () => {
  it('covers git internals at any depth, murmur and editor configuration, shell start-up files', () => {
    for (const p of [
      'murmur.toml',
      '.mcp.json',
      '.git',
      '.git/config',
      '.git/hooks/pre-commit',
      '.git/info/attributes',
      '.git/modules/lib/config',
      '.git/worktrees/item-1/commondir',
      'sub/.git/hooks/x',
      '.vscode/tasks.json',
      '.idea/workspace.xml',
      '.bashrc',
      '.envrc',
      '.gitmodules',
      '.murmur/agents/a.md',
      'MURMUR.TOML',
    ])
      expect(isProtectedPath(p), p).toBe(true);
    for (const p of [
      'src/a.ts',
      '.git/objects/ab/cd',
      '.git/refs/heads/main',
      '.git/HEAD',
      '.gitignore',
      'docs/.bashrc',
      '.murmur/sessions/x/plans/p.md',
    ])
      expect(isProtectedPath(p), p).toBe(false);
  });
});

describe("a verifier's writable folders", () => {
  it('are the existing git-ignored folders two levels down, from .gitignore and .git/info/exclude', () => {
    mkdirSync(path.join(dir, '.git', 'info'), { recursive: true });
    writeTree(dir, {
      '.gitignore': 'node_modules/\ndist\n*.log\n',
      '.git/info/exclude': '.cache/\n',
      'node_modules/x/index.js': '',
      'dist/a.js': '',
      'src/a.ts': '',
      'packages/p/dist/x.js': '',
      'lib/dist/x.js': '',
      '.cache/y': '',
    });
    expect(ignoredFolders(dir).sort()).toEqual(
      [
        path.join(dir, '.cache'),
        path.join(dir, 'dist'),
        path.join(dir, 'node_modules'),
        path.join(dir, 'lib', 'dist'),
      ].sort(),
    );
  });
});
