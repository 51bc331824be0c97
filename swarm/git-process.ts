// One git process as murmur runs it on the host: the settings that would make git start a program switched off,
// and nothing of murmur's environment but what git needs (no API keys, no GIT_DIR or GIT_INDEX_FILE inherited
// from whatever started murmur). The reading of a repository's own drivers is git-drivers.ts; the entry point git.ts.
import path from 'node:path';

export interface GitResult {
  ok: boolean;
  /** git's exit status: `diff --quiet` says 1 for "differs", other failures say 128 and the like. */
  exitCode: number;
  stdout: string;
  stderr: string;
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

/** The environment git gets: enough to find itself, the user's config and locale; nothing secret. */
const PASSED_ENV = [
  ...'PATH HOME USER LOGNAME LANG LC_ALL LC_CTYPE LC_MESSAGES TZ TMPDIR'.split(' '),
  // Where the user keeps their (trusted) global and system config.
  ...'XDG_CONFIG_HOME GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_NOSYSTEM'.split(' '),
  // Windows needs these to start anything.
  ...'SYSTEMROOT COMSPEC PATHEXT'.split(' '),
];

/** The arguments every git process of murmur's starts with: no pager, and the safe settings. */
export function safeArgs(): string[] {
  return ['--no-pager', ...SAFE_CONFIG.flatMap((setting) => ['-c', setting])];
}

/** One git process with the safe settings and nothing of murmur's environment but `env`. */
export async function run(
  cwd: string,
  args: readonly string[],
  env: Record<string, string>,
  input?: string,
): Promise<GitResult> {
  // Loaded on the first git process, not at start-up (a run that never isolates work needs no git).
  const { execa } = await import('execa');
  // stripFinalNewline off: a patch without its last newline is "corrupt" to git apply.
  const result = await execa('git', [...safeArgs(), ...args], {
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

export function baseEnv(): Record<string, string> {
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

export function withConfigEnv(
  env: Record<string, string>,
  entries: readonly [string, string][],
): Record<string, string> {
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
export function subcommandIndex(args: readonly string[]): number {
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
export function effectiveCwd(cwd: string, globals: readonly string[]): string {
  let dir = cwd;
  for (let i = 0; i < globals.length; i++) {
    if (globals[i] === '-C' && globals[i + 1] !== undefined) dir = path.resolve(dir, globals[++i]!);
    else if (globals[i] === '-c') i++;
  }
  return dir;
}

export function words(list: string): ReadonlySet<string> {
  return new Set(list.split(' '));
}

export function refused(why: string): GitResult {
  return { ok: false, exitCode: 128, stdout: '', stderr: `murmur did not run git: ${why}\n` };
}
