// Worktree isolation: each worker edits its own git worktree on a branch from HEAD; when it completes its
// changes are applied to the main working tree. A conflict keeps the branch, so nothing is lost.
import { appendFileSync, existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { git, repoRoot, serialised } from './git.js';

export type MergeOutcome = { kind: 'merged'; files: number } | { kind: 'unchanged' } | { kind: 'conflict'; branch: string; reason: string };

const COMMITTER = ['-c', 'user.name=murmur', '-c', 'user.email=murmur@localhost', '-c', 'commit.gpgsign=false'];

export class WorktreeIsolation {
  private constructor(
    readonly root: string,
    readonly base: string,
    private readonly dir: string,
    private readonly swarmId: string,
    /** The workspace's folder inside the repository ('' at its top): workers start at the same place in theirs. */
    private readonly subdir: string,
  ) {}

  /**
   * Checks that `cwd` is in a git repository with a commit; the error says what is missing. Worktrees go under
   * `stateDir`; `stateHome` (murmur's state folder, default `stateDir`) is kept out of `git status`.
   */
  static async open(cwd: string, stateDir: string, swarmId: string, stateHome = stateDir): Promise<WorktreeIsolation | string> {
    const root = await repoRoot(cwd);
    if (!root) return `isolation "worktree" needs a git repository, and ${cwd} is not inside one (run git init and commit, or drop --isolation)`;
    const head = await git(root, ['rev-parse', '--verify', 'HEAD']);
    if (!head.ok) return `isolation "worktree" needs a commit to branch from, and the repository at ${root} has none yet`;
    const dir = join(stateDir, 'worktrees', swarmId);
    mkdirSync(dir, { recursive: true });
    excludeStateFolder(root, stateHome);
    const subdir = relative(realpathSync(root), realpathSync(cwd));
    return new WorktreeIsolation(root, head.stdout.trim(), dir, swarmId, subdir.startsWith('..') ? '' : subdir);
  }

  branchOf(index: number): string {
    return `murmur/${this.swarmId}/item-${index + 1}`;
  }

  pathOf(index: number): string {
    return join(this.dir, `item-${index + 1}`);
  }

  /** Creates (or reuses, after a resume) the item's worktree; returns the worker's folder in it. */
  async prepare(index: number): Promise<string> {
    const path = this.pathOf(index);
    const workspace = join(path, this.subdir);
    if (existsSync(join(path, '.git'))) return workspace;
    const branch = this.branchOf(index);
    const made = await serialised(this.root, () => git(this.root, ['worktree', 'add', '-B', branch, path, this.base]));
    if (!made.ok) throw new Error(`git worktree add failed for ${branch}: ${made.stderr.trim()}`);
    mkdirSync(workspace, { recursive: true });
    return workspace;
  }

  /** Commits the item's changes on its branch and applies them to the main working tree. */
  async mergeBack(index: number, item: string): Promise<MergeOutcome> {
    const path = this.pathOf(index);
    const branch = this.branchOf(index);
    await git(path, ['add', '-A']);
    const staged = await git(path, ['diff', '--cached', '--quiet']);
    if (staged.ok) {
      await this.remove(index, true);
      return { kind: 'unchanged' };
    }
    const commit = await git(path, [...COMMITTER, 'commit', '-q', '--no-verify', '-m', `murmur swarm: ${item}`]);
    if (!commit.ok) return { kind: 'conflict', branch, reason: `cannot commit the item's changes: ${commit.stderr.trim()}` };
    const patch = await git(path, ['diff', '--binary', '--no-color', this.base, 'HEAD']);
    const files = (await git(path, ['diff', '--name-only', this.base, 'HEAD'])).stdout.split('\n').filter(Boolean).length;
    // One queue per repository: everything inside runs unqueued (queueing again from here would wait on itself).
    return serialised(this.root, async (): Promise<MergeOutcome> => {
      const check = await git(this.root, ['apply', '--check', '--whitespace=nowarn', '-'], patch.stdout);
      if (!check.ok) {
        await this.removeNow(index, false);
        return { kind: 'conflict', branch, reason: `its changes do not apply to the working tree: ${check.stderr.trim().split('\n')[0] ?? 'conflict'}` };
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

  /** Removes the item's worktree; its branch too unless it must be kept. */
  remove(index: number, deleteBranch: boolean): Promise<void> {
    return serialised(this.root, () => this.removeNow(index, deleteBranch));
  }

  /** remove() for callers already inside the repository's queue. */
  private async removeNow(index: number, deleteBranch: boolean): Promise<void> {
    await git(this.root, ['worktree', 'remove', '--force', this.pathOf(index)]);
    if (deleteBranch) await git(this.root, ['branch', '-D', this.branchOf(index)]);
  }
}

/** Keeps murmur's state folder out of `git status` when it lives inside the repository. */
function excludeStateFolder(root: string, stateHome: string): void {
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
