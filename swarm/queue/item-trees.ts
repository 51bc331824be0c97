// A worker's item trees: detached worktrees of its checkout, one per running item, kept between items and put back
// to the next job's base commit (only the files that differ are written) instead of a checkout per item. A new
// worktree costs a checkout of the whole repository — seconds in a big one, serialised per repository — which is
// what kept a worker from scaling.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, serialised } from '../git.js';

/** Item trees are `murmur-item-<pid>-…`: the pid tells a later worker whether their owner is gone. */
export const ITEM_TREE_PREFIX = 'murmur-item-';

interface Tree {
  path: string;
  /** The commit it was last put back to, with nothing else in it. */
  base: string;
}

export class ItemTrees {
  private readonly free: Tree[] = [];
  /** Bases known to be in the checkout (a commit once there stays). */
  private readonly known = new Set<string>();
  /** Trees being put back: close() waits for them. */
  private readonly giving = new Set<Promise<void>>();

  constructor(private readonly root: string) {}

  /** Whether the checkout has commit `base` (asked of git once per base). */
  async has(base: string): Promise<boolean> {
    if (this.known.has(base)) return true;
    const found = await git(this.root, ['cat-file', '-e', `${base}^{commit}`]);
    if (found.ok) this.known.add(base);
    return found.ok;
  }

  /** A tree at `base` with nothing else in it: a free one put back there, else a new worktree. */
  async take(base: string): Promise<{ ok: true; path: string } | { ok: false; error: string }> {
    for (let tree = this.free.pop(); tree !== undefined; tree = this.free.pop()) {
      if (tree.base === base || (await this.resetTo(tree.path, base))) return { ok: true, path: tree.path };
      await this.drop(tree.path);
    }
    const dir = await mkdtemp(join(tmpdir(), `${ITEM_TREE_PREFIX}${process.pid}-`));
    const made = await serialised(this.root, () => git(this.root, ['worktree', 'add', '--detach', dir, base]));
    if (made.ok) return { ok: true, path: dir };
    await rm(dir, { recursive: true, force: true });
    return { ok: false, error: made.stderr.trim() };
  }

  /** An item is done with its tree: put back to `base` for the next one, or removed when that fails. */
  async give(path: string, base: string): Promise<void> {
    const back = (async () => {
      if (await this.resetTo(path, base)) this.free.push({ path, base });
      else await this.drop(path);
    })();
    this.giving.add(back);
    await back.finally(() => this.giving.delete(back));
  }

  /** The worker stops: its trees go once the last items have given theirs back. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.giving]);
    await Promise.all(this.free.splice(0).map((tree) => this.drop(tree.path)));
  }

  /** Tracked files back to `commit`, untracked and ignored ones gone; false when git could not. */
  private async resetTo(path: string, commit: string): Promise<boolean> {
    // Outside a worktree (its .git gone), git would reset the repository around it: the user's own checkout.
    if (!existsSync(join(path, '.git'))) return false;
    const reset = await git(path, ['reset', '-q', '--hard', commit]);
    if (!reset.ok) return false;
    return (await git(path, ['clean', '-q', '-ffdx'])).ok;
  }

  private async drop(path: string): Promise<void> {
    await serialised(this.root, () => git(this.root, ['worktree', 'remove', '--force', path]));
    await rm(path, { recursive: true, force: true });
  }
}
