// The sandbox an agent's bash command runs in (Linux, bubblewrap): the agent's workspace writable (or its swarm
// worktree, and the main repository's .git that the worktree commits into), the rest of the file system read-only,
// murmur's own state and the usual secret folders not there at all, a private /tmp, its own PID namespace (no
// sibling's /proc/<pid>/environ to read) and, unless allowed, no network. Only the agent's own murmur-tools endpoint
// is bound in. `sandboxMounts` gathers what exists on disk; `bwrapArguments` is the pure translation to bwrap's argv.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ShellBridgeLease, ShellSandbox } from '../adapters.js';
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
  let pointer: string;
  try {
    pointer = readFileSync(path.join(root, '.git'), 'utf8');
  } catch {
    return undefined;
  }
  const match = /^gitdir:\s*(.+)$/m.exec(pointer);
  if (!match) return undefined;
  const gitDir = path.resolve(root, match[1]!.trim());
  try {
    return path.resolve(gitDir, readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    return gitDir;
  }
}

/** The sandbox's mounts for one command, from what exists on disk now. */
export function sandboxMounts(input: SandboxInput): SandboxMounts {
  const { sandbox, root, lease } = input;
  const mounts: Mount[] = [];
  // A worktree agent sees the run's workspace (read-only: the private /tmp may have covered it) and writes only
  // its worktree and the repository's .git.
  if (root !== sandbox.runRoot) mounts.push({ kind: 'ro-bind', path: sandbox.runRoot });
  const writable = [root, ...input.extraRoots.filter(isDir)];
  const commonDir = worktreeCommonDir(root);
  if (commonDir && isDir(commonDir)) writable.push(commonDir);
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
  for (const folder of writable)
    if (hidden.some((dir) => dir !== folder && isInside(dir, folder))) mounts.push({ kind: 'bind', path: folder });
  if (lease) {
    // The lease folder holds every agent's endpoint: only this agent's, the command and its launcher come in.
    const endpoint = lease.variables.MURMUR_TOOLS_ENDPOINT;
    const folder = path.dirname(lease.binDir);
    mounts.push({ kind: 'hide-dir', path: folder });
    mounts.push({ kind: 'ro-bind', path: lease.binDir });
    mounts.push({ kind: 'ro-bind', path: path.join(folder, 'murmur-tools.cjs') });
    if (endpoint) mounts.push({ kind: 'bind', path: endpoint });
  }
  return { mounts, cwd: input.cwd, network: sandbox.network };
}

/** bubblewrap's arguments for the mounts, up to (not including) the command itself. */
export function bwrapArguments(plan: SandboxMounts): string[] {
  const args = [
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
