// The drivers a repository's own config names — filters and merge drivers, per-protocol policies — read from every
// file that config includes (whatever the include's condition) and from each nested repository git would descend
// into, and turned into overrides that switch each one off. Filters and merge drivers set only in the system or the
// user's own config are trusted and left alone (git-lfs lives there). Read on every call: the config can change.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { baseEnv, effectiveCwd, type GitResult, refused, run, words } from './git-process.js';

const TRUSTED_SCOPES = words('system global');
// Past these, a call is refused rather than run with drivers left unchecked.
const MAX_INCLUDES = 100;
const MAX_NESTED = 200;
const MAX_NESTED_DEPTH = 10;

interface ConfigEntry {
  key: string;
  value: string | undefined;
  /** Set in the system or the user's config itself (not in a file one of them includes). */
  trusted: boolean;
  /** The file it came from, absolute or relative to the repository's top; undefined for the command line. */
  file: string | undefined;
}

/**
 * The config overrides that switch off every driver the repository (and, with `nested`, each nested repository
 * git would run `status` in) configures; a GitResult when the repository's config cannot be read (git would fail
 * on it the same way).
 */
export async function driverOverrides(
  cwd: string,
  globals: readonly string[],
  env: Record<string, string>,
  nested: boolean,
): Promise<Map<string, string> | GitResult> {
  // As git's own child does: GIT_DIR=.git in the nested folder, nothing of this repository's environment.
  const nestedEnv = { ...baseEnv(), GIT_DIR: '.git' };
  // The two reads are independent: side by side, they cost one spawn's time, not two.
  const [own, theirs] = await Promise.all([
    readConfig(cwd, globals, env),
    nested
      ? nestedRepositories(cwd, globals, env, nestedEnv).then(
          (dirs) => dirs && Promise.all(dirs.map((dir) => readConfig(dir, [], nestedEnv))),
        )
      : [],
  ]);
  if (!Array.isArray(own)) return own;
  if (!theirs) return refused(`more nested repositories than it checks (${MAX_NESTED}, ${MAX_NESTED_DEPTH} deep)`);
  const overrides = new Map<string, string>();
  addOverrides(own, overrides);
  // A nested config git cannot read fails git's own child there the same way: nothing runs from it.
  for (const entries of theirs) if (Array.isArray(entries)) addOverrides(entries, overrides);
  return overrides;
}

function addOverrides(entries: readonly ConfigEntry[], overrides: Map<string, string>): void {
  for (const { key, trusted } of entries) {
    const match = /^(filter|merge|protocol)\.(.*)\.([^.]+)$/i.exec(key);
    if (!match) continue;
    const [, section, name, variable] = match as unknown as [string, string, string, string];
    switch (section.toLowerCase()) {
      case 'filter':
        // Empty clean/smudge/process leave content as it is; a required filter would then fail: not required.
        if (trusted) break;
        for (const part of ['clean', 'smudge', 'process']) overrides.set(`filter.${name}.${part}`, '');
        overrides.set(`filter.${name}.required`, 'false');
        break;
      case 'merge':
        if (!trusted && variable.toLowerCase() === 'driver') overrides.set(`merge.${name}.driver`, 'false');
        break;
      default:
        // protocol.<name>.allow beats protocol.allow: a repository could let ext:: run a command.
        if (variable.toLowerCase() === 'allow') overrides.set(`protocol.${name}.allow`, 'never');
    }
  }
}

/**
 * Every config entry git may read in `cwd`, with every file an include names, whatever its condition (the
 * condition can hold for a child git where it does not here: a new worktree's branch, another git dir).
 */
async function readConfig(
  cwd: string,
  globals: readonly string[],
  env: Record<string, string>,
): Promise<ConfigEntry[] | GitResult> {
  const listing = ['config', '--list', '-z', '--no-includes', '--show-scope', '--show-origin'];
  const listed = await run(cwd, [...globals, ...listing], env);
  if (!listed.ok) return listed;
  const entries = parseConfig(listed.stdout, false);
  const seen = new Set<string>();
  let top: string | undefined;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (!isInclude(entry.key) || !entry.value || !entry.file) continue;
    let from = entry.file;
    if (!path.isAbsolute(from)) {
      // git reports the repository's own config relative to the top of its work tree.
      top ??= await topOf(cwd, globals, env);
      from = path.resolve(top, from);
    }
    const file = includedFile(entry.value, from, env.HOME);
    if (!file || seen.has(file) || !existsSync(file)) continue;
    if (seen.size >= MAX_INCLUDES) return refused(`the config includes more files than it checks (${MAX_INCLUDES})`);
    seen.add(file);
    const included = await run(cwd, [...globals, ...listing, '--file', file], env);
    // Entries appended here are walked by this same loop: includes inside included files are followed too.
    if (included.ok) entries.push(...parseConfig(included.stdout, true));
  }
  return entries;
}

async function topOf(cwd: string, globals: readonly string[], env: Record<string, string>): Promise<string> {
  const found = await run(cwd, [...globals, 'rev-parse', '--show-toplevel'], env);
  return found.ok ? found.stdout.trim() : effectiveCwd(cwd, globals);
}

function isInclude(key: string): boolean {
  const lower = key.toLowerCase();
  return lower === 'include.path' || (lower.startsWith('includeif.') && lower.endsWith('.path'));
}

/** The file an include names, as git resolves it; undefined for `%(prefix)/` (git's own, root-owned, install). */
function includedFile(value: string, from: string, home: string | undefined): string | undefined {
  if (value.startsWith('%(prefix)/')) return undefined;
  if (value === '~' || value.startsWith('~/')) return home ? path.join(home, value.slice(1)) : undefined;
  return path.resolve(path.dirname(from), value);
}

/** `git config --list -z --show-scope --show-origin`: scope NUL origin NUL key [LF value] NUL, repeated. */
function parseConfig(out: string, included: boolean): ConfigEntry[] {
  const fields = out.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [scope, origin, pair] = [fields[i]!, fields[i + 1]!, fields[i + 2]!];
    const newline = pair.indexOf('\n');
    entries.push({
      key: newline < 0 ? pair : pair.slice(0, newline),
      value: newline < 0 ? undefined : pair.slice(newline + 1),
      trusted: !included && TRUSTED_SCOPES.has(scope),
      file: origin.startsWith('file:') ? origin.slice('file:'.length) : undefined,
    });
  }
  return entries;
}

/**
 * The populated gitlinks (submodules, embedded repositories) under `cwd`'s repository, nested ones too; undefined
 * when there are too many to check.
 */
async function nestedRepositories(
  cwd: string,
  globals: readonly string[],
  env: Record<string, string>,
  nestedEnv: Record<string, string>,
  found: string[] = [],
  depth = 0,
): Promise<string[] | undefined> {
  // `:/` lists the whole index whatever folder git starts in; paths come back relative to that folder.
  const listed = await run(cwd, [...globals, 'ls-files', '-s', '-z', '--', ':/'], env);
  // An index git cannot list fails git's own commands on it too.
  if (!listed.ok) return found;
  for (const line of listed.stdout.split('\0')) {
    if (!line.startsWith('160000 ')) continue;
    const dir = path.resolve(effectiveCwd(cwd, globals), line.slice(line.indexOf('\t') + 1));
    if (found.includes(dir) || !existsSync(path.join(dir, '.git'))) continue;
    if (found.length >= MAX_NESTED || depth >= MAX_NESTED_DEPTH) return undefined;
    found.push(dir);
    if (!(await nestedRepositories(dir, [], nestedEnv, nestedEnv, found, depth + 1))) return undefined;
  }
  return found;
}
