// Where a run's worktrees live: `<worktrees>/<swarmId>/item-N`, one folder per worktree, named after the item that
// made it. Read back on a resume: which worktree an agent works in (from its folder), and which ones of a swarm no
// item holds.
import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

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
