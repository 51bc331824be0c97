// File listing that honours .gitignore, .ignore and .rgignore (nested ones too), and always hides sensitive
// files and .git folders. tinyglobby does the pattern matching; ignore rules are applied inside the crawl
// (through its `fs` hook) so an ignored folder is never entered.
import fs, { type Dirent } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { FileSystemAdapter, GlobOptions } from 'tinyglobby';
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
  /** gitignore-style patterns relative to `base` that are never listed, whatever includeIgnored says. */
  hidden?: readonly string[];
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

// Cheap pre-check so the full sensitive-file rules only run on names that could match them.
const MAYBE_SENSITIVE = /^\.|^id_|^credentials$|^config\.json$|\.(?:pem|key|p12|pfx)$/i;

function hasIgnoreFile(entries: readonly Dirent[]): boolean {
  for (const entry of entries) {
    const name = entry.name;
    if (name === '.gitignore' || name === '.ignore' || name === '.rgignore') return true;
  }
  return false;
}

const NO_RULES: Chain = [];

/** One listing session: caches each folder's ignore chain as the crawl descends. */
export class IgnoreWalker {
  /** A chain, or the promise of one while its ignore files are being read. */
  private readonly chains = new Map<string, Chain | Promise<Chain>>();
  /** Folders listed explicitly although ignored: rules from above them do not apply (as in ripgrep). */
  private readonly detached = new Set<string>();

  /** Folders outside the confinement folder that a crawl asked to list; they were never read. */
  readonly refused: string[] = [];
  /** The first error thrown while filtering a listing (a bug, not an unreadable folder): the crawl reports it. */
  failure: Error | undefined;

  private readonly hidden: Ignore | undefined;

  constructor(
    private readonly base: string,
    private readonly includeIgnored: boolean,
    hidden: readonly string[] = [],
  ) {
    this.hidden = hidden.length > 0 ? ignore({ allowRelativePaths: true }).add([...hidden]) : undefined;
  }

  /**
   * The chain of `dir`; synchronous when the parent's chain is known and `dir` has no ignore file of its own
   * (the common case, which keeps the crawl as fast as a plain one).
   */
  private chainFor(dir: string, entries?: readonly Dirent[]): Chain | Promise<Chain> {
    const known = this.chains.get(dir);
    if (known) return known;
    const parent = path.dirname(dir);
    const inherited: Chain | Promise<Chain> =
      dir === this.base || this.detached.has(dir) || parent === dir || !this.insideBase(parent)
        ? NO_RULES
        : this.chainFor(parent);
    if (entries && !hasIgnoreFile(entries) && !(inherited instanceof Promise)) {
      this.chains.set(dir, inherited);
      return inherited;
    }
    const names = entries ? entries.map((entry) => entry.name) : IGNORE_FILE_NAMES;
    const built = (async () => {
      const above = await inherited;
      const own = await readRules(dir, names);
      const chain = own ? [...above, { dir, rules: own }] : above;
      this.chains.set(dir, chain);
      return chain;
    })();
    this.chains.set(dir, built);
    return built;
  }

  private insideBase(dir: string): boolean {
    return (
      dir === this.base || (dir.startsWith(this.base) && dir[this.base.length] === path.sep) || isInside(this.base, dir)
    );
  }

  /** `dir` relative to the base with forward slashes and a trailing slash ('' for the base). */
  private relPrefix(dir: string): string {
    if (dir === this.base) return '';
    const rel = dir.startsWith(this.base + path.sep) ? dir.slice(this.base.length + 1) : path.relative(this.base, dir);
    return `${path.sep === '/' ? rel : rel.split(path.sep).join('/')}/`;
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

  /** Keeps the entries of `dir` a listing may show or enter, given the chain of `dir`. */
  private keep(dir: string, entries: readonly Dirent[], chain: Chain): Dirent[] {
    const relPrefix = this.relPrefix(dir);
    const prefixes = chain.length > 0 ? this.prefixesFor(chain, dir) : [];
    const kept: Dirent[] = [];
    for (const entry of entries) {
      // Symlinks are not followed (as ripgrep): they could lead out of the workspace.
      if (entry.isSymbolicLink()) continue;
      const name = entry.name;
      // .git internals are never listed (a .git file of a worktree neither, as with ripgrep's !.git glob).
      if (name === '.git') continue;
      const isDir = entry.isDirectory();
      if (!isDir && MAYBE_SENSITIVE.test(name) && isSensitivePath(relPrefix + name)) continue;
      if (this.hidden?.ignores(isDir ? `${relPrefix}${name}/` : relPrefix + name)) continue;
      if (chain.length > 0 && this.ignoredBy(chain, prefixes, name, isDir)) continue;
      kept.push(entry);
    }
    return kept;
  }

  /** Filters the entries of `dir` (for callers outside the crawl). */
  async filterEntries(dir: string, entries: Dirent[]): Promise<Dirent[]> {
    return this.keep(dir, entries, this.includeIgnored ? NO_RULES : await this.chainFor(dir, entries));
  }

  /**
   * An fs adapter for tinyglobby whose readdir leaves out what the rules hide and never lists a folder outside
   * `confineTo`. The check is on the folder the crawl asks for, so no pattern text (braces, "..", "./") can
   * lead it out. Errors are handed to the callback: a throw here would escape the fs callback and end the process.
   */
  fsAdapter(confineTo: string): FileSystemAdapter {
    const readdir = ((
      dirPath: string,
      _options: unknown,
      callback: (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void,
    ) => {
      // fdir hands absolute folder paths ending in a slash.
      const dir =
        path.isAbsolute(dirPath) && dirPath.length > 1 && dirPath.endsWith('/')
          ? dirPath.slice(0, -1)
          : path.resolve(dirPath);
      if (!isInside(confineTo, dir)) {
        this.refused.push(dir);
        callback(null, []);
        return;
      }
      const fail = (failure: unknown) => {
        const error = failure instanceof Error ? failure : new Error(String(failure));
        this.failure ??= error;
        callback(error, []);
      };
      fs.readdir(dir, { withFileTypes: true }, (error, entries) => {
        if (error) {
          callback(error, []);
          return;
        }
        const filter = (chain: Chain) => {
          let kept: Dirent[];
          try {
            kept = this.keep(dir, entries, chain);
          } catch (failure) {
            fail(failure);
            return;
          }
          callback(null, kept);
        };
        let chain: Chain | Promise<Chain>;
        try {
          chain = this.includeIgnored ? NO_RULES : this.chainFor(dir, entries);
        } catch (failure) {
          fail(failure);
          return;
        }
        if (chain instanceof Promise) chain.then(filter, fail);
        else filter(chain);
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
export async function hiddenPathCheck(
  base: string,
  searchRoot: string,
): Promise<(relToBase: string) => Promise<boolean>> {
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

export interface WalkResult {
  /** Files under `searchRoot` matching the patterns, relative to `searchRoot` with forward slashes. */
  files: string[];
  /** Folders outside `searchRoot` the patterns reached for (never listed). */
  outside: string[];
}

/** tinyglobby formats paths relative to its cwd: one that climbs out is never a result. */
function climbsOut(file: string): boolean {
  return file === '..' || file.startsWith('../') || path.isAbsolute(file);
}

/** Lists the files matching the patterns, never reading a folder outside `searchRoot`. */
export async function walkFiles(options: WalkOptions): Promise<WalkResult> {
  // Loaded on the first walk, not at start-up: tinyglobby brings fdir and picomatch (CommonJS, from node_modules).
  const { glob } = await import('tinyglobby');
  const walker = new IgnoreWalker(options.base, options.includeIgnored, options.hidden);
  if (!options.includeIgnored && options.searchRoot !== options.base) await walker.detachIfIgnored(options.searchRoot);
  const globOptions: GlobOptions = {
    cwd: options.searchRoot,
    dot: true,
    followSymbolicLinks: false,
    fs: walker.fsAdapter(options.searchRoot),
  };
  if (options.signal) globOptions.signal = options.signal;
  const found = await glob(options.patterns as string[], globOptions);
  if (walker.failure) throw walker.failure;
  return { files: found.filter((file) => !climbsOut(file)), outside: walker.refused };
}
