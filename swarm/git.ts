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
//   populated gitlink), the config of each of those is read the same way, since git's child there reads it
//   (git-drivers.ts);
// - hands git only the environment it needs: no API keys, no GIT_DIR or GIT_INDEX_FILE inherited from whatever
//   started murmur (git-process.ts).
// The config is read on every call, never cached: it can change between two calls.
import { driverOverrides } from './git-drivers.js';
import { baseEnv, type GitResult, run, subcommandIndex, withConfigEnv, words } from './git-process.js';

export type { GitResult } from './git-process.js';

export interface GitOptions {
  /** Environment for this call on top of the minimal one (a scratch GIT_INDEX_FILE, say). */
  env?: Record<string, string>;
}

/** Subcommands whose diffs may run diff.external, diff.<driver>.command or diff.<driver>.textconv. */
const DIFF_FAMILY = words('diff diff-tree diff-index diff-files show log whatchanged format-patch');
const TEXTCONV_ONLY = words('blame annotate');

/** Subcommands that read no file content (no filter can run): no config read before them. */
const READS_NO_CONTENT = words(
  'rev-parse symbolic-ref merge-base show-ref for-each-ref rev-list ls-tree write-tree update-ref branch config',
);

/**
 * Whether `git <sub> <rest>` reads no file content: a worktree made without a checkout, or removed by force (no
 * `status` to check that it is clean), runs no filter either.
 */
function readsNoContent(sub: string, rest: readonly string[]): boolean {
  if (READS_NO_CONTENT.has(sub)) return true;
  if (sub !== 'worktree') return false;
  const [action, ...options] = rest;
  return (
    action === 'prune' ||
    (action === 'add' && options.includes('--no-checkout')) ||
    (action === 'remove' && options.includes('--force'))
  );
}

/** Subcommands that never run `status` inside a nested repository: no nested repository config read. */
const NO_NESTED_STATUS = words(
  'apply clean cat-file ls-files read-tree checkout-index hash-object ' +
    'blame annotate diff-tree show log whatchanged format-patch',
);

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
  if (sub === undefined || !readsNoContent(sub, args.slice(at + 1))) {
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
