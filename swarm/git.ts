// The few git operations the swarm needs (worktrees, diffs, patches), serialised per repository so parallel
// items never race on git's lock files.
//
// murmur's own git is not a door. Everything in a repository that makes git start a program — hooks, fsmonitor,
// filter, diff and merge drivers, transports — is writable by whoever works in it, agents included, while these
// commands run on the host outside any sandbox. So every call here:
// - switches off each setting that runs a program (SAFE_CONFIG), and turns external diff and textconv drivers off
//   with `--no-ext-diff --no-textconv` on the diff family (git has no config value that disables them: an empty
//   `diff.external` or `diff.<name>.textconv` makes git fail to run "");
// - reads the repository's config (every file it includes, whatever the condition: `includeIf "onbranch:…"` can
//   switch on in the worktree `worktree add` checks out) and overrides each filter driver it names to a no-op,
//   each merge driver to `false` (a conflict) and each per-protocol policy to `never`. Filter and merge drivers
//   set only in the user's own (global) or the system config are left alone: those are trusted, and git-lfs lives
//   there. For commands that look into nested repositories (`add`, `status`, …: git runs `status` inside every
//   populated gitlink), the config of each of those is read the same way, since git's child there reads it;
// - hands git only the environment it needs: no API keys, no GIT_DIR or GIT_INDEX_FILE inherited from whatever
//   started murmur.
// The config is read on every call, never cached: it can change between two calls.
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import path from 'node:path';

export interface GitResult {
  ok: boolean;
  /** git's exit status: `diff --quiet` says 1 for "differs", other failures say 128 and the like. */
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  /** Environment for this call on top of the minimal one (a scratch GIT_INDEX_FILE, say). */
  env?: Record<string, string>;
}

/** Settings that make git run a program, each set so that it runs none. Callers' own `-c` come later and win. */
const SAFE_CONFIG: readonly string[] = [
  // Every hook (pre-commit, post-commit, post-checkout, post-index-change, reference-transaction, pre-auto-gc, …).
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  // Only a commit or merge without a message would ask; `false` makes it fail instead of running the repo's editor.
  'core.editor=false',
  // Auto gc / maintenance after a commit: more git processes (and the pre-auto-gc hook) for nothing.
  'gc.auto=0',
  'maintenance.auto=false',
  // gpg.program / gpg.ssh.program run only to sign or to show signatures.
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'log.showSignature=false',
  // Submodules are separate repositories with their own config: never recurse into them.
  'submodule.recurse=false',
  'status.submoduleSummary=false',
  // No transport at all (local operations only): this covers core.sshCommand, core.gitProxy, remote.*.uploadpack,
  // remote helpers (ext::), core.alternateRefsCommand and lazy fetches of a partial clone.
  'protocol.allow=never',
  'credential.helper=',
  'core.askPass=',
];

/** Subcommands whose diffs may run diff.external, diff.<driver>.command or diff.<driver>.textconv. */
const DIFF_FAMILY = words('diff diff-tree diff-index diff-files show log whatchanged format-patch');
const TEXTCONV_ONLY = words('blame annotate');

/** Subcommands that read no file content (no filter can run): no config read before them. */
const READS_NO_CONTENT = words(
  'rev-parse symbolic-ref merge-base show-ref for-each-ref rev-list ls-tree write-tree update-ref branch config',
);

/** Subcommands that never run `status` inside a nested repository: no nested repository config read. */
const NO_NESTED_STATUS = words(
  'apply clean cat-file ls-files read-tree checkout-index hash-object ' +
    'blame annotate diff-tree show log whatchanged format-patch',
);

/** The environment git gets: enough to find itself, the user's config and locale; nothing secret. */
const PASSED_ENV = [
  ...'PATH HOME USER LOGNAME LANG LC_ALL LC_CTYPE LC_MESSAGES TZ TMPDIR'.split(' '),
  // Where the user keeps their (trusted) global and system config.
  ...'XDG_CONFIG_HOME GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_NOSYSTEM'.split(' '),
  // Windows needs these to start anything.
  ...'SYSTEMROOT COMSPEC PATHEXT'.split(' '),
];

const TRUSTED_SCOPES = words('system global');
// Past these, a call is refused rather than run with drivers left unchecked.
const MAX_INCLUDES = 100;
const MAX_NESTED = 200;
const MAX_NESTED_DEPTH = 10;

const queues = new Map<string, Promise<unknown>>();

export async function git(
  cwd: string,
  args: readonly string[],
  input?: string,
  options: GitOptions = {},
): Promise<GitResult> {
  const env = { ...baseEnv(), ...options.env };
  const at = subcommandIndex(args);
  const globals = args.slice(0, at);
  const sub = args[at];
  let overrides = new Map<string, string>();
  if (sub === undefined || !READS_NO_CONTENT.has(sub)) {
    const found = await driverOverrides(cwd, globals, env, sub === undefined || !NO_NESTED_STATUS.has(sub));
    if (!(found instanceof Map)) return found;
    overrides = found;
  }
  const flags =
    sub !== undefined && DIFF_FAMILY.has(sub)
      ? ['--no-ext-diff', '--no-textconv']
      : sub !== undefined && TEXTCONV_ONLY.has(sub)
        ? ['--no-textconv']
        : [];
  const command = [...globals, ...(sub === undefined ? [] : [sub, ...flags]), ...args.slice(at + 1)];
  // A key with '=' in its name (`[filter "a=b"]`) cannot be spelled with -c: those go through GIT_CONFIG_COUNT.
  const viaC: string[] = [];
  const viaEnv: [string, string][] = [];
  for (const [key, value] of overrides) {
    if (key.includes('=')) viaEnv.push([key, value]);
    else viaC.push('-c', `${key}=${value}`);
  }
  return run(cwd, [...viaC, ...command], withConfigEnv(env, viaEnv), input);
}

/** Runs `work` after every earlier serialised operation on the same repository. */
export function serialised<T>(repo: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(repo) ?? Promise.resolve();
  const next = previous.then(work, work);
  queues.set(
    repo,
    next.catch(() => undefined),
  );
  return next;
}

/** The top folder of the repository holding `cwd`, or undefined outside one. */
export async function repoRoot(cwd: string): Promise<string | undefined> {
  const result = await git(cwd, ['rev-parse', '--show-toplevel']);
  return result.ok ? result.stdout.trim() : undefined;
}

/** One git process with the safe settings and nothing of murmur's environment but `env`. */
async function run(
  cwd: string,
  args: readonly string[],
  env: Record<string, string>,
  input?: string,
): Promise<GitResult> {
  const safe = SAFE_CONFIG.flatMap((setting) => ['-c', setting]);
  // stripFinalNewline off: a patch without its last newline is "corrupt" to git apply.
  const result = await execa('git', ['--no-pager', ...safe, ...args], {
    cwd,
    reject: false,
    stripFinalNewline: false,
    ...(input !== undefined ? { input } : { stdin: 'ignore' as const }),
    env,
    extendEnv: false,
  });
  return {
    ok: result.exitCode === 0,
    exitCode: result.exitCode ?? -1,
    stdout: String(result.stdout ?? ''),
    stderr: String(result.stderr ?? ''),
  };
}

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  env.GIT_TERMINAL_PROMPT = '0';
  // git ≥ 2.44: a partial clone's missing objects are not fetched (protocol.allow=never refuses them anyway).
  env.GIT_NO_LAZY_FETCH = '1';
  return env;
}

function withConfigEnv(env: Record<string, string>, entries: readonly [string, string][]): Record<string, string> {
  if (entries.length === 0) return env;
  const first = Number(env.GIT_CONFIG_COUNT ?? 0) || 0;
  const out: Record<string, string> = { ...env, GIT_CONFIG_COUNT: String(first + entries.length) };
  entries.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${first + i}`] = key;
    out[`GIT_CONFIG_VALUE_${first + i}`] = value;
  });
  return out;
}

/** Where the subcommand sits in `args` (after global options such as `-c k=v` and `-C dir`); args.length if none. */
function subcommandIndex(args: readonly string[]): number {
  const withValue = new Set(['-c', '-C', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix']);
  let i = 0;
  while (i < args.length) {
    const arg = args[i]!;
    if (withValue.has(arg)) i += 2;
    else if (arg.startsWith('-')) i += 1;
    else return i;
  }
  return args.length;
}

/** The folder git works from once `-C` options are applied. */
function effectiveCwd(cwd: string, globals: readonly string[]): string {
  let dir = cwd;
  for (let i = 0; i < globals.length; i++) {
    if (globals[i] === '-C' && globals[i + 1] !== undefined) dir = path.resolve(dir, globals[++i]!);
    else if (globals[i] === '-c') i++;
  }
  return dir;
}

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
async function driverOverrides(
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

function words(list: string): ReadonlySet<string> {
  return new Set(list.split(' '));
}

function refused(why: string): GitResult {
  return { ok: false, exitCode: 128, stdout: '', stderr: `murmur did not run git: ${why}\n` };
}
