// Worktree isolation: each worker edits its own git worktree on a branch from HEAD; when it completes its
// changes are applied to the main working tree. A conflict keeps the branch, and so does an item that did not
// complete (with its worktree while that holds work), so nothing is lost and a resume continues where it was.
import { appendFileSync, existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { gitDirOf } from '../tools/fs/protected-paths.js';
import { git, repoRoot, serialised } from './git.js';
import { brokenSeal, type ItemSeal, type SealPlace, sealItem } from './item-seal.js';

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

const COMMITTER = ['-c', 'user.name=murmur', '-c', 'user.email=murmur@localhost', '-c', 'commit.gpgsign=false'];

export class WorktreeIsolation {
  /** Items that work somewhere else than their default slot (resumed subagents keep their own worktree). */
  private readonly adopted = new Map<number, Slot>();
  /** What each sealed item's repository looked like when its agent started (item-seal.ts). */
  private readonly seals = new Map<number, ItemSeal>();

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
  ) {}

  /**
   * Checks that `cwd` is in a git repository with a commit; the error says what is missing. Worktrees go under
   * `stateDir`; `stateHome` (murmur's state folder, default `stateDir`) is kept out of `git status`. `runId`
   * (the session's id) goes into the branch names.
   */
  /** The repository's git folder (shared by every worktree). */
  private commonDir: string | undefined;

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

  private slot(index: number): Slot {
    const adopted = this.adopted.get(index);
    if (adopted) return adopted;
    const path = join(this.worktrees, this.swarmId, `item-${index + 1}`);
    return {
      path,
      branch: `${this.branchPrefix}${this.swarmId}/item-${index + 1}`,
      workspace: join(path, this.subdir),
    };
  }

  private async sealPlace(index: number): Promise<SealPlace> {
    if (this.commonDir === undefined) {
      const found = await git(this.root, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
      this.commonDir = found.ok ? found.stdout.trim() : join(this.root, '.git');
    }
    const { path } = this.slot(index);
    return {
      root: this.root,
      commonDir: this.commonDir,
      worktree: path,
      worktreeGitDir: gitDirOf(join(path, '.git')),
      ownPrefix: this.branchPrefix,
    };
  }

  /** Notes the repository's protected files and refs before the item's agent runs in a sandbox. */
  async seal(index: number): Promise<void> {
    this.seals.set(index, await sealItem(await this.sealPlace(index)));
  }

  /** What the item changed among them since its seal (none when it was not sealed). */
  async sealBroken(index: number): Promise<string[]> {
    const seal = this.seals.get(index);
    return seal ? brokenSeal(seal, await this.sealPlace(index)) : [];
  }

  /**
   * An item that broke its seal is not merged: its worktree goes, its branch is kept under a new name for a person
   * to inspect, and a resume starts it again from the base in a fresh worktree. Returns the kept branch.
   */
  async reject(index: number): Promise<string> {
    await this.recordOnBranch(index);
    const { path, branch } = this.slot(index);
    return serialised(this.root, async () => {
      await git(this.root, ['worktree', 'remove', '--force', path]);
      await git(this.root, ['worktree', 'prune']);
      for (let n = 1; ; n++) {
        const kept = `${branch}-rejected${n === 1 ? '' : `-${n}`}`;
        const taken = await git(this.root, ['rev-parse', '--verify', '-q', `refs/heads/${kept}`]);
        if (taken.ok) continue;
        const moved = await git(this.root, ['branch', '-m', branch, kept]);
        return moved.ok ? kept : branch;
      }
    });
  }

  branchOf(index: number): string {
    return this.slot(index).branch;
  }

  pathOf(index: number): string {
    return this.slot(index).path;
  }

  /**
   * A resumed subagent goes on in the worktree it already works in (`workspaceRoot`, possibly of another swarm
   * of this run): the item's merge and cleanup use that worktree. Returns an error when it is not one of ours.
   */
  async adopt(index: number, workspaceRoot: string, agentId: string): Promise<string | undefined> {
    const rel = relative(this.worktrees, workspaceRoot);
    const parts = rel.split(sep);
    if (rel.startsWith('..') || isAbsolute(rel) || parts.length < 2 || !/^item-\d+$/.test(parts[1]!)) {
      return `subagent "${agentId}" works in ${workspaceRoot}, which is not a swarm worktree of this run; it cannot be resumed with isolation "worktree"`;
    }
    const path = join(this.worktrees, parts[0]!, parts[1]!);
    for (const [other, slot] of this.adopted) {
      if (other !== index && slot.path === path)
        return `subagent "${agentId}" shares the worktree ${path} with another resumed subagent; resume them in separate calls`;
    }
    let branch = `${this.branchPrefix}${parts[0]}/${parts[1]}`;
    if (existsSync(join(path, '.git'))) {
      // The branch it really has checked out (a worktree made before branch names carried the run's id, say).
      const head = await git(path, ['symbolic-ref', '--short', '-q', 'HEAD']);
      if (head.ok && head.stdout.trim()) branch = head.stdout.trim();
    }
    this.adopted.set(index, { path, branch, workspace: workspaceRoot });
    return undefined;
  }

  /**
   * Creates the item's worktree, or reuses it (after a resume): an existing branch is checked out as it is,
   * never reset, so the work of an earlier attempt stays. Returns the worker's folder in it.
   */
  async prepare(index: number): Promise<string> {
    const { path, branch, workspace } = this.slot(index);
    if (existsSync(join(path, '.git'))) {
      // A worktree made on its branch (before worktrees were detached): detached now, its files untouched.
      const onBranch = await git(path, ['symbolic-ref', '-q', 'HEAD']);
      if (onBranch.ok) await git(path, ['checkout', '-q', '--detach']);
      return workspace;
    }
    // The worktree is on a detached HEAD at its branch: an agent's commits move only that HEAD (the sandbox keeps
    // refs read-only), and murmur records them on the branch from outside (recordOnBranch).
    const made = await serialised(this.root, async () => {
      const exists = await git(this.root, ['rev-parse', '--verify', '-q', `refs/heads/${branch}`]);
      if (!exists.ok) {
        const created = await git(this.root, ['branch', branch, this.base]);
        if (!created.ok) return created;
      }
      return git(this.root, ['worktree', 'add', '--detach', path, branch]);
    });
    if (!made.ok) throw new Error(`git worktree add failed for ${branch}: ${made.stderr.trim()}`);
    mkdirSync(workspace, { recursive: true });
    return workspace;
  }

  /**
   * The item's worktree for a new agent: one left by an attempt the saved state never recorded (the process died
   * before saying which agent had it) is put back to where its branch started, so the new agent does not find, and
   * merge a second time, what the lost one had done.
   */
  async prepareFresh(index: number): Promise<string> {
    const { path } = this.slot(index);
    const existed = existsSync(join(path, '.git'));
    const workspace = await this.prepare(index);
    if (existed) {
      const from = await this.forkPoint(path);
      await git(path, ['reset', '-q', '--hard', from]);
      await git(path, ['clean', '-q', '-fd']);
      await this.recordOnBranch(index);
    }
    return workspace;
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
  }

  /** Whether the branch's commits change anything against its fork point (a worker may commit on its own). */
  private async committedChanges(path: string, from: string): Promise<boolean> {
    return (await git(path, ['diff', '--quiet', from, 'HEAD'])).exitCode !== 0;
  }

  /** Commits the item's changes on its branch and applies them to the main working tree. */
  async mergeBack(index: number, item: string): Promise<MergeOutcome> {
    const { path, branch } = this.slot(index);
    await git(path, ['add', '-A']);
    const staged = await git(path, ['diff', '--cached', '--quiet']);
    if (!staged.ok) {
      const commit = await git(path, [...COMMITTER, 'commit', '-q', '--no-verify', '-m', `murmur swarm: ${item}`]);
      if (!commit.ok)
        return { kind: 'conflict', branch, reason: `cannot commit the item's changes: ${commit.stderr.trim()}` };
    }
    await this.recordOnBranch(index);
    // What the branch holds, not what is staged: the worker's own commits count, and so does our commit when a
    // crash came between it and the apply below.
    const from = await this.forkPoint(path);
    if (!(await this.committedChanges(path, from))) {
      await this.remove(index, true);
      return { kind: 'unchanged' };
    }
    const patch = await git(path, ['diff', '--binary', '--no-color', from, 'HEAD']);
    const files = (await git(path, ['diff', '--name-only', from, 'HEAD'])).stdout.split('\n').filter(Boolean).length;
    // One queue per repository: everything inside runs unqueued (queueing again from here would wait on itself).
    return serialised(this.root, async (): Promise<MergeOutcome> => {
      // Applied already (a crash between the apply and the state saying so): the working tree has it all. Asked
      // first: a patch that only adds lines still applies forward a second time (its context is still there), and
      // would then land twice.
      const already = await git(this.root, ['apply', '--check', '--reverse', '--whitespace=nowarn', '-'], patch.stdout);
      if (already.ok) {
        await this.removeNow(index, true);
        return { kind: 'merged', files };
      }
      const check = await git(this.root, ['apply', '--check', '--whitespace=nowarn', '-'], patch.stdout);
      if (!check.ok) {
        await this.removeNow(index, false);
        return {
          kind: 'conflict',
          branch,
          reason: `its changes do not apply to the working tree: ${check.stderr.trim().split('\n')[0] ?? 'conflict'}`,
        };
      }
      const applied = await git(this.root, ['apply', '--whitespace=nowarn', '-'], patch.stdout);
      if (!applied.ok) {
        await this.removeNow(index, false);
        return { kind: 'conflict', branch, reason: applied.stderr.trim() };
      }
      await this.removeNow(index, true);
      return { kind: 'merged', files };
    });
  }

  /**
   * After an item ended without completing: its branch stays (a resume goes on from it), and so does its
   * worktree while it holds changes, committed or not; a worktree without changes is removed. Returns what was
   * kept, or undefined when the item has neither worktree nor branch.
   */
  async keep(index: number): Promise<KeptWork | undefined> {
    const { path, branch } = this.slot(index);
    if (!existsSync(join(path, '.git'))) {
      const exists = await git(this.root, ['rev-parse', '--verify', '-q', `refs/heads/${branch}`]);
      return exists.ok ? { branch } : undefined;
    }
    await this.recordOnBranch(index);
    const status = await git(path, ['status', '--porcelain', '--untracked-files=all']);
    // Anything unclear (git failing) counts as work: keeping too much is cheap, losing work is not.
    const dirty = !status.ok || status.stdout.trim() !== '';
    if (dirty || (await this.committedChanges(path, await this.forkPoint(path)))) return { branch, worktree: path };
    await this.remove(index, false);
    return { branch };
  }

  /** Removes the item's worktree; its branch too unless it must be kept. */
  remove(index: number, deleteBranch: boolean): Promise<void> {
    return serialised(this.root, () => this.removeNow(index, deleteBranch));
  }

  /** remove() for callers already inside the repository's queue. */
  private async removeNow(index: number, deleteBranch: boolean): Promise<void> {
    const { path, branch } = this.slot(index);
    await git(this.root, ['worktree', 'remove', '--force', path]);
    if (deleteBranch) await git(this.root, ['branch', '-D', branch]);
  }
}

/** Keeps murmur's state folder out of `git status` when it lives inside the repository. */
export function excludeStateFolder(root: string, stateHome: string): void {
  let rel: string;
  try {
    rel = relative(realpathSync(root), realpathSync(stateHome));
  } catch {
    return;
  }
  if (rel.startsWith('..') || rel === '' || isAbsolute(rel)) return;
  // Exactly that folder: excluding its top folder instead would hide the user's files (and, as info/exclude
  // is shared by every worktree, keep a worker's new files out of its merge).
  const pattern = `/${rel.split(sep).join('/')}/`;
  const exclude = join(root, '.git', 'info', 'exclude');
  try {
    const current = existsSync(exclude) ? readFileSync(exclude, 'utf8') : '';
    if (!current.split('\n').includes(pattern)) {
      mkdirSync(join(root, '.git', 'info'), { recursive: true });
      appendFileSync(exclude, `${current.endsWith('\n') || current === '' ? '' : '\n'}${pattern}\n`);
    }
  } catch {
    // A worktree checkout (.git is a file) or a read-only repo: the folder just shows as untracked.
  }
}
