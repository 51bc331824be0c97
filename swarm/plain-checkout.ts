// Whether git writes and reads a repository's files as their bytes: no attributes file anywhere (a filter, an
// ident or a line-ending conversion could apply to any path) and no line-ending conversion in its config. Then a
// file's bytes in a worktree are the blob's bytes, and murmur may compare, copy and diff them without git.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { git } from './git.js';

/** Whether `rel` (`/`-separated, from the top) is an attributes file git reads in the work tree. */
export function isAttributesFile(rel: string): boolean {
  return rel === '.gitattributes' || rel.endsWith('/.gitattributes');
}

/** No attributes outside the tree (the repository's info/attributes, the user's, the system's) and no autocrlf. */
export async function plainCheckout(root: string): Promise<boolean> {
  const common = await git(root, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  if (!common.ok || existsSync(join(common.stdout.trim(), 'info', 'attributes'))) return false;
  const settings = await git(root, ['config', '--get-regexp', '^core\\.(autocrlf|attributesfile)$']);
  if (settings.stdout.split('\n').some((line) => line !== '' && !/^core\.autocrlf false$/i.test(line))) return false;
  // The system's attributes, where Debian's git (and one built for /usr/local) reads them.
  if (['/etc/gitattributes', '/usr/local/etc/gitattributes'].some((file) => existsSync(file))) return false;
  const xdg = process.env.XDG_CONFIG_HOME || (process.env.HOME ? join(process.env.HOME, '.config') : undefined);
  return xdg === undefined || !existsSync(join(xdg, 'git', 'attributes'));
}

/** A plain base's entries: path → git mode ('100644', '100755', '120000', '160000'), and every folder. */
export interface BaseListing {
  modes: Map<string, string>;
  folders: Set<string>;
}

/** The base's entries when its checkout is plain (above, and no attributes file in the base); else undefined. */
export async function plainBaseListing(root: string, base: string): Promise<BaseListing | undefined> {
  if (!(await plainCheckout(root))) return undefined;
  const listed = await git(root, ['ls-tree', '-r', '-z', '--full-tree', base]);
  if (!listed.ok) return undefined;
  const listing: BaseListing = { modes: new Map(), folders: new Set() };
  for (const entry of listed.stdout.split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const rel = entry.slice(tab + 1);
    // Attributes anywhere may turn on a filter or line-ending conversion for any file.
    if (isAttributesFile(rel)) return undefined;
    listing.modes.set(rel, entry.slice(0, entry.indexOf(' ')));
    for (let slash = rel.indexOf('/'); slash >= 0; slash = rel.indexOf('/', slash + 1))
      listing.folders.add(rel.slice(0, slash));
  }
  return listing;
}
