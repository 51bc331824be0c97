// The git-ignored folders near a workspace's top (node_modules, dist, coverage, .pytest_cache…): where a
// verifier's test run may write in a workspace that is otherwise read-only to it. Read from the top .gitignore and
// .git/info/exclude with the `ignore` package (no git process), two levels deep: enough for build output and caches.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ignore from 'ignore';

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function folders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== '.git')
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** Absolute paths of the existing folders under `root` (at most two levels down) that its ignore rules ignore. */
export function ignoredFolders(root: string): string[] {
  const rules = `${read(path.join(root, '.gitignore'))}\n${read(path.join(root, '.git', 'info', 'exclude'))}`;
  if (rules.trim() === '') return [];
  const matcher = ignore().add(rules);
  const out: string[] = [];
  for (const name of folders(root)) {
    if (matcher.ignores(`${name}/`)) {
      out.push(path.join(root, name));
      continue;
    }
    for (const inner of folders(path.join(root, name)))
      if (matcher.ignores(`${name}/${inner}/`)) out.push(path.join(root, name, inner));
  }
  return out;
}
