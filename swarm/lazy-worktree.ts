// Worktrees made without a checkout: writing every file of a big repository per worktree costs far more than an
// item that edits one file (creating a file is slow on many disks), so a new worktree starts with no file and no
// index. A path tool writes the base's file on first use (tools/fs/lazy-trees.ts); a tool that may look at the
// whole folder, and every git command murmur runs in it, first fills the rest and writes the index. "No index
// file" is the lazy state on disk: a worktree a killed process left so is filled before git touches it.
// Not used where a checkout is more than the blob's bytes (.gitattributes, core.autocrlf): git's filters then decide.
import { existsSync, lstatSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { registerLazyTree } from '../tools/fs/lazy-trees.js';
import { BaseBlobs } from './base-blobs.js';
import { applyPatch, filesPatch } from './git-merge.js';
import { git, serialised } from './git.js';
import { plainBaseListing, type BaseListing } from './plain-checkout.js';
import { removeEmptyFolders } from './touched-merge.js';
import type { GitResult } from './git-process.js';

/** One lazy worktree of this process: the writes under way, how to stop being lazy. */
interface Lazy {
  writing: Map<string, Promise<void>>;
  filling?: Promise<void>;
  unregister: (() => void)[];
}

export class LazyWorktrees {
  private listing: Promise<BaseListing | undefined> | undefined;
  private readonly lazy = new Map<string, Lazy>();
  private baseBlobs: BaseBlobs | undefined;

  constructor(
    private readonly root: string,
    private readonly base: string,
  ) {}

  /** The base commit's files, read through one long-lived git process (for merges and for writing a file). */
  blobs(): BaseBlobs {
    return (this.baseBlobs ??= new BaseBlobs(this.root, this.base));
  }

  /** The swarm has ended: the git process that reads the base goes. */
  close(): void {
    this.baseBlobs?.close();
    this.baseBlobs = undefined;
  }

  /**
   * A new detached worktree at the base at `path`: without a checkout when that is safe here, else a full one.
   * Resolves to git's result, as `git worktree add` would.
   */
  async add(path: string): Promise<GitResult> {
    const listing = await this.baseListing();
    const made = await git(this.root, [
      'worktree',
      'add',
      ...(listing ? ['--no-checkout'] : []),
      '--detach',
      path,
      this.base,
    ]);
    if (made.ok && listing) this.track(path);
    return made;
  }

  /** Whether `path` is a worktree of this process still filling on demand. */
  holds(path: string): boolean {
    return this.lazy.has(path);
  }

  /** Every file written and the index with them: git may look at the worktree now. Nothing to do when it is whole. */
  async full(path: string): Promise<void> {
    const own = this.lazy.get(path);
    if (own) {
      own.filling ??= this.fill(path).then(() => this.forget(path));
      return own.filling;
    }
    return this.fill(path);
  }

  /**
   * The files an item's file tools named that are in its worktree: in a lazy one, a file never written there is
   * the base's still (a tool refused before it ran, say) and no deletion, as file tools delete nothing.
   */
  onDisk(path: string, files: string[] | undefined): string[] | undefined {
    return files && this.lazy.has(path) ? files.filter((rel) => present(join(path, rel))) : files;
  }

  /**
   * Merges the files an item changed in the lazy worktree at `path` into the tree at the repository's top with
   * git (the tree moved on in one of them): one patch of those files, one apply, in the merge queue. Then they go
   * from the worktree, which is at the base again. Returns how many files changed, or undefined when they do not
   * apply (the whole worktree's merge then keeps them on the item's branch).
   */
  async mergeFiles(path: string, files: readonly string[], mayBeApplied: boolean): Promise<number | undefined> {
    const index = indexOf(path);
    if (!this.lazy.has(path) || index === undefined) return undefined;
    const work = await filesPatch(path, this.base, files, `${index}.murmur-merge`);
    if (!work.ok) return undefined;
    if (work.patch !== '') {
      const applied = await serialised(this.root, () => applyPatch(this.root, work.patch, mayBeApplied));
      if (applied !== true) return undefined;
    }
    for (const rel of files) {
      rmSync(join(path, rel), { force: true });
      removeEmptyFolders(dirname(join(path, rel)), path);
    }
    return work.files;
  }

  /** The worktree goes (removed, or rejected): nothing fills it any more. */
  forget(path: string): void {
    const own = this.lazy.get(path);
    if (!own) return;
    this.lazy.delete(path);
    for (const unregister of own.unregister) unregister();
  }

  private track(path: string): void {
    const own: Lazy = { writing: new Map(), unregister: [] };
    this.lazy.set(path, own);
    const tree = { file: (rel: string) => this.file(path, rel), all: () => this.full(path) };
    own.unregister.push(registerLazyTree(path, tree));
    // Tools resolve real paths and the agent's root as given: both name the same folder.
    const real = realpathSync(path);
    if (real !== path) own.unregister.push(registerLazyTree(real, tree));
  }

  /**
   * Writes the base's file at `rel` when it is not there (never written, or moved out by a merge); a folder (or a
   * path through a link) fills all.
   */
  private async file(path: string, rel: string): Promise<void> {
    const own = this.lazy.get(path);
    const listing = await this.baseListing();
    if (!own || !listing) return;
    // Filling whole already: the file comes with the rest.
    if (own.filling) return own.filling;
    if (rel === '' || listing.folders.has(rel) || throughLink(listing, rel)) return this.full(path);
    const mode = listing.modes.get(rel);
    if (mode === undefined) return;
    let pending = own.writing.get(rel);
    if (!pending) {
      pending = this.write(join(path, rel), rel, mode);
      own.writing.set(rel, pending);
      void pending.finally(() => own.writing.delete(rel)).catch(() => undefined);
    }
    return pending;
  }

  private async write(file: string, rel: string, mode: string): Promise<void> {
    if (present(file)) return;
    const bytes = await this.blobs().read(rel);
    if (!(bytes instanceof Buffer)) throw new Error(`cannot read ${rel} at the base commit ${this.base}`);
    if (!present(dirname(file))) await mkdir(dirname(file), { recursive: true });
    if (mode === '120000') await symlink(bytes.toString('utf8'), file);
    else await writeFile(file, bytes, { mode: mode === '100755' ? 0o755 : 0o644 });
  }

  /**
   * The missing files written through a new index, which then becomes the worktree's: a kill before the rename
   * leaves it lazy (no index), never an index that says files are there that are not.
   */
  private async fill(path: string): Promise<void> {
    const index = indexOf(path);
    if (index === undefined || existsSync(index)) return;
    const env = { GIT_INDEX_FILE: `${index}.murmur-fill` };
    rmSync(env.GIT_INDEX_FILE, { force: true });
    const read = await git(path, ['read-tree', 'HEAD'], undefined, { env });
    if (!read.ok) throw new Error(`cannot fill the worktree ${path}: ${read.stderr.trim()}`);
    const listed = await git(path, ['ls-files', '-z'], undefined, { env });
    const missing = listed.stdout.split('\0').filter((rel) => rel !== '' && !present(join(path, rel)));
    if (missing.length > 0) {
      const out = await git(path, ['checkout-index', '-u', '-z', '--stdin'], `${missing.join('\0')}\0`, { env });
      if (!out.ok) throw new Error(`cannot fill the worktree ${path}: ${out.stderr.trim()}`);
    }
    renameSync(env.GIT_INDEX_FILE, index);
  }

  /** The base's entries, or undefined when worktrees must be checked out whole (git's filters may apply). */
  private baseListing(): Promise<BaseListing | undefined> {
    return (this.listing ??= plainBaseListing(this.root, this.base));
  }
}

/** Whether something (a file, a link, a folder) is at `file`. */
function present(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/** Whether a folder on the way to `rel` is a link or a submodule at the base: only a whole checkout has it right. */
function throughLink(listing: BaseListing, rel: string): boolean {
  for (let slash = rel.indexOf('/'); slash >= 0; slash = rel.indexOf('/', slash + 1)) {
    const mode = listing.modes.get(rel.slice(0, slash));
    if (mode === '120000' || mode === '160000') return true;
  }
  const own = listing.modes.get(rel);
  return own === '160000';
}

/** The worktree's index file (named in its `.git` file), or undefined when `path` is not a linked worktree. */
export function indexOf(path: string): string | undefined {
  try {
    const pointer = /^gitdir: (.+)$/m.exec(readFileSync(join(path, '.git'), 'utf8'))?.[1]?.trim();
    if (!pointer) return undefined;
    return join(isAbsolute(pointer) ? pointer : join(path, pointer), 'index');
  } catch {
    return undefined;
  }
}
