// Keeps murmur's state folder (sessions, worktrees) out of `git status` when it lives inside the repository, so no
// merge ever picks it up.
import { appendFileSync, existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

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
