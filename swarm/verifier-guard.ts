// A verifier never changes the work it checks. In an item's own worktree (nobody else writes there) the state a
// verifier starts from — tracked files and untracked ones that are not ignored, the index and HEAD — is recorded
// as a git tree, and after its verdict whatever it changed is put back and named. Ignored files (build output,
// caches) are left as the verifier's test runs made them.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { git } from './git.js';

export interface WorkMark {
  head: string;
  /** The worktree's files as a tree object (tracked + untracked-not-ignored). */
  tree: string;
  /** A copy of the real index, put back after the verifier. */
  indexCopy: string;
  folder: string;
}

async function indexFile(worktree: string): Promise<string | undefined> {
  const found = await git(worktree, ['rev-parse', '--path-format=absolute', '--git-path', 'index']);
  return found.ok ? found.stdout.trim() : undefined;
}

/** The worktree's files as a tree, through a copy of its index (only changed files are hashed again). */
async function treeOf(worktree: string, index: string, scratch: string): Promise<string | undefined> {
  try {
    copyFileSync(index, scratch);
  } catch {
    // No index yet: git builds one.
  }
  const env = { GIT_INDEX_FILE: scratch };
  const added = await git(worktree, ['add', '-A', '--', '.'], undefined, { env });
  if (!added.ok) return undefined;
  const written = await git(worktree, ['write-tree'], undefined, { env });
  return written.ok ? written.stdout.trim() : undefined;
}

/**
 * Records the worktree (its top folder: paths below are relative to it) before a verifier runs; undefined when git
 * cannot (the verifier then runs unguarded).
 */
export async function markWork(worktree: string): Promise<WorkMark | undefined> {
  const index = await indexFile(worktree);
  const head = await git(worktree, ['rev-parse', '--verify', '-q', 'HEAD']);
  if (!index || !head.ok) return undefined;
  const folder = mkdtempSync(path.join(tmpdir(), 'murmur-verify-'));
  const tree = await treeOf(worktree, index, path.join(folder, 'mark-index'));
  if (!tree) {
    rmSync(folder, { recursive: true, force: true });
    return undefined;
  }
  const indexCopy = path.join(folder, 'real-index');
  try {
    copyFileSync(index, indexCopy);
  } catch {
    // Nothing to put back.
  }
  return { head: head.stdout.trim(), tree, indexCopy, folder };
}

/**
 * Puts the worktree back as `mark` recorded it; returns the paths (relative to the worktree's top) the verifier had
 * changed, added or removed, empty when none.
 */
export async function restoreWork(worktree: string, mark: WorkMark): Promise<string[]> {
  try {
    const index = await indexFile(worktree);
    if (!index) return [];
    const now = await treeOf(worktree, index, path.join(mark.folder, 'now-index'));
    const head = await git(worktree, ['rev-parse', '--verify', '-q', 'HEAD']);
    const changed: string[] = [];
    if (head.stdout.trim() !== mark.head) {
      await git(worktree, ['reset', '-q', '--soft', mark.head]);
      changed.push('HEAD');
    }
    if (now && now !== mark.tree) {
      const diff = await git(worktree, ['diff-tree', '-r', '--no-renames', '--name-status', '-z', mark.tree, now]);
      const fields = diff.stdout.split('\0').filter(Boolean);
      const restore: string[] = [];
      for (let i = 0; i + 1 < fields.length; i += 2) {
        const status = fields[i]!;
        const file = fields[i + 1]!;
        changed.push(file);
        if (status === 'A') rmSync(path.join(worktree, file), { force: true, recursive: true });
        else restore.push(file);
      }
      if (restore.length > 0) {
        const env = { GIT_INDEX_FILE: path.join(mark.folder, 'restore-index') };
        await git(worktree, ['read-tree', mark.tree], undefined, { env });
        await git(worktree, ['checkout-index', '-f', '-z', '--stdin'], `${restore.join('\0')}\0`, { env });
      }
    }
    try {
      copyFileSync(mark.indexCopy, index);
    } catch {
      // The index had not been written before the verifier: git makes it again.
    }
    return changed;
  } finally {
    rmSync(mark.folder, { recursive: true, force: true });
  }
}
