// The check after a sandboxed item in a worktree: what the agent could use to run code outside its sandbox or to
// reach beyond its own work — the repository's protected git files (config, hooks, info/, its worktree's own
// commondir and gitdir) and every ref but the run's own item branches — is the same at its end as at its start.
// The sandbox keeps them read-only already; this is the second lock, and it names what moved.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { gitDirOf, protectedPathsInGitDir } from '../tools/fs/protected-paths.js';
import { git } from './git.js';

export interface ItemSeal {
  /** Protected path (absolute) -> fingerprint of what is there ('' when nothing). */
  files: Map<string, string>;
  /** Ref name -> object (HEAD of the main worktree included). */
  refs: Map<string, string>;
}

/** What is at `file`: content for a file, target for a link, names and contents for a folder ('' when nothing). */
function fingerprint(file: string): string {
  let stat;
  try {
    stat = lstatSync(file);
  } catch {
    return '';
  }
  const hash = createHash('sha1');
  if (stat.isSymbolicLink()) hash.update(`link:${readlinkSync(file)}`);
  else if (stat.isDirectory()) {
    for (const name of readdirSync(file).sort()) hash.update(`${name}\0${fingerprint(path.join(file, name))}\0`);
  } else {
    try {
      hash.update(`file:${stat.mode & 0o777}:`).update(readFileSync(file));
    } catch {
      hash.update('unreadable');
    }
  }
  return hash.digest('hex');
}

/** The protected git files that concern one worktree: the repository's own, and its worktree folder's. */
function sealedFiles(commonDir: string, worktreeGitDir: string | undefined, worktree: string): string[] {
  const files = protectedPathsInGitDir(commonDir).filter((file) => {
    const rel = path.relative(commonDir, file);
    if (!rel.startsWith(`worktrees${path.sep}`)) return true;
    return worktreeGitDir !== undefined && file.startsWith(`${worktreeGitDir}${path.sep}`);
  });
  return [...files, path.join(worktree, '.git')];
}

async function refsOf(root: string, ownPrefix: string): Promise<Map<string, string>> {
  const refs = new Map<string, string>();
  const listed = await git(root, ['for-each-ref', '--format=%(refname) %(objectname)']);
  for (const line of listed.stdout.split('\n')) {
    const [name, object] = line.split(' ');
    if (!name || !object || name.startsWith(`refs/heads/${ownPrefix}`)) continue;
    refs.set(name, object);
  }
  const head = await git(root, ['symbolic-ref', '-q', 'HEAD']);
  refs.set('HEAD', head.ok ? `-> ${head.stdout.trim()}` : (await git(root, ['rev-parse', '-q', 'HEAD'])).stdout.trim());
  return refs;
}

export interface SealPlace {
  /** The main repository's top folder. */
  root: string;
  /** Its git folder (common to every worktree). */
  commonDir: string;
  /** The item's worktree, and its own git folder. */
  worktree: string;
  worktreeGitDir: string | undefined;
  /** Branches under `refs/heads/<ownPrefix>` are the run's items', moved by murmur itself. */
  ownPrefix: string;
}

export async function sealItem(place: SealPlace): Promise<ItemSeal> {
  const files = new Map<string, string>();
  for (const file of sealedFiles(place.commonDir, place.worktreeGitDir, place.worktree))
    files.set(file, fingerprint(file));
  return { files, refs: await refsOf(place.root, place.ownPrefix) };
}

/** What changed since the seal (paths relative to the repository, ref names), empty when nothing. */
export async function brokenSeal(seal: ItemSeal, place: SealPlace): Promise<string[]> {
  const broken: string[] = [];
  const shown = (file: string) => {
    const rel = path.relative(place.root, file);
    return rel.startsWith('..') ? file : rel;
  };
  for (const [file, was] of seal.files) if (fingerprint(file) !== was) broken.push(shown(file));
  const now = await refsOf(place.root, place.ownPrefix);
  for (const name of new Set([...seal.refs.keys(), ...now.keys()]))
    if (seal.refs.get(name) !== now.get(name)) broken.push(name);
  return broken;
}

/** The seals of a swarm's items in one repository (item-N's taken when its agent starts in its worktree). */
export class ItemSeals {
  private readonly seals = new Map<number, ItemSeal>();
  /** The repository's git folder (shared by every worktree). */
  private commonDir: string | undefined;

  constructor(
    private readonly root: string,
    private readonly ownPrefix: string,
  ) {}

  async seal(index: number, worktree: string): Promise<void> {
    this.seals.set(index, await sealItem(await this.place(worktree)));
  }

  async broken(index: number, worktree: string): Promise<string[]> {
    const seal = this.seals.get(index);
    return seal ? brokenSeal(seal, await this.place(worktree)) : [];
  }

  private async place(worktree: string): Promise<SealPlace> {
    if (this.commonDir === undefined) {
      const found = await git(this.root, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
      this.commonDir = found.ok ? found.stdout.trim() : path.join(this.root, '.git');
    }
    return {
      root: this.root,
      commonDir: this.commonDir,
      worktree,
      worktreeGitDir: gitDirOf(path.join(worktree, '.git')),
      ownPrefix: this.ownPrefix,
    };
  }
}
