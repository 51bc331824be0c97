// A worker's item trees: detached worktrees of its checkout, one per running item, kept between items and put back
// to the next job's base commit instead of a checkout per item (a checkout of a big repository takes seconds,
// serialised per repository: what kept a worker from scaling), and each item's diff. An item whose file tools
// tell every file it changed gets the diff of those files, and its tree is put back by writing their base bytes
// (read through one long-lived cat-file per base); any other gets git's scan, reset and clean. That diff is
// written here (text-patch.ts) when the files are plain text in a plain checkout (plain-checkout.ts), else by git:
// no git process per item at all in the common case, which is what bounded a worker's pace.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { BaseBlobs } from '../base-blobs.js';
import { git, serialised } from '../git.js';
import { plainBaseListing, type BaseListing } from '../plain-checkout.js';
import { textPatch, type TextChange } from '../text-patch.js';
import { insideWorktree, plainFile, restoreTouched, type TouchedChange } from '../touched-merge.js';

/** How many bases' listings a worker keeps (a listing is a map of every path at that base). */
const KEPT_LISTINGS = 4;

/** murmur's state folder, left out of an item's diff: git's pathspecs, and the same rule for a path in-process. */
const STATE_PATHSPECS = [':(exclude,glob)**/.murmur/**', ':(exclude).murmur'];
function inStateFolder(rel: string): boolean {
  return rel === '.murmur' || rel.split('/').slice(0, -1).includes('.murmur');
}

/** Item trees are `murmur-item-<pid>-…`: the pid tells a later worker whether their owner is gone. */
export const ITEM_TREE_PREFIX = 'murmur-item-';

type BaseFile = TouchedChange;

/** What an item changed in a tree, known from its file tools: `staged` when `git add` put it in the index. */
interface Changed {
  files: BaseFile[];
  staged: boolean;
}

interface Tree {
  path: string;
  /** The commit it was last put back to, with nothing else in it. */
  base: string;
}

export class ItemTrees {
  private readonly free: Tree[] = [];
  /** Bases known to be in the checkout (a commit once there stays). */
  private readonly known = new Set<string>();
  /** Each base's files, read through one long-lived git process: a tree is put back without one per item. */
  private readonly blobs = new Map<string, BaseBlobs>();
  /** Trees whose item's changes are known (by path): give() puts back just those. */
  private readonly changed = new Map<string, Changed>();
  /** Recent bases' listings when their checkout is plain (its files' bytes are what git reads): in-process diffs. */
  private readonly plainBases = new Map<string, Promise<BaseListing | undefined>>();
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

  /**
   * Everything the item changed in its tree against `base` (its own commits too), murmur's state folder left out.
   * `touched` (absolute): the files its file tools changed, when those are all it changed; then git looks at those
   * only, without staging edits of files the base has, and give() puts back just them.
   */
  async diff(path: string, base: string, touched?: readonly string[]): Promise<string> {
    const files = touched ? await this.baseFiles(path, base, touched) : undefined;
    if (files?.length === 0) {
      this.changed.set(path, { files, staged: false });
      return '';
    }
    if (files && files.every((file) => file.base !== null)) {
      const written = await this.textDiff(path, base, files);
      if (written !== undefined) {
        this.changed.set(path, { files, staged: false });
        return written;
      }
      const named = files.map((file) => `:(literal)${file.rel.split(sep).join('/')}`);
      const diff = await git(path, ['diff', '--binary', '--no-color', base, '--', ...named, ...STATE_PATHSPECS]);
      if (diff.ok) {
        this.changed.set(path, { files, staged: false });
        return diff.stdout;
      }
    }
    await git(path, ['add', '-A', '--', '.', ...STATE_PATHSPECS]);
    const diff = await git(path, ['diff', '--cached', '--binary', '--no-color', base, '--', '.', ...STATE_PATHSPECS]);
    if (files) this.changed.set(path, { files, staged: true });
    return diff.ok ? diff.stdout : '';
  }

  /** An item is done with its tree: put back to `base` for the next one, or removed when that fails. */
  async give(path: string, base: string): Promise<void> {
    const changed = this.changed.get(path);
    this.changed.delete(path);
    const back = (async () => {
      if ((changed && (await this.restore(path, base, changed))) || (await this.resetTo(path, base)))
        this.free.push({ path, base });
      else await this.drop(path);
    })();
    this.giving.add(back);
    await back.finally(() => this.giving.delete(back));
  }

  /** The worker stops: its trees go once the last items have given theirs back. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.giving]);
    await Promise.all(this.free.splice(0).map((tree) => this.drop(tree.path)));
    for (const blobs of this.blobs.values()) blobs.close();
    this.blobs.clear();
  }

  /** The touched files (inside the tree) with their bytes at `base`; undefined when one of them cannot be told. */
  private async baseFiles(path: string, base: string, touched: readonly string[]): Promise<BaseFile[] | undefined> {
    const inside = insideWorktree(path, touched);
    if (!inside) return undefined;
    let blobs = this.blobs.get(base);
    if (!blobs) this.blobs.set(base, (blobs = new BaseBlobs(this.root, base)));
    const files: BaseFile[] = [];
    for (const rel of inside) {
      const bytes = await blobs.read(rel.split(sep).join('/'));
      if (bytes === undefined) return undefined;
      files.push({ rel, base: bytes, now: null });
    }
    return files;
  }

  /**
   * The diff of the touched files, all at the base, written without git; undefined when git must write it: the
   * checkout is not plain, a file is not plain text, not a plain file now, or its executable bit changed.
   */
  private async textDiff(path: string, base: string, files: readonly BaseFile[]): Promise<string | undefined> {
    let listing = this.plainBases.get(base);
    if (!listing) {
      this.plainBases.set(base, (listing = plainBaseListing(this.root, base)));
      // A worker lives on through many swarms: the listings of the last few bases are kept, not of every one.
      if (this.plainBases.size > KEPT_LISTINGS) this.plainBases.delete(this.plainBases.keys().next().value!);
    }
    const plain = await listing;
    if (!plain) return undefined;
    const changes: TextChange[] = [];
    for (const file of files) {
      const rel = file.rel.split(sep).join('/');
      if (inStateFolder(rel)) continue;
      const now = plainFile(join(path, file.rel));
      const mode = plain.modes.get(rel);
      if (!now?.bytes || file.base === null || (mode !== '100644' && mode !== '100755')) return undefined;
      // git's diff would tell a change of the executable bit.
      if (((now.mode & 0o100) !== 0) !== (mode === '100755')) return undefined;
      changes.push({ path: rel, base: file.base, now: now.bytes });
    }
    return textPatch(changes, base.length === 64 ? 64 : 40);
  }

  /**
   * The files an item's file tools changed, back to the base's bytes (no reset, no clean: no scan of the whole
   * tree); false when git could not put the index back.
   */
  private async restore(path: string, base: string, changed: Changed): Promise<boolean> {
    if (!existsSync(join(path, '.git'))) return false;
    // The index first, while it still matches the tree as `git add` left it: what that staged goes, and -m keeps
    // the other entries' stat data, so the next item's git does not hash the whole tree again.
    if (changed.staged && !(await git(path, ['read-tree', '-m', base])).ok) return false;
    restoreTouched(path, changed.files);
    return true;
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
