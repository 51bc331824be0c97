// The few git operations the swarm needs (worktrees, diffs, patches), serialised per repository so parallel
// items never race on git's lock files.
import { execa } from 'execa';

export interface GitResult {
  ok: boolean;
  /** git's exit status: `diff --quiet` says 1 for "differs", other failures say 128 and the like. */
  exitCode: number;
  stdout: string;
  stderr: string;
}

const queues = new Map<string, Promise<unknown>>();

export async function git(cwd: string, args: readonly string[], input?: string): Promise<GitResult> {
  // stripFinalNewline off: a patch without its last newline is "corrupt" to git apply.
  const result = await execa('git', args, {
    cwd,
    reject: false,
    stripFinalNewline: false,
    ...(input !== undefined ? { input } : { stdin: 'ignore' }),
    env: { GIT_TERMINAL_PROMPT: '0' },
  });
  return {
    ok: result.exitCode === 0,
    exitCode: result.exitCode ?? -1,
    stdout: String(result.stdout ?? ''),
    stderr: String(result.stderr ?? ''),
  };
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
