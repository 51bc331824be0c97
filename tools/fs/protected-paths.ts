// Protected paths: files inside a writable root that make code run outside an agent's reach — git's hooks and
// configuration, murmur's own configuration (MCP servers, agents, skills), editor folders that run tasks when a
// project opens, shell start-up files. The one list that the sandbox (read-only binds, and removal of what a command
// created), the file tools' permission check (a person is asked in every mode) and the swarm's check after each
// item all read.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Entries at the top of a writable root (a workspace, a worktree, an extra root), by what they steer. Folders end with `/`. */
const IN_ROOT_BY_KIND = {
  murmur: ['murmur.toml', '.mcp.json', '.murmur/agents/', '.murmur/skills/'],
  git: ['.gitmodules', '.gitconfig'],
  'the editor': ['.vscode/', '.idea/'],
  'the shell': [
    '.bashrc',
    '.bash_profile',
    '.bash_login',
    '.bash_logout',
    '.profile',
    '.zshrc',
    '.zshenv',
    '.zprofile',
    '.zlogin',
    '.envrc',
  ],
} as const;

/** What a protected path makes run when it changes: the next run of murmur, git, the editor, a shell. */
export type ProtectedKind = keyof typeof IN_ROOT_BY_KIND;

export const PROTECTED_IN_ROOT: readonly string[] = Object.values(IN_ROOT_BY_KIND).flat();

/**
 * Entries inside a git directory (a repository's `.git`, or the common folder of its worktrees): what git reads to
 * decide which commands to run (config, hooks, attributes and excludes in info/), and how a worktree finds its
 * repository (commondir, gitdir). `*` is one folder name. Objects, refs, the index and HEAD stay writable.
 */
export const PROTECTED_IN_GIT_DIR: readonly string[] = [
  'config',
  'config.worktree',
  'hooks/',
  'info/',
  'modules/*/config',
  'modules/*/config.worktree',
  'modules/*/hooks/',
  'modules/*/info/',
  'worktrees/*/config.worktree',
  'worktrees/*/commondir',
  'worktrees/*/gitdir',
];

function entryRegex(entry: string): string {
  const folder = entry.endsWith('/');
  const body = (folder ? entry.slice(0, -1) : entry)
    .split('*')
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return folder ? `${body}(?:/.*)?` : body;
}

// Case-insensitive: on macOS and Windows `MURMUR.TOML` is murmur.toml; on Linux asking once too often is harmless.
const listRegex = (entries: readonly string[]) => new RegExp(`^(?:${entries.map(entryRegex).join('|')})$`, 'i');
const IN_ROOT = listRegex(PROTECTED_IN_ROOT);
const KINDS = Object.entries(IN_ROOT_BY_KIND).map(([kind, entries]) => ({
  kind: kind as ProtectedKind,
  regex: listRegex(entries),
}));
const IN_GIT_DIR = listRegex(PROTECTED_IN_GIT_DIR);
/** murmur's state folder: everything but an agent's plan files steers a later run. */
const MURMUR_STATE = /^\.murmur\/(?!sessions\/[^/]+\/plans\/|plans\/).*$/i;

/**
 * Whether a path relative to a writable root (forward slashes) is protected. Git's internals count under any `.git`
 * folder at any depth (a nested repository's hooks run as well as the top one's), and so does a worktree's `.git`
 * pointer file itself; a `.git` folder as a whole is protected when written as one path (replacing it replaces all).
 */
export function isProtectedPath(relative: string | undefined): boolean {
  return protectedKind(relative) !== undefined;
}

/** What a protected path (see isProtectedPath) steers; undefined when it is not protected. */
export function protectedKind(relative: string | undefined): ProtectedKind | undefined {
  if (relative === undefined) return undefined;
  const rel = relative
    .replace(/\\/g, '/')
    .replace(/^\.\/+/, '')
    .replace(/\/+$/, '');
  if (rel === '' || rel === '.' || rel.startsWith('../')) return undefined;
  if (MURMUR_STATE.test(rel)) return 'murmur';
  if (IN_ROOT.test(rel)) return KINDS.find(({ regex }) => regex.test(rel))!.kind;
  const parts = rel.split('/');
  const git = parts.findIndex((part) => part.toLowerCase() === '.git');
  if (git < 0) return undefined;
  return git === parts.length - 1 || IN_GIT_DIR.test(parts.slice(git + 1).join('/')) ? 'git' : undefined;
}

/** Names in `dir` that are folders; none when it cannot be read. */
function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return [];
  }
}

/** The entries of a list made concrete under `base`: each `*` becomes every existing folder name there. */
function expand(base: string, entries: readonly string[]): string[] {
  const out: string[] = [];
  for (const entry of entries) {
    const clean = entry.endsWith('/') ? entry.slice(0, -1) : entry;
    let paths = [base];
    for (const part of clean.split('/')) {
      paths =
        part === '*'
          ? paths.flatMap((p) => subfolders(p).map((n) => path.join(p, n)))
          : paths.map((p) => path.join(p, part));
    }
    out.push(...paths);
  }
  return out;
}

/** The git directory of a `.git` entry: the folder itself, or the one a worktree's pointer file names. */
export function gitDirOf(dotGit: string): string | undefined {
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
    return match ? path.resolve(path.dirname(dotGit), match[1]!.trim()) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every protected path under a writable root, made concrete (absolute; existing or not): the root's entries, its
 * `.git` pointer file when it is a worktree, and the entries of its own git directory when that is a folder in it
 * (each `*` expanded to the folders there now).
 */
export function protectedPathsIn(root: string): string[] {
  const paths = expand(root, PROTECTED_IN_ROOT);
  const dotGit = path.join(root, '.git');
  try {
    if (statSync(dotGit).isDirectory()) paths.push(...protectedPathsInGitDir(dotGit));
    else paths.push(dotGit);
  } catch {
    // No repository here (yet): the sandbox's check looks at a `.git` a command makes (sandbox-guard.ts).
  }
  return paths;
}

/** The protected paths inside one git directory (absolute; existing or not). */
export function protectedPathsInGitDir(gitDir: string): string[] {
  return expand(gitDir, PROTECTED_IN_GIT_DIR);
}
