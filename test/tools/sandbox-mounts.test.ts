// The sandbox's mount plan, without bwrap: what an agent's command may write, what is hidden and in which order
// (a later mount covers an earlier one, so secrets are hidden after the workspace that may hold them is mounted,
// and a worktree under murmur's hidden state folder gets its own folder back).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bwrapArguments, type SandboxInput, sandboxMounts, worktreeCommonDir } from '../../tools/shell/sandbox.js';
import type { ShellSandbox } from '../../tools/adapters.js';
import { removeDir, tempDir } from '../swarm/helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir('murmur-sandbox-plan-');
});
afterEach(async () => {
  await removeDir(dir);
});

function folder(...parts: string[]): string {
  const made = path.join(dir, ...parts);
  mkdirSync(made, { recursive: true });
  return made;
}

function sandboxFor(root: string, extra: Partial<ShellSandbox> = {}): ShellSandbox {
  return {
    bwrap: '/usr/bin/bwrap',
    network: false,
    runRoot: root,
    stateDirs: [path.join(root, '.murmur')],
    readable: [path.join(root, '.murmur', 'skills')],
    ...extra,
  };
}

/** The plan for an agent whose workspace (and working folder) is `root`, in the run whose workspace is `runRoot`. */
function planFor(root: string, runRoot: string, extra: Partial<SandboxInput> = {}) {
  return sandboxMounts({
    sandbox: sandboxFor(runRoot),
    root,
    extraRoots: [],
    cwd: root,
    home: undefined,
    runtimeDir: undefined,
    ...extra,
  });
}

describe('the sandbox mount plan', () => {
  it('a workspace that is also the home folder: its secrets and state are hidden after it is mounted', () => {
    const ws = folder('ws');
    folder('ws', '.ssh');
    folder('ws', '.murmur', 'skills');
    writeFileSync(path.join(ws, '.netrc'), 'machine x password y\n');
    const plan = planFor(ws, ws, { home: ws });
    expect(plan.mounts).toEqual([
      { kind: 'bind', path: ws },
      { kind: 'hide-dir', path: path.join(ws, '.ssh') },
      { kind: 'hide-dir', path: path.join(ws, '.murmur') },
      { kind: 'hide-file', path: path.join(ws, '.netrc') },
      { kind: 'ro-bind', path: path.join(ws, '.murmur', 'skills') },
    ]);
  });

  it("a worktree agent: the run's workspace read-only, its worktree, the objects and its own git folder writable", () => {
    const ws = folder('repo');
    folder('repo', '.git', 'worktrees', 'item-1');
    writeFileSync(path.join(ws, '.git', 'worktrees', 'item-1', 'commondir'), '../..\n');
    const worktree = folder('repo', '.murmur', 'sessions', 's1', 'worktrees', 'w', 'item-1');
    writeFileSync(path.join(worktree, '.git'), `gitdir: ${path.join(ws, '.git', 'worktrees', 'item-1')}\n`);
    expect(worktreeCommonDir(worktree)).toBe(path.join(ws, '.git'));
    const plan = planFor(worktree, ws, {
      lease: {
        variables: { MURMUR_TOOLS_LEASE: 't', MURMUR_TOOLS_ENDPOINT: '/tmp/murmur-tools-x/agents/a.sock' },
        binDir: '/tmp/murmur-tools-x/bin',
      },
    });
    const gitDir = path.join(ws, '.git', 'worktrees', 'item-1');
    expect(plan.mounts).toEqual([
      { kind: 'ro-bind', path: ws },
      { kind: 'bind', path: worktree },
      // Its own worktree git folder (HEAD, index), not the repository's refs, config or hooks.
      { kind: 'bind', path: gitDir },
      { kind: 'hide-dir', path: path.join(ws, '.murmur') },
      { kind: 'bind', path: worktree },
      // How git finds the repository from the worktree stays as murmur made it.
      { kind: 'ro-bind', path: path.join(worktree, '.git') },
      { kind: 'ro-bind', path: path.join(gitDir, 'commondir') },
      { kind: 'hide-dir', path: '/tmp/murmur-tools-x' },
      { kind: 'ro-bind', path: '/tmp/murmur-tools-x/bin' },
      { kind: 'ro-bind', path: '/tmp/murmur-tools-x/murmur-tools.cjs' },
      { kind: 'bind', path: '/tmp/murmur-tools-x/agents/a.sock' },
    ]);
  });

  it('protected paths in a writable repository are read-only, and the folders above them pinned', () => {
    const ws = folder('repo');
    folder('repo', '.git', 'hooks');
    folder('repo', '.git', 'objects');
    folder('repo', '.git', 'modules', 'lib', 'hooks');
    folder('repo', '.vscode');
    writeFileSync(path.join(ws, '.git', 'config'), '[core]\n');
    writeFileSync(path.join(ws, '.git', 'modules', 'lib', 'config'), '[core]\n');
    writeFileSync(path.join(ws, 'murmur.toml'), '');
    writeFileSync(path.join(ws, '.bashrc'), '');
    const plan = planFor(ws, ws);
    const git = path.join(ws, '.git');
    expect(plan.mounts).toEqual([
      { kind: 'bind', path: ws },
      { kind: 'bind', path: git },
      { kind: 'bind', path: path.join(git, 'modules') },
      { kind: 'bind', path: path.join(git, 'modules', 'lib') },
      { kind: 'ro-bind', path: path.join(ws, 'murmur.toml') },
      { kind: 'ro-bind', path: path.join(ws, '.vscode') },
      { kind: 'ro-bind', path: path.join(ws, '.bashrc') },
      { kind: 'ro-bind', path: path.join(git, 'config') },
      { kind: 'ro-bind', path: path.join(git, 'hooks') },
      { kind: 'ro-bind', path: path.join(git, 'modules', 'lib', 'config') },
      { kind: 'ro-bind', path: path.join(git, 'modules', 'lib', 'hooks') },
    ]);
    // Those that do not exist yet are still watched (removed after a command that makes them).
    expect(plan.guarded).toContain(path.join(ws, '.mcp.json'));
    expect(plan.guarded).toContain(path.join(git, 'info'));
  });

  it("a verifier's workspace: read-only but for its existing git-ignored folders", () => {
    const ws = folder('ws');
    const modules = folder('ws', 'node_modules');
    const plan = planFor(ws, ws, {
      readOnlyRoot: true,
      ignoredFolders: [modules, path.join(ws, 'dist'), path.join(ws, '.vscode')],
    });
    expect(plan.mounts).toEqual([
      { kind: 'ro-bind', path: ws },
      { kind: 'bind', path: modules },
    ]);
  });

  it("bwrap's arguments: own PID namespace, no network unless allowed, private /tmp, then the mounts in order", () => {
    const args = bwrapArguments({
      mounts: [
        { kind: 'bind', path: '/w' },
        { kind: 'hide-dir', path: '/w/.murmur' },
        { kind: 'hide-file', path: '/h/.netrc' },
      ],
      cwd: '/w/src',
      network: false,
    });
    expect(args).toContain('--unshare-pid');
    expect(args).toContain('--unshare-net');
    expect(args).toContain('--die-with-parent');
    // Root outside is no one inside: a user namespace without capabilities, no nested namespaces, a new session.
    expect(args.slice(0, 6)).toEqual([
      '--unshare-user',
      '--cap-drop',
      'ALL',
      '--disable-userns',
      '--new-session',
      '--die-with-parent',
    ]);
    expect(args.join(' ')).toContain(
      '--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind /w /w --tmpfs /w/.murmur --ro-bind /dev/null /h/.netrc --chdir /w/src --',
    );
    expect(bwrapArguments({ mounts: [], cwd: '/', network: true })).not.toContain('--unshare-net');
  });
});
