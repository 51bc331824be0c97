// The merge of an item whose changed files are known (its worker used file tools only: touched-files.ts), without
// a git process: each changed file lands in the working tree when the tree still has the base's version there, and
// is then put back to the base in the item's worktree, which can go to the next item as it is. When that cannot be
// told for every file (the working tree moved on there, a file is not a plain file, the base cannot be read),
// nothing is written and git's diff and apply decide as always.
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { BaseBlobs } from './base-blobs.js';

/** One file the item changed: the base's bytes and the item's (null: no file). */
export interface TouchedChange {
  rel: string;
  base: Buffer | null;
  now: Buffer | null;
}

/** The files (absolute) as paths inside the worktree, or undefined when one is outside it or in its git folder. */
export function insideWorktree(worktree: string, touched: readonly string[]): string[] | undefined {
  const files: string[] = [];
  for (const file of new Set(touched)) {
    const rel = relative(worktree, file);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep)[0] === '.git') return undefined;
    files.push(rel);
  }
  return files;
}

/**
 * Writes the item's changed files into the working tree at `root` (call it inside the repository's merge queue).
 * Returns what changed ([] when nothing did), or undefined, with nothing written, when git must decide.
 */
export async function applyTouched(
  root: string,
  worktree: string,
  files: readonly string[],
  blobs: BaseBlobs,
  /** Move each changed file out of the worktree rather than copy it (a lazy worktree: then it is the base's again). */
  move = false,
): Promise<TouchedChange[] | undefined> {
  const changes: (TouchedChange & { mode: number })[] = [];
  for (const rel of files) {
    const base = await blobs.read(rel.split(sep).join('/'));
    const now = plainFile(join(worktree, rel));
    const here = plainFile(join(root, rel));
    if (base === undefined || now === undefined || here === undefined) return undefined;
    if (sameBytes(now.bytes, base)) continue;
    if (!sameBytes(here.bytes, base)) return undefined;
    changes.push({ rel, base, now: now.bytes, mode: now.mode });
  }
  for (const { rel, now, mode } of changes) {
    const target = join(root, rel);
    if (now === null) rmSync(target, { force: true });
    else {
      // Only when missing: a mkdir of a folder that is there waits on the folder's lock like a write would.
      if (!existsSync(dirname(target))) mkdirSync(dirname(target), { recursive: true });
      if (move) moveFile(join(worktree, rel), target, now, mode);
      // As git apply writes: atomically, without waiting for the disk (fsync) on every file.
      else writeFileAtomic.sync(target, now, existsSync(target) ? { fsync: false } : { mode, fsync: false });
    }
  }
  // A new file's folders may be new too (a changed file's are the base's).
  for (const { rel, base } of changes)
    if (move && base === null) removeEmptyFolders(dirname(join(worktree, rel)), worktree);
  return changes;
}

/** One rename when both folders are on one disk (atomic, and no bytes written); else a copy, then the original goes. */
function moveFile(from: string, to: string, bytes: Buffer, mode: number): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    writeFileAtomic.sync(to, bytes, existsSync(to) ? { fsync: false } : { mode, fsync: false });
    rmSync(from, { force: true });
  }
}

/** Puts the worktree back to the base in the changed files: edits undone, new files and their new folders gone. */
export function restoreTouched(worktree: string, changes: readonly TouchedChange[]): void {
  for (const { rel, base } of changes) {
    const file = join(worktree, rel);
    if (base !== null) writeFileSync(file, base);
    else {
      rmSync(file, { force: true });
      removeEmptyFolders(dirname(file), worktree);
    }
  }
}

/** A plain file's bytes and mode; null bytes when nothing is there; undefined for a link, a folder or the unreadable. */
export function plainFile(file: string): { bytes: Buffer | null; mode: number } | undefined {
  try {
    const stat = lstatSync(file);
    return stat.isFile() ? { bytes: readFileSync(file), mode: stat.mode & 0o777 } : undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { bytes: null, mode: 0o644 } : undefined;
  }
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

/** Removes `folder` and its parents up to `top` (not included) while they are empty. */
export function removeEmptyFolders(folder: string, top: string): void {
  for (let dir = folder; dir !== top && dir.startsWith(`${top}${sep}`); dir = dirname(dir)) {
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
  }
}
