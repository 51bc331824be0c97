// Worktree isolation: each worker edits its own git worktree on a branch from HEAD; when it completes its
// changes are applied to the main working tree. A conflict keeps the branch, so nothing is lost.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { git, repoRoot, serialised } from './git.js';

export type MergeOutcome = { kind: 'merged'; files: number } | { kind: 'unchanged' } | { kind: 'conflict'; branch: string; reason: string };

const COMMITTER = ['-c', 'user.name=murmur', '-c', 'user.email=murmur@localhost', '-c', 'commit.gpgsign=false'];

export class WorktreeIsolation {
  private constructor(
    readonly root: string,
    readonly base: string,
    private readonly dir: string,
    private readonly swarmId: string,
  ) {}

  /** Checks that `cwd` is in a git repository with a commit; the error says what is missing. */
  static async open(cwd: string, stateDir: string, swarmId: string): Promise<WorktreeIsolation | string> {
    const root = await repoRoot(cwd);
    if (!root) return `isolation "worktree" needs a git repository, and ${cwd} is not inside one (run git init and commit, or drop --isolation)`;
    const head = await git(root, ['rev-parse', '--verify', 'HEAD']);
    if (!head.ok) return `isolation "worktree" needs a commit to branch from, and the repository at ${root} has none yet`;
    const dir = join(stateDir, 'worktrees', swarmId);
    mkdirSync(dir, { recursive: true });
    excludeStateFolder(root, stateDir);
    return new WorktreeIsolation(root, head.stdout.trim(), dir, swarmId);
  }

  branchOf(index: number): string {
    return `murmur/${this.swarmId}/item-${index + 1}`;
  }

  pathOf(index: number): string {
    return join(this.dir, `item-${index + 1}`);
  }

  /** Creates (or reuses, after a resume) the item's worktree; returns its folder. */
  async prepare(index: number): Promise<string> {
    const path = this.pathOf(index);
    if (existsSync(join(path, '.git'))) return path;
    const branch = this.branchOf(index);
    const made = await serialised(this.root, () => git(this.root, ['worktree', 'add', '-B', branch, path, this.base]));
    if (!made.ok) throw new Error(`git worktree add failed for ${branch}: ${made.stderr.trim()}`);
    return path;
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
    return serialised(this.root, async () => {
      const check = await git(this.root, ['apply', '--check', '--whitespace=nowarn', '-'], patch.stdout);
      if (!check.ok) {
        await this.remove(index, false);
        return { kind: 'conflict', branch, reason: `its changes do not apply to the working tree: ${check.stderr.trim().split('\n')[0] ?? 'conflict'}` } as MergeOutcome;
      }
      const applied = await git(this.root, ['apply', '--whitespace=nowarn', '-'], patch.stdout);
      if (!applied.ok) {
        await this.remove(index, false);
        return { kind: 'conflict', branch, reason: applied.stderr.trim() } as MergeOutcome;
      }
      await this.remove(index, true);
      return { kind: 'merged', files } as MergeOutcome;
    });
  }

  /** Removes the item's worktree; its branch too unless it must be kept. */
  async remove(index: number, deleteBranch: boolean): Promise<void> {
    await serialised(this.root, async () => {
      await git(this.root, ['worktree', 'remove', '--force', this.pathOf(index)]);
      if (deleteBranch) await git(this.root, ['branch', '-D', this.branchOf(index)]);
    });
  }
}

/** Keeps murmur's state folder out of `git status` when it lives inside the repository. */
function excludeStateFolder(root: string, stateDir: string): void {
  const rel = relative(root, stateDir);
  if (rel.startsWith('..') || rel === '') return;
  const top = rel.split(sep)[0]!;
  const exclude = join(root, '.git', 'info', 'exclude');
  try {
    const current = existsSync(exclude) ? readFileSync(exclude, 'utf8') : '';
    if (!current.split('\n').includes(`/${top}/`)) {
      mkdirSync(join(root, '.git', 'info'), { recursive: true });
      appendFileSync(exclude, `${current.endsWith('\n') || current === '' ? '' : '\n'}/${top}/\n`);
    }
  } catch {
    // A worktree checkout (.git is a file) or a read-only repo: the folder just shows as untracked.
  }
}
