// The coordinator's side of a worker's diff: applied to the working tree with the rules of worktree isolation
// (one repository queue, a diff applied already counts as applied), else kept as patches/<index>.patch.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, serialised } from '../git.js';

export type Applied = { kind: 'applied' | 'unchanged' } | { kind: 'conflict'; reason: string; patch: string };

/** Keeps an item's diff in `<dir>/patches/<index + 1>.patch`; returns its path. */
export function keepPatch(dir: string, index: number, diff: string): string {
  const folder = join(dir, 'patches');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${index + 1}.patch`);
  writeFileSync(file, diff);
  return file;
}

/**
 * Applies an item's diff; `mayBeApplied`: its job is older than this coordinator, which may have died between
 * applying it and recording the item's end (a job this process added can only have been applied by it).
 */
export function applyDiff(
  root: string,
  diff: string,
  index: number,
  patchesHome: string,
  mayBeApplied = true,
): Promise<Applied> {
  if (diff.trim() === '') return Promise.resolve({ kind: 'unchanged' });
  return serialised(root, async (): Promise<Applied> => {
    // Applied already: asked first, since a patch that only adds lines still applies forward a second time
    // (its context is still there).
    if (mayBeApplied) {
      const reverse = await git(root, ['apply', '--check', '--reverse', '--whitespace=nowarn', '-'], diff);
      if (reverse.ok) return { kind: 'applied' };
    }
    // git apply is all or nothing: a patch that does not apply leaves the tree as it was.
    const applied = await git(root, ['apply', '--whitespace=nowarn', '-'], diff);
    if (applied.ok) return { kind: 'applied' };
    const patch = keepPatch(patchesHome, index, diff);
    return {
      kind: 'conflict',
      reason: `its changes do not apply to the working tree: ${applied.stderr.trim().split('\n')[0] ?? 'conflict'}`,
      patch,
    };
  });
}

/**
 * Applies several items' diffs, in order, with one `git apply` (all or nothing: on false the tree is as it was,
 * and each goes on its own). Only for diffs this coordinator's own jobs sent: none can have been applied before.
 */
export function applyTogether(root: string, diffs: readonly string[]): Promise<boolean> {
  const patch = diffs.map((diff) => (diff.endsWith('\n') ? diff : `${diff}\n`)).join('');
  return serialised(root, async () => (await git(root, ['apply', '--whitespace=nowarn', '-'], patch)).ok);
}
