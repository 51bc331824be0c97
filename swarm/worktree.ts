// Worktree isolation: each worker edits its own git worktree, detached at the base commit; when it completes its
// changes are applied to the main working tree. A conflict keeps the item's branch, and so does an item that did
// not complete (with its worktree while that holds work), so nothing is lost and a resume continues where it was.
// The worktrees are a pool (worktree-pool.ts): a completed item's worktree goes, reset to the base, to the next new
// item; one that did not complete keeps its own, found again by the folder its agent works in (worktree-folders.ts).
import { existsSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { LazyWorktrees } from './lazy-worktree.js';
import { applyPatch, commitWork, holdsWork, itemPatch, renameAside } from './git-merge.js';
import { excludeStateFolder } from './state-exclude.js';
import { adoptedWorktree, unheldWorktrees } from './worktree-folders.js';
import { applyTouched, insideWorktree, restoreTouched } from './touched-merge.js';
import { WorktreePool } from './worktree-pool.js';
import { git, repoRoot, serialised } from './git.js';
import { ItemSeals } from './item-seal.js';

export type MergeOutcome =
  { kind: 'merged'; files: number } | { kind: 'unchanged' } | { kind: 'conflict'; branch: string; reason: string };

/** What is kept of an item that did not complete: its branch, and its worktree while that holds changes. */
export interface KeptWork {
  branch: string;
  worktree?: string;
}

/** Where one item works: a worktree folder, its branch, and the worker's folder inside it. */
interface Slot {
  path: string;
  branch: string;
  workspace: string;
}

export class WorktreeIsolation {
  /** The worktree each item works in, from its first launch until it completes (then its worktree is free). */
  private readonly owned = new Map<number, Slot>();
  /** Free worktrees, and who works in one: whether a new item takes one, makes one or waits (worktree-pool.ts). */
  private readonly pool = new WorktreePool();
  /** Items whose worktree may hold a merge done already by a process that died before saying so (resumed ones). */
  private readonly resumed = new Set<number>();
  /** A resumed swarm: any item's changes may be in the working tree already (an attempt lost with the process). */
  private restored = false;
  /** Items whose branch exists (made when work was kept, or found from before): deleted once they merge. */
  private readonly branched = new Set<number>();
  /** What each sealed item's repository looked like when its agent started (item-seal.ts). */
  private readonly seals: ItemSeals;
  /** New worktrees without a checkout (files written as the item's tools ask for them), and the base's files. */
  private readonly lazy: LazyWorktrees;

  private constructor(
    readonly root: string,
    readonly base: string,
    /** `<stateDir>/worktrees`: every swarm of the run has its folder in it. */
    private readonly worktrees: string,
    private readonly swarmId: string,
    /** The workspace's folder inside the repository ('' at its top): workers start at the same place in theirs. */
    private readonly subdir: string,
    /** Branches are `<prefix><swarmId>/item-N`; the prefix names the run, so another run's kept branches never collide. */
    private readonly branchPrefix: string,
  ) {
    this.seals = new ItemSeals(root, branchPrefix);
    this.lazy = new LazyWorktrees(root, base);
  }

  /** Needs a repository with a commit at `cwd` (else says what is missing); `runId` goes into branch names. */
  static async open(
    cwd: string,
    stateDir: string,
    swarmId: string,
    stateHome = stateDir,
    runId?: string,
  ): Promise<WorktreeIsolation | string> {
    const root = await repoRoot(cwd);
    if (!root)
      return `isolation "worktree" needs a git repository, and ${cwd} is not inside one (run git init and commit, or drop --isolation)`;
    const head = await git(root, ['rev-parse', '--verify', 'HEAD']);
    if (!head.ok)
      return `isolation "worktree" needs a commit to branch from, and the repository at ${root} has none yet`;
    const worktrees = join(stateDir, 'worktrees');
    mkdirSync(join(worktrees, swarmId), { recursive: true });
    excludeStateFolder(root, stateHome);
    const subdir = relative(realpathSync(root), realpathSync(cwd));
    const prefix = `murmur/${runId ? `${runId}/` : ''}`;
    return new WorktreeIsolation(
      root,
      head.stdout.trim(),
      worktrees,
      swarmId,
      subdir.startsWith('..') ? '' : subdir,
      prefix,
    );
  }

  /** The item's branch: by its number, whichever worktree it works in. */
  private branchFor(index: number): string {
    return `${this.branchPrefix}${this.swarmId}/item-${index + 1}`;
  }

  /** A worktree folder as item `index`'s place to work. */
  private slotAt(path: string, index: number): Slot {
    return { path, branch: this.branchFor(index), workspace: join(path, this.subdir) };
  }

  /** Where the item works: the worktree it holds, else the one it would make (named after it). */
  private slot(index: number): Slot {
    return this.owned.get(index) ?? this.slotAt(join(this.worktrees, this.swarmId, `item-${index + 1}`), index);
  }

  /** Notes the repository's protected files and refs before the item's agent runs in a sandbox. */
  seal(index: number): Promise<void> {
    return this.seals.seal(index, this.slot(index).path);
  }

  /** What the item changed among them since its seal (none when it was not sealed). */
  sealBroken(index: number): Promise<string[]> {
    return this.seals.broken(index, this.slot(index).path);
  }

  /**
   * An item that broke its seal is not merged: its worktree goes, its branch is kept under a new name for a person
   * to inspect, and a resume starts it again from the base in a fresh worktree. Returns the kept branch.
   */
  async reject(index: number): Promise<string> {
    this.pool.stopWorking(index);
    await this.recordOnBranch(index);
    const { path, branch } = this.slot(index);
    this.lazy.forget(path);
    await this.inWorktreeQueue(async () => {
      await git(this.root, ['worktree', 'remove', '--force', path]);
      await git(this.root, ['worktree', 'prune']);
    });
    return serialised(this.root, () => renameAside(this.root, branch, 'rejected'));
  }

  /** The item's worktree with every file in it (verifiers' guard runs git there). */
  async wholePath(index: number): Promise<string> {
    await this.lazy.full(this.slot(index).path);
    return this.slot(index).path;
  }

  /** A resumed subagent goes on in the worktree it works in (its merge and cleanup use it); else says why not. */
  async adopt(index: number, workspaceRoot: string, agentId: string): Promise<string | undefined> {
    const held = (path: string) => [...this.owned].some(([other, slot]) => other !== index && slot.path === path);
    const where = { worktrees: this.worktrees, swarmId: this.swarmId, branchPrefix: this.branchPrefix };
    const found = await adoptedWorktree(where, workspaceRoot, agentId, this.branchFor(index), held);
    if (typeof found === 'string') return found;
    this.owned.set(index, { ...found, workspace: workspaceRoot });
    this.resumed.add(index);
    return undefined;
  }

  /** A resumed swarm: every merge asks first whether a lost attempt merged it; the old item branches are known. */
  async mayHaveMergedBefore(): Promise<void> {
    this.restored = true;
    const own = `refs/heads/${this.branchPrefix}${this.swarmId}/`;
    const listed = await git(this.root, ['for-each-ref', '--format=%(refname)', own]);
    for (const ref of listed.stdout.split('\n')) {
      const n = /\/item-(\d+)$/.exec(ref)?.[1];
      if (n !== undefined) this.branched.add(Number(n) - 1);
    }
  }

  /** After the resumed items adopted theirs: this swarm's worktrees that the process before left free join the pool. */
  collectLeftovers(): void {
    const held = new Set([...this.owned.values()].map((slot) => slot.path));
    for (const path of unheldWorktrees(join(this.worktrees, this.swarmId), held))
      this.pool.give({ path, clean: false });
  }

  /** The item's worktree, made or found again (an earlier attempt's work stays); returns the worker's folder. */
  async prepare(index: number): Promise<string> {
    const { path, branch, workspace } = this.slot(index);
    // A worktree found from before this process holds an earlier attempt's work (merged already, maybe).
    if (!this.owned.has(index) && existsSync(join(path, '.git'))) this.resumed.add(index);
    this.owned.set(index, this.slot(index));
    this.pool.startWorking(index);
    if (existsSync(join(path, '.git'))) {
      // A lazy one a killed process left gets its files before git looks; one made on its branch (before
      // worktrees were detached) is detached now, its files untouched.
      if (!this.lazy.holds(path)) await this.lazy.full(path);
      const onBranch = await git(path, ['symbolic-ref', '-q', 'HEAD']);
      if (onBranch.ok) await git(path, ['checkout', '-q', '--detach']);
      return workspace;
    }
    // Detached: an agent's commits move only its HEAD (the sandbox keeps refs read-only), and murmur records them
    // on the item's branch from outside (recordOnBranch). A branch of earlier work is where it goes on; without one
    // it starts at the base, and gets its branch only when there is work to keep.
    const made = await this.inWorktreeQueue(async () => {
      // A folder without its .git is what a checkout or removal cut by a killed process leaves: not a worktree.
      if (existsSync(path)) {
        rmSync(path, { recursive: true, force: true });
        await git(this.root, ['worktree', 'prune']);
      }
      // A new swarm's item has a branch only when this process made it (a resumed one's may be from before).
      const known = this.restored || this.resumed.has(index) || this.branched.has(index);
      const exists = known ? await git(this.root, ['rev-parse', '--verify', '-q', `refs/heads/${branch}`]) : undefined;
      if (exists?.ok) this.branched.add(index);
      return exists?.ok ? git(this.root, ['worktree', 'add', '--detach', path, branch]) : this.lazy.add(path);
    });
    if (!made.ok) throw new Error(`git worktree add failed for ${branch}: ${made.stderr.trim()}`);
    mkdirSync(workspace, { recursive: true });
    return workspace;
  }

  /**
   * The item's worktree for a new agent: a free one of the pool, else a new one (worktree-pool.ts decides, and
   * whether to wait). Either is at the base: one left by an attempt the saved state never recorded is put back to
   * where its branch started, so the new agent does not merge a second time what the lost one had done.
   */
  async prepareFresh(index: number, signal?: AbortSignal): Promise<string> {
    const turn = await this.pool.turn(index, signal);
    if (turn.kind === 'free') {
      // A free worktree of the pool, put at the base where a new one would be.
      const slot = this.slotAt(turn.worktree.path, index);
      this.owned.set(index, slot);
      if (!turn.worktree.clean) await this.resetTo(slot.path, this.base);
      await this.startBranchAtBase(index);
      mkdirSync(slot.workspace, { recursive: true });
      return slot.workspace;
    }
    const started = Date.now();
    try {
      const { path } = this.slot(index);
      const existed = existsSync(join(path, '.git'));
      const workspace = await this.prepare(index);
      if (existed) {
        await this.resetTo(path, await this.forkPoint(path));
        await this.recordOnBranch(index);
      }
      this.pool.made(index, started);
      return workspace;
    } catch (error) {
      this.pool.notMade();
      throw error;
    }
  }

  /** Puts a worktree back to `commit`, detached, untracked files gone: only the files that differ are written. */
  private async resetTo(path: string, commit: string): Promise<void> {
    // Outside a worktree, git would reset the repository around it: the user's own tree.
    if (!existsSync(join(path, '.git'))) throw new Error(`the worktree ${path} is gone`);
    await this.lazy.full(path);
    const reset = await git(path, ['reset', '-q', '--hard', commit]);
    if (!reset.ok) throw new Error(`cannot reset the worktree ${path} to ${commit}: ${reset.stderr.trim()}`);
    await git(path, ['clean', '-q', '-ffdx']);
  }

  /** A branch the item's earlier run left (kept work of a lost attempt) starts again from the base. */
  private async startBranchAtBase(index: number): Promise<void> {
    if (!this.branched.has(index)) return;
    const branch = this.branchFor(index);
    await serialised(this.root, () => git(this.root, ['update-ref', `refs/heads/${branch}`, this.base]));
  }

  /** The commit the item's branch started from: the run's base, or an older HEAD for a branch kept from before. */
  private async forkPoint(path: string): Promise<string> {
    const found = await git(path, ['merge-base', this.base, 'HEAD']);
    return found.ok && found.stdout.trim() ? found.stdout.trim() : this.base;
  }

  /** Points the item's branch at its worktree's HEAD: the commits made there (by murmur or the agent) are the branch's. */
  async recordOnBranch(index: number): Promise<void> {
    const { path, branch } = this.slot(index);
    const head = await git(path, ['rev-parse', '--verify', '-q', 'HEAD']);
    if (!head.ok) return;
    await serialised(this.root, () => git(this.root, ['update-ref', `refs/heads/${branch}`, head.stdout.trim()]));
    this.branched.add(index);
  }

  /**
   * The merge of an item whose changed files are known (file tools only), without git (touched-merge.ts); its
   * worktree returns to the pool clean (the files moved out of a lazy one are the base's again, else put back).
   * Undefined (nothing done) when not every file can tell, or for a resumed item.
   */
  async mergeTouched(index: number, touched: readonly string[]): Promise<MergeOutcome | undefined> {
    const slot = this.owned.get(index);
    if (!slot || this.resumed.has(index)) return undefined;
    const files = this.lazy.onDisk(slot.path, insideWorktree(slot.path, touched));
    if (!files) return undefined;
    const blobs = this.lazy.blobs();
    const lazy = this.lazy.holds(slot.path);
    const changed = await serialised(this.root, () => applyTouched(this.root, slot.path, files, blobs, lazy));
    if (changed && !lazy) restoreTouched(slot.path, changed);
    // The tree moved on in a file it changed: git merges a lazy worktree's files alone (it has no others).
    const count = changed
      ? changed.length
      : lazy
        ? await this.lazy.mergeFiles(slot.path, files, this.restored)
        : undefined;
    if (count === undefined) return undefined;
    await this.deleteBranch(index);
    this.release(index, true);
    return count === 0 ? { kind: 'unchanged' } : { kind: 'merged', files: count };
  }

  /**
   * Applies the item's changes (staged with its untracked files, plus its own commits) to the main working tree, in
   * proportion to what it changed: one diff against where it started, one apply. A conflict commits them on the
   * item's branch, which is kept; either way its worktree goes back to the pool.
   */
  async mergeBack(index: number, item: string): Promise<MergeOutcome> {
    // Never prepared by this process: its worktree is from before (a resume merging what a crash left).
    if (!this.owned.has(index)) this.resumed.add(index);
    const resumed = this.resumed.has(index);
    const mayBeApplied = resumed || this.restored;
    const { path, branch } = this.slot(index);
    // Never git in a folder that is not the worktree: git would find the main repository around it instead.
    if (!existsSync(join(path, '.git'))) throw new Error(`its worktree ${path} is gone; a resume runs it again`);
    await this.lazy.full(path);
    // A new item started at the base (its own commits, wherever they moved HEAD, are in the diff from there); a
    // resumed one where its branch forked (an older base).
    const work = await itemPatch(path, resumed ? await this.forkPoint(path) : this.base);
    if (!work.ok) return { kind: 'conflict', branch, reason: work.reason };
    // One queue per repository for everything that writes the working tree or refs.
    const applied =
      work.patch === '' || (await serialised(this.root, () => applyPatch(this.root, work.patch, mayBeApplied)));
    if (applied === true) {
      await this.deleteBranch(index);
      this.release(index);
      return work.patch === '' ? { kind: 'unchanged' } : { kind: 'merged', files: work.files };
    }
    // The branch keeps the work for a person (and `git merge` later): committed there, then the worktree is free.
    const committed = await commitWork(path, item);
    if (committed !== true) {
      // The worktree stays the item's (out of the pool): its work is there.
      return {
        kind: 'conflict',
        branch,
        reason: `${applied}; its worktree ${path} keeps them (cannot commit: ${committed})`,
      };
    }
    await this.recordOnBranch(index);
    this.release(index);
    return { kind: 'conflict', branch, reason: applied };
  }

  /** The item is done with its worktree: it goes back to the pool (reset when the next item takes it). */
  private release(index: number, clean = false): void {
    this.pool.stopWorking(index);
    const slot = this.owned.get(index);
    this.owned.delete(index);
    this.resumed.delete(index);
    if (slot && existsSync(join(slot.path, '.git'))) this.pool.give({ path: slot.path, clean });
  }

  /** Deletes the item's branch when there is one (a merged item's work is in the working tree now). */
  private async deleteBranch(index: number): Promise<void> {
    if (!this.branched.has(index) && !this.resumed.has(index)) return;
    this.branched.delete(index);
    const { branch } = this.slot(index);
    await serialised(this.root, () => git(this.root, ['branch', '-D', '-q', branch]));
  }

  /** Removes the pool's free worktrees: the swarm has ended, and no item will take them. */
  async close(): Promise<void> {
    this.lazy.close();
    const free = this.pool.drain();
    if (free.length === 0) return;
    // Deleting the folders and one prune does what a `worktree remove` each would, without a git process each.
    for (const path of free) this.lazy.forget(path);
    await Promise.all(free.map((path) => rm(path, { recursive: true, force: true })));
    await this.inWorktreeQueue(() => git(this.root, ['worktree', 'prune']));
  }

  /** Checkouts queue apart from merges (no shared lock file: worktrees are detached, apply skips the index). */
  private inWorktreeQueue<T>(work: () => Promise<T>): Promise<T> {
    return serialised(`${this.root}\0worktrees`, work);
  }

  /**
   * After an item ended without completing: its branch stays (a resume goes on from it), and so does its
   * worktree while it holds changes, committed or not; a worktree without changes is removed. Returns what was
   * kept, or undefined when the item has neither worktree nor branch.
   */
  async keep(index: number): Promise<KeptWork | undefined> {
    this.pool.stopWorking(index);
    const { path, branch } = this.slot(index);
    if (!existsSync(join(path, '.git'))) {
      const exists = await git(this.root, ['rev-parse', '--verify', '-q', `refs/heads/${branch}`]);
      return exists.ok ? { branch } : undefined;
    }
    await this.recordOnBranch(index);
    await this.lazy.full(path);
    if (await holdsWork(path, () => this.forkPoint(path))) return { branch, worktree: path };
    await this.remove(index, false);
    return { branch };
  }

  /** Removes the item's worktree; its branch too unless it must be kept. */
  async remove(index: number, deleteBranch: boolean): Promise<void> {
    const { path, branch } = this.slot(index);
    this.lazy.forget(path);
    await this.inWorktreeQueue(() => git(this.root, ['worktree', 'remove', '--force', path]));
    if (deleteBranch) await serialised(this.root, () => git(this.root, ['branch', '-D', branch]));
  }
}
