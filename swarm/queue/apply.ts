// The coordinator's side of a worker's diff: applied to the working tree with the rules of worktree isolation
// (one repository queue, a diff applied already counts as applied), else kept as patches/<index>.patch. In a
// plain checkout, diffs whose result is known exactly are written without git (text-apply.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, serialised } from '../git.js';
import { applyTextDiffs } from './text-apply.js';

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
  /** The working tree is a plain checkout (plain-checkout.ts): a diff may be written without git. */
  plain = false,
): Promise<Applied> {
  if (diff.trim() === '') return Promise.resolve({ kind: 'unchanged' });
  return serialised(root, async (): Promise<Applied> => {
    // Every file still the base's blob: not applied before, whatever `mayBeApplied` says.
    if (plain && applyTextDiffs(root, [diff])) return { kind: 'applied' };
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
export function applyTogether(root: string, diffs: readonly string[], plain = false): Promise<boolean> {
  const patch = diffs.map((diff) => (diff.endsWith('\n') ? diff : `${diff}\n`)).join('');
  return serialised(
    root,
    async () =>
      (plain && applyTextDiffs(root, diffs)) || (await git(root, ['apply', '--whitespace=nowarn', '-'], patch)).ok,
  );
}
