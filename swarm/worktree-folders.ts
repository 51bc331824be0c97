// Where a run's worktrees live: `<worktrees>/<swarmId>/item-N`, one folder per worktree, named after the item that
// made it. Read back on a resume: which worktree an agent works in (from its folder), and which ones of a swarm no
// item holds.
import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { git } from './git.js';

const NAME = /^item-\d+$/;

/** The worktree (swarm and folder name) that `workspaceRoot` lies in, or undefined when it is none of the run's. */
export function worktreeOf(
  worktrees: string,
  workspaceRoot: string,
): { swarmId: string; name: string; path: string } | undefined {
  const rel = relative(worktrees, workspaceRoot);
  const parts = rel.split(sep);
  if (rel.startsWith('..') || isAbsolute(rel) || parts.length < 2 || !NAME.test(parts[1]!)) return undefined;
  return { swarmId: parts[0]!, name: parts[1]!, path: join(worktrees, parts[0]!, parts[1]!) };
}

/** The worktrees in `folder` (one swarm's) that are not in `held`. */
export function unheldWorktrees(folder: string, held: ReadonlySet<string>): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .filter((name) => NAME.test(name))
    .map((name) => join(folder, name))
    .filter((path) => !held.has(path) && existsSync(join(path, '.git')));
}

/** Where a swarm's worktrees and branches are named: `<worktrees>/<swarmId>/item-N`, `<branchPrefix><swarmId>/…`. */
interface Naming {
  worktrees: string;
  swarmId: string;
  branchPrefix: string;
}

/**
 * The worktree a resumed subagent goes on in (`workspaceRoot`, possibly of another swarm of the run) and its
 * branch, or why it cannot be adopted. An item of this swarm keeps its own branch (`ownBranch`) wherever it works
 * (a pooled worktree is named after another item); a subagent of another swarm, the branch of its folder; a
 * worktree checked out on a branch (made before branch names carried the run's id, say), that one.
 */
export async function adoptedWorktree(
  naming: Naming,
  workspaceRoot: string,
  agentId: string,
  ownBranch: string,
  heldByAnother: (path: string) => boolean,
): Promise<{ path: string; branch: string } | string> {
  const found = worktreeOf(naming.worktrees, workspaceRoot);
  if (!found)
    return `subagent "${agentId}" works in ${workspaceRoot}, which is not a swarm worktree of this run; it cannot be resumed with isolation "worktree"`;
  const { path } = found;
  if (heldByAnother(path))
    return `subagent "${agentId}" shares the worktree ${path} with another resumed subagent; resume them in separate calls`;
  let branch = found.swarmId === naming.swarmId ? ownBranch : `${naming.branchPrefix}${found.swarmId}/${found.name}`;
  if (existsSync(join(path, '.git'))) {
    const head = await git(path, ['symbolic-ref', '--short', '-q', 'HEAD']);
    if (head.ok && head.stdout.trim()) branch = head.stdout.trim();
  }
  return { path, branch };
}
