// An item's work as git sees it, for the merge that git decides: its changes as one patch (its untracked files and
// its own commits included), applied to the main working tree all or nothing, and committed on its worktree's HEAD
// when they do not apply (the item's branch keeps them for a person).
import { rmSync } from 'node:fs';
import { git } from './git.js';

const COMMITTER = ['-c', 'user.name=murmur', '-c', 'user.email=murmur@localhost', '-c', 'commit.gpgsign=false'];

export type ItemPatch = { ok: true; patch: string; files: number } | { ok: false; reason: string };

/** Everything the worktree holds beyond `from` (staged first, so new files count), as a binary patch. */
export async function itemPatch(worktree: string, from: string): Promise<ItemPatch> {
  await git(worktree, ['add', '-A']);
  const diff = await git(worktree, ['diff', '--cached', '--binary', '--no-color', from]);
  if (!diff.ok) return { ok: false, reason: `cannot read the item's changes: ${diff.stderr.trim()}` };
  return { ok: true, patch: diff.stdout, files: diff.stdout.match(/^diff --git /gm)?.length ?? 0 };
}

/**
 * The patch of `files` only (relative to the worktree's top) against `from`, through a scratch index at `index`:
 * git reads those files and no other, so a worktree without the rest (lazy-worktree.ts) needs none of them.
 */
export async function filesPatch(
  worktree: string,
  from: string,
  files: readonly string[],
  index: string,
): Promise<ItemPatch> {
  const env = { GIT_INDEX_FILE: index };
  try {
    const read = await git(worktree, ['read-tree', from], undefined, { env });
    const listed = `${files.join('\0')}\0`;
    const added = read.ok ? await git(worktree, ['update-index', '--add', '-z', '--stdin'], listed, { env }) : read;
    if (!added.ok) return { ok: false, reason: `cannot read the item's files: ${added.stderr.trim()}` };
    const diff = await git(worktree, ['diff', '--cached', '--binary', '--no-color', from], undefined, { env });
    if (!diff.ok) return { ok: false, reason: `cannot read the item's changes: ${diff.stderr.trim()}` };
    return { ok: true, patch: diff.stdout, files: diff.stdout.match(/^diff --git /gm)?.length ?? 0 };
  } finally {
    rmSync(index, { force: true });
  }
}

/**
 * Applies the patch to the working tree at `root` (inside the repository's merge queue): true, or why it does not
 * apply. `mayBeApplied` (a resumed item: a crash may have come between the apply and the state saying so) asks
 * first whether the tree has it all already — a patch that only adds lines would apply forward a second time.
 */
export async function applyPatch(root: string, patch: string, mayBeApplied: boolean): Promise<true | string> {
  if (mayBeApplied) {
    const already = await git(root, ['apply', '--check', '--reverse', '--whitespace=nowarn', '-'], patch);
    if (already.ok) return true;
  }
  // git apply is all or nothing: a hunk that does not apply leaves the working tree as it was.
  const applied = await git(root, ['apply', '--whitespace=nowarn', '-'], patch);
  if (applied.ok) return true;
  return `its changes do not apply to the working tree: ${applied.stderr.trim().split('\n')[0] ?? 'conflict'}`;
}

/** Commits what the worktree holds on its HEAD; true when committed or nothing was left to commit, else why not. */
export async function commitWork(worktree: string, item: string): Promise<true | string> {
  const commit = await git(worktree, [...COMMITTER, 'commit', '-q', '--no-verify', '-m', `murmur swarm: ${item}`]);
  if (commit.ok || /nothing to commit|nothing added/.test(`${commit.stdout}${commit.stderr}`)) return true;
  return commit.stderr.trim();
}

/** Renames `branch` to the first free `<branch>-<suffix>[-N]` (call it inside the merge queue); the name it has now. */
export async function renameAside(root: string, branch: string, suffix: string): Promise<string> {
  for (let n = 1; ; n++) {
    const aside = `${branch}-${suffix}${n === 1 ? '' : `-${n}`}`;
    const taken = await git(root, ['rev-parse', '--verify', '-q', `refs/heads/${aside}`]);
    if (taken.ok) continue;
    const moved = await git(root, ['branch', '-m', branch, aside]);
    return moved.ok ? aside : branch;
  }
}

/**
 * Whether the worktree holds work beyond its fork point: changes, committed or not. Anything unclear (git failing)
 * counts as work: keeping too much is cheap, losing work is not.
 */
export async function holdsWork(worktree: string, forkPoint: () => Promise<string>): Promise<boolean> {
  const status = await git(worktree, ['status', '--porcelain', '--untracked-files=all']);
  if (!status.ok || status.stdout.trim() !== '') return true;
  // A worker may commit on its own: its commits change something against where it started.
  return (await git(worktree, ['diff', '--quiet', await forkPoint(), 'HEAD'])).exitCode !== 0;
}
