// File listing that honours .gitignore, .ignore and .rgignore (nested ones too), and always hides sensitive
// files and .git folders. tinyglobby does the pattern matching; ignore rules are applied inside the crawl
// (through its `fs` hook) so an ignored folder is never entered.
import fs, { type Dirent } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { glob, type FileSystemAdapter, type GlobOptions } from 'tinyglobby';
import { isSensitivePath } from './sensitive.js';
import { isInside } from './workspace-paths.js';

/** Later files take precedence, as in ripgrep: .gitignore < .ignore < .rgignore. */
export const IGNORE_FILE_NAMES = ['.gitignore', '.ignore', '.rgignore'] as const;

interface Matcher {
  dir: string;
  rules: Ignore;
}

/** Ignore matchers that apply in a folder, shallowest first. */
type Chain = readonly Matcher[];

export interface WalkOptions {
  /** Real path of the allowed root the walk happens in: ignore files above it are not read. */
  base: string;
  /** Folder to list from (real path, inside `base`). */
  searchRoot: string;
  /** tinyglobby patterns, relative to `searchRoot`. */
  patterns: readonly string[];
  includeIgnored: boolean;
  signal?: AbortSignal;
}

async function readRules(dir: string, names: readonly string[]): Promise<Ignore | undefined> {
  let rules: Ignore | undefined;
  for (const name of IGNORE_FILE_NAMES) {
    if (!names.includes(name)) continue;
    let text: string;
    try {
      text = await readFile(path.join(dir, name), 'utf8');
    } catch {
      continue;
    }
    rules ??= ignore({ ignorecase: false, allowRelativePaths: true });
    rules.add(text);
  }
  return rules;
}

function couldBeSensitive(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    lower.startsWith('.') ||
    lower.startsWith('id_') ||
    lower === 'credentials' ||
    lower === 'config.json' ||
    lower.endsWith('.pem') ||
    lower.endsWith('.key') ||
    lower.endsWith('.p12') ||
    lower.endsWith('.pfx')
  );
}

/** One listing session: caches each folder's ignore chain as the crawl descends. */
export class IgnoreWalker {
  private readonly chains = new Map<string, Promise<Chain>>();
  /** Folders listed explicitly although ignored: rules from above them do not apply (as in ripgrep). */
  private readonly detached = new Set<string>();

  constructor(
    private readonly base: string,
    private readonly includeIgnored: boolean,
  ) {}

  private chainFor(dir: string, names?: readonly string[]): Promise<Chain> {
    let chain = this.chains.get(dir);
    if (!chain) {
      chain = this.buildChain(dir, names);
      this.chains.set(dir, chain);
    }
    return chain;
  }

  private async buildChain(dir: string, names?: readonly string[]): Promise<Chain> {
    const parent = path.dirname(dir);
    const inherited = dir === this.base || this.detached.has(dir) || parent === dir || !isInside(this.base, parent) ? [] : await this.chainFor(parent);
    const own = await readRules(dir, names ?? IGNORE_FILE_NAMES);
    return own ? [...inherited, { dir, rules: own }] : inherited;
  }

  /** Whether the entry `name` (a folder when isDir) in `dir` is ignored by the chain of `dir`. */
  private ignoredBy(chain: Chain, prefixes: readonly string[], name: string, isDir: boolean): boolean {
    for (let i = chain.length - 1; i >= 0; i--) {
      const rel = prefixes[i]! + name + (isDir ? '/' : '');
      const verdict = chain[i]!.rules.test(rel);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }

  private prefixesFor(chain: Chain, dir: string): string[] {
    return chain.map((matcher) => {
      const rel = path.relative(matcher.dir, dir);
      return rel === '' ? '' : `${rel.split(path.sep).join('/')}/`;
    });
  }

  /** Whether a path (file or folder) is hidden by the ignore rules of the folders above it. */
  async isIgnored(abs: string, isDir: boolean): Promise<boolean> {
    if (this.includeIgnored || abs === this.base) return false;
    const dir = path.dirname(abs);
    const chain = await this.chainFor(dir);
    return this.ignoredBy(chain, this.prefixesFor(chain, dir), path.basename(abs), isDir);
  }

  /** Lets an explicitly given folder be listed even when a rule above it ignores it. */
  async detachIfIgnored(dir: string): Promise<void> {
    if (await this.isIgnored(dir, true)) this.detached.add(dir);
  }

  /** Keeps the entries of `dir` a listing may show or enter. */
  async filterEntries(dir: string, entries: Dirent[]): Promise<Dirent[]> {
    const relDir = path.relative(this.base, dir).split(path.sep).join('/');
    const relPrefix = relDir === '' ? '' : `${relDir}/`;
    let chain: Chain = [];
    let prefixes: string[] = [];
    if (!this.includeIgnored) {
      chain = await this.chainFor(
        dir,
        entries.map((entry) => entry.name),
      );
      prefixes = this.prefixesFor(chain, dir);
    }
    const kept: Dirent[] = [];
    for (const entry of entries) {
      // Symlinks are not followed (as ripgrep): they could lead out of the workspace.
      if (entry.isSymbolicLink()) continue;
      const isDir = entry.isDirectory();
      if (isDir && entry.name === '.git') continue;
      if (!isDir && couldBeSensitive(entry.name) && isSensitivePath(relPrefix + entry.name)) continue;
      if (chain.length > 0 && this.ignoredBy(chain, prefixes, entry.name, isDir)) continue;
      kept.push(entry);
    }
    return kept;
  }

  /** An fs adapter for tinyglobby whose readdir leaves out what the rules hide. */
  fsAdapter(): FileSystemAdapter {
    const readdir = ((dirPath: string, options: unknown, callback: (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void) => {
      fs.readdir(dirPath, { withFileTypes: true }, (error, entries) => {
        if (error) {
          callback(error, []);
          return;
        }
        this.filterEntries(path.resolve(dirPath), entries).then(
          (kept) => callback(null, kept),
          (failure: NodeJS.ErrnoException) => callback(failure, []),
        );
      });
    }) as unknown as FileSystemAdapter['readdir'];
    return { readdir };
  }
}

/**
 * A check for single paths under `searchRoot` (relative to `base`): whether ignore rules hide the file or any
 * folder between `searchRoot` and it. ripgrep lets a --glob whitelist override ignore files; grep uses this
 * to keep ignored files out anyway.
 */
export async function hiddenPathCheck(base: string, searchRoot: string): Promise<(relToBase: string) => Promise<boolean>> {
  const walker = new IgnoreWalker(base, false);
  await walker.detachIfIgnored(searchRoot);
  return async (relToBase) => {
    const abs = path.join(base, relToBase);
    const rel = path.relative(searchRoot, abs);
    const parts = rel.split(path.sep);
    let current = searchRoot;
    for (let i = 0; i < parts.length; i++) {
      current = path.join(current, parts[i]!);
      if (await walker.isIgnored(current, i < parts.length - 1)) return true;
    }
    return false;
  };
}

/** Files under `searchRoot` matching the patterns, relative to `searchRoot` with forward slashes. */
export async function walkFiles(options: WalkOptions): Promise<string[]> {
  const walker = new IgnoreWalker(options.base, options.includeIgnored);
  if (!options.includeIgnored && options.searchRoot !== options.base) await walker.detachIfIgnored(options.searchRoot);
  const globOptions: GlobOptions = {
    cwd: options.searchRoot,
    dot: true,
    followSymbolicLinks: false,
    fs: walker.fsAdapter(),
  };
  if (options.signal) globOptions.signal = options.signal;
  return glob(options.patterns as string[], globOptions);
}
