// What a sandboxed command may not leave behind: a protected path (tools/fs/protected-paths.ts) that did not exist
// when it started cannot be bound read-only, so it is looked at right after the command (a handful of lstats) and
// whatever the command created there is removed, and a protected symlink it replaced is put back. The command's
// result says what was undone and why.
import { lstatSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { protectedPathsInGitDir } from '../fs/protected-paths.js';

interface Before {
  file: string;
  /** A symlink's target (symlinks are not bound read-only, so they are checked by value). */
  link?: string;
  existed: boolean;
}

export interface ProtectedSnapshot {
  entries: Before[];
  /** Writable roots without a `.git` when the command started: one it makes there loses its config and hooks. */
  roots: { root: string; hadGit: boolean }[];
}

function linkOf(file: string): string | undefined | null {
  try {
    const stat = lstatSync(file);
    return stat.isSymbolicLink() ? readlinkSync(file) : undefined;
  } catch {
    return null;
  }
}

/** What the guarded paths are before a command. */
export function snapshotProtected(guarded: readonly string[], roots: readonly string[]): ProtectedSnapshot {
  const entries: Before[] = [];
  for (const file of guarded) {
    const link = linkOf(file);
    entries.push(
      link === null ? { file, existed: false } : { file, existed: true, ...(link !== undefined ? { link } : {}) },
    );
  }
  return { entries, roots: roots.map((root) => ({ root, hadGit: linkOf(path.join(root, '.git')) !== null })) };
}

function remove(file: string): boolean {
  try {
    rmSync(file, { recursive: true, force: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Undoes what the command did to protected paths; returns the paths (relative to `base` where inside it) it
 * removed or restored, empty when the command touched none.
 */
export function restoreProtected(snapshot: ProtectedSnapshot, base: string): string[] {
  const undone: string[] = [];
  const note = (file: string) => {
    const rel = path.relative(base, file);
    undone.push(rel && !rel.startsWith('..') ? rel : file);
  };
  for (const entry of snapshot.entries) {
    const now = linkOf(entry.file);
    if (!entry.existed) {
      if (now !== null && remove(entry.file)) note(entry.file);
    } else if (entry.link !== undefined && now !== entry.link) {
      // A protected symlink (a dotfile kept elsewhere) that the command replaced: put the link back.
      remove(entry.file);
      try {
        symlinkSync(entry.link, entry.file);
      } catch {
        // Its folder is gone too: nothing more to put back.
      }
      note(entry.file);
    }
  }
  // A repository the command made (`git init`) keeps its objects and refs but not what would run code later.
  for (const { root, hadGit } of snapshot.roots) {
    const dotGit = path.join(root, '.git');
    if (hadGit || linkOf(dotGit) === null) continue;
    let isDir = false;
    try {
      isDir = lstatSync(dotGit).isDirectory();
    } catch {
      continue;
    }
    if (!isDir) {
      if (remove(dotGit)) note(dotGit);
      continue;
    }
    for (const file of protectedPathsInGitDir(dotGit)) if (linkOf(file) !== null && remove(file)) note(file);
  }
  return undone;
}

/** The sentence the command's result gets when something was undone. */
export function undoneNote(undone: readonly string[]): string {
  if (undone.length === 0) return '';
  const list = undone.join(', ');
  return (
    `murmur removed what the command made at ${list}: protected paths (git's hooks and config, murmur's ` +
    'configuration, editor folders, shell start-up files) cannot be created or changed from the sandbox, because ' +
    'code there would run outside it. Ask the user to make that change.'
  );
}
