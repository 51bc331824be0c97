// The sandbox an agent's bash command runs in (Linux, bubblewrap): the agent's workspace writable (or its swarm
// worktree, with the repository's objects and its own worktree git folder), the rest of the file system read-only,
// the protected paths inside writable folders (git's config and hooks, murmur's configuration, editor folders,
// shell start-up files) read-only too, murmur's own state and the usual secret folders not there at all, a private
// /tmp, its own user namespace without capabilities, its own PID namespace (no sibling's /proc/<pid>/environ to
// read) and, unless allowed, no network. Only the agent's own murmur-tools endpoint is bound in. `sandboxMounts`
// gathers what exists on disk; `bwrapArguments` is the pure translation to bwrap's argv.
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ShellBridgeLease, ShellSandbox } from '../adapters.js';
import { gitDirOf, isProtectedPath, protectedPathsIn, protectedPathsInGitDir } from '../fs/protected-paths.js';
import { isInside } from '../fs/workspace-paths.js';

/** Folders and files under the home folder that hold credentials: never mounted in the sandbox. */
export const HOME_SECRETS: readonly string[] = [
  '.ssh',
  '.aws',
  '.azure',
  '.gnupg',
  '.kube',
  '.docker',
  '.murmur',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.pgpass',
  '.git-credentials',
];

/** Sockets that would hand a command the machine (connecting to a socket needs no write access to its mount). */
const HOST_SOCKETS: readonly string[] = ['/var/run/docker.sock', '/run/docker.sock', '/run/podman/podman.sock'];

/** One step of the sandbox's file system, applied in order (a later step mounts over an earlier one). */
export type Mount =
  | { kind: 'bind'; path: string }
  | { kind: 'ro-bind'; path: string }
  | { kind: 'hide-dir'; path: string }
  | { kind: 'hide-file'; path: string };

export interface SandboxMounts {
  mounts: Mount[];
  /** Where the command starts. */
  cwd: string;
  network: boolean;
  /** The protected paths a command could otherwise reach (read-only where they exist; checked after it). */
  guarded: string[];
}

/** What the sandbox is made from: the run's sandbox, the agent's roots, and its murmur-tools lease if any. */
export interface SandboxInput {
  sandbox: ShellSandbox;
  /** The agent's workspace root (its worktree in a swarm). */
  root: string;
  /** Further roots the configuration lets the agent change. */
  extraRoots: readonly string[];
  cwd: string;
  home: string | undefined;
  /** The user's runtime folder (XDG_RUNTIME_DIR): session buses and agents' sockets. */
  runtimeDir: string | undefined;
  lease?: ShellBridgeLease | undefined;
  /** A verifier's command: the root read-only but for `ignoredFolders`. */
  readOnlyRoot?: boolean;
  /** The root's git-ignored folders (absolute), writable for a verifier. */
  ignoredFolders?: readonly string[];
}

function isDir(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The repository folder a worktree commits into (its `.git` is a file naming `<repo>/.git/worktrees/<name>`, whose
 * `commondir` leads back to `<repo>/.git`); undefined for a plain repository or none.
 */
export function worktreeCommonDir(root: string): string | undefined {
  const dotGit = path.join(root, '.git');
  const gitDir = gitDirOf(dotGit);
  if (gitDir === undefined || gitDir === dotGit) return undefined;
  try {
    return path.resolve(gitDir, readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    return gitDir;
  }
}

/** A worktree's git folders: its own (`<common>/worktrees/<name>`) and the repository's common one. */
interface WorktreeGit {
  gitDir: string;
  commonDir: string;
}

function worktreeGit(root: string): WorktreeGit | undefined {
  const commonDir = worktreeCommonDir(root);
  const gitDir = gitDirOf(path.join(root, '.git'));
  if (!commonDir || !gitDir || gitDir === commonDir || !isDir(commonDir)) return undefined;
  return { gitDir, commonDir };
}

/**
 * The protected paths (tools/fs/protected-paths.ts) a command could otherwise change: those of each writable root,
 * and of a worktree's own git folder; none under a hidden folder (unless the root itself lies there, as a worktree
 * under .murmur/ does).
 */
export function guardedPaths(
  roots: readonly string[],
  worktree: WorktreeGit | undefined,
  hidden: readonly string[],
): string[] {
  const out = new Set<string>();
  const add = (file: string, folder: string) => {
    if (hidden.some((dir) => isInside(dir, file) && !isInside(dir, folder))) return;
    out.add(file);
  };
  for (const root of roots) for (const file of protectedPathsIn(root)) add(file, root);
  if (worktree)
    for (const file of protectedPathsInGitDir(worktree.commonDir))
      if (isInside(worktree.gitDir, file) && file !== worktree.gitDir) add(file, worktree.gitDir);
  return [...out];
}

/**
 * Folders between a writable folder and a protected path, bound onto themselves: a mount point cannot be renamed,
 * so a command cannot move `.git` aside (its read-only config and hooks with it) and put a planted one in its place.
 */
function pinnedAncestors(writable: readonly string[], files: readonly string[]): string[] {
  const out = new Set<string>();
  for (const file of files) {
    const root = writable.filter((w) => isInside(w, file)).sort((a, b) => b.length - a.length)[0];
    if (!root) continue;
    for (let dir = path.dirname(file); dir !== root && isInside(root, dir); dir = path.dirname(dir)) {
      if (isDir(dir)) out.add(dir);
    }
  }
  return [...out].sort((a, b) => a.length - b.length);
}

/** The sandbox's mounts for one command, from what exists on disk now. */
export function sandboxMounts(input: SandboxInput): SandboxMounts {
  const { sandbox, root, lease } = input;
  const mounts: Mount[] = [];
  // A worktree agent sees the run's workspace (read-only: the private /tmp may have covered it) and writes only
  // its worktree, the repository's objects and its worktree's own git folder (HEAD, index, logs): never refs,
  // config or hooks. Its worktree is on a detached HEAD, so its commits move only that HEAD.
  if (root !== sandbox.runRoot) mounts.push({ kind: 'ro-bind', path: sandbox.runRoot });
  const extra = input.extraRoots.filter(isDir);
  const worktree = worktreeGit(root);
  const gitBinds = worktree ? [path.join(worktree.commonDir, 'objects'), worktree.gitDir].filter(isDir) : [];
  // A verifier checks the work without changing it: its workspace is read-only but for the git-ignored folders
  // (build output, caches) that its test runs write.
  const readOnly = input.readOnlyRoot === true;
  const ignored = readOnly
    ? (input.ignoredFolders ?? []).filter(
        (dir) => isDir(dir) && isInside(root, dir) && !isProtectedPath(path.relative(root, dir)),
      )
    : [];
  const roots = readOnly ? extra : [root, ...extra];
  if (readOnly) mounts.push({ kind: 'ro-bind', path: root });
  const writable = readOnly ? [...ignored, ...extra] : [...roots, ...gitBinds];
  for (const folder of writable) mounts.push({ kind: 'bind', path: folder });
  // Hidden after the workspace is mounted, so a workspace holding them (the home folder itself) cannot show them.
  const hidden: string[] = [];
  const hide = (file: string) => {
    if (hidden.includes(file) || !existsSync(file)) return;
    hidden.push(file);
    mounts.push(isDir(file) ? { kind: 'hide-dir', path: file } : { kind: 'hide-file', path: file });
  };
  if (input.home) for (const name of HOME_SECRETS) hide(path.join(input.home, name));
  if (input.runtimeDir) hide(input.runtimeDir);
  for (const socket of HOST_SOCKETS) hide(socket);
  // murmur's state (sessions, agent files, other agents' worktrees): out of reach, even where the workspace holds it.
  for (const dir of sandbox.stateDirs) hide(dir);
  for (const folder of sandbox.readable) if (isDir(folder)) mounts.push({ kind: 'ro-bind', path: folder });
  // An agent working inside a hidden folder (its worktree under .murmur/) gets its own folders back.
  const underHidden = (folder: string) => hidden.some((dir) => dir !== folder && isInside(dir, folder));
  if (readOnly && underHidden(root)) mounts.push({ kind: 'ro-bind', path: root });
  for (const folder of writable) if (underHidden(folder)) mounts.push({ kind: 'bind', path: folder });
  // Protected paths that exist are read-only, their folders pinned first; what a command creates among them is
  // removed after it (sandbox-guard.ts). A symlink is left to that check: binding it would bind its target.
  const guarded = guardedPaths(roots, readOnly ? undefined : worktree, hidden);
  for (const dir of pinnedAncestors(writable, guarded)) mounts.push({ kind: 'bind', path: dir });
  for (const file of guarded) {
    let link: boolean;
    try {
      link = lstatSync(file).isSymbolicLink();
    } catch {
      continue;
    }
    if (!link) mounts.push({ kind: 'ro-bind', path: file });
  }
  if (lease) {
    // The lease folder holds every agent's endpoint: only this agent's, the command and its launcher come in.
    const endpoint = lease.variables.MURMUR_TOOLS_ENDPOINT;
    const folder = path.dirname(lease.binDir);
    mounts.push({ kind: 'hide-dir', path: folder });
    mounts.push({ kind: 'ro-bind', path: lease.binDir });
    mounts.push({ kind: 'ro-bind', path: path.join(folder, 'murmur-tools.cjs') });
    if (endpoint) mounts.push({ kind: 'bind', path: endpoint });
  }
  return { mounts, cwd: input.cwd, network: sandbox.network, guarded };
}

/** bubblewrap's arguments for the mounts, up to (not including) the command itself. */
export function bwrapArguments(plan: Pick<SandboxMounts, 'mounts' | 'cwd' | 'network'>): string[] {
  const args = [
    // Its own user namespace with every capability dropped and no way to make another: root outside is no one
    // special inside (no remount, no umount of /proc or /tmp, no nsenter). A new session: no terminal injection.
    '--unshare-user',
    '--cap-drop',
    'ALL',
    '--disable-userns',
    '--new-session',
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(plan.network ? [] : ['--unshare-net']),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
  ];
  for (const mount of plan.mounts) {
    switch (mount.kind) {
      case 'bind':
        args.push('--bind', mount.path, mount.path);
        break;
      case 'ro-bind':
        args.push('--ro-bind', mount.path, mount.path);
        break;
      case 'hide-dir':
        args.push('--tmpfs', mount.path);
        break;
      case 'hide-file':
        args.push('--ro-bind', '/dev/null', mount.path);
        break;
    }
  }
  args.push('--chdir', plan.cwd, '--');
  return args;
}
