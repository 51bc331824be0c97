// bash: runs a shell command in the workspace. Output streams as it comes; stdin is closed; a timeout or an
// abort stops the whole process group; secrets are kept out of the environment; long-running commands can
// go to the task store the tool is made with; murmur-tools is on PATH with the agent's lease when the bridge is on.
import { stat } from 'node:fs/promises';
import { delimiter } from 'node:path';
import { Type } from '@sinclair/typebox';
import type { ShellBridgeLease, TaskOutcome } from '../adapters.js';
import {
  defineRuntimeTool,
  errorResult,
  textResult,
  type RuntimeTool,
  type ToolContext,
  type ToolResult,
  type ToolUpdate,
  type ToolTraits,
} from '../contract.js';
import type { TaskStore } from '../ports.js';
import { booleanArguments, numberArguments } from '../fs/tool-args.js';
import { resolveToolPath } from '../fs/workspace-paths.js';
import { isRecord } from '../util/is-record.js';
import { HeadTailBuffer } from './output-buffer.js';
import { runInProcessGroup, type GroupRunResult, type ProcessWrapper } from './process-group.js';
import { ignoredFolders } from './ignored-folders.js';
import { bwrapArguments, sandboxMounts } from './sandbox.js';
import { restoreProtected, snapshotProtected, undoneNote } from './sandbox-guard.js';
import { scrubSecrets } from './secret-env.js';

export const BASH_DEFAULT_TIMEOUT_MS = 60_000;
export const BASH_MAX_TIMEOUT_MS = 5 * 60_000;
export const BASH_BACKGROUND_DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** Output kept in memory per command (head and tail); the result budget handles what reaches the model. */
export const BASH_MAX_OUTPUT_CHARS = 8 * 1024 * 1024;

export const bashParameters = Type.Object({
  command: Type.String({
    description: 'The command, run by bash -c. stdin is closed: interactive programs get end-of-input at once.',
  }),
  cwd: Type.Optional(Type.String({ description: 'Folder to run in (default: the workspace root).' })),
  timeout: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: `Milliseconds before the command is stopped: default ${BASH_DEFAULT_TIMEOUT_MS / 1000} s, at most ${BASH_MAX_TIMEOUT_MS / 60_000} min; in the background default ${BASH_BACKGROUND_DEFAULT_TIMEOUT_MS / 60_000} min.`,
    }),
  ),
  run_in_background: Type.Optional(
    Type.Boolean({
      description:
        'Start the command as a background task and return its task id at once (servers, long builds). Needs description.',
    }),
  ),
  description: Type.Optional(
    Type.String({ description: 'A few words saying what the command does (required with run_in_background).' }),
  ),
  disable_timeout: Type.Optional(Type.Boolean({ description: 'Background only: let the task run without a timeout.' })),
});

type BashInput = {
  command: string;
  cwd?: string;
  timeout?: number;
  run_in_background?: boolean;
  description?: string;
  disable_timeout?: boolean;
};

function prepareBashArguments(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const args = { ...raw };
  numberArguments(args, ['timeout']);
  booleanArguments(args, ['run_in_background', 'disable_timeout']);
  return args;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** What to say about processes that left the command's process group: a group kill does not reach them. */
function escapedNote(run: GroupRunResult): string {
  if (!run.escaped) return '';
  const many = run.escaped.length > 1;
  const listed = run.escaped.map((p) => `pid ${p.pid} (${p.command})`).join(', ');
  const which = listed ? `: ${listed}` : ' (it kept the output open)';
  const cut = run.outputCut ? ` ${many ? 'Their' : 'Its'} later output is not shown.` : '';
  const kill =
    run.escaped.length > 0
      ? ` Stop ${many ? 'them' : 'it'} with kill ${run.escaped.map((p) => p.pid).join(' ')} if ${many ? 'they' : 'it'} should not keep running;`
      : '';
  const who = many ? 'Processes left' : 'A process left';
  return ` ${who} the command's process group and may still run${which}.${cut}${kill} use run_in_background for processes meant to keep running.`;
}

function statusLine(run: GroupRunResult, timeoutMs: number | undefined): { text: string; isError: boolean } {
  if (run.spawnError) return { text: `The command could not be started: ${run.spawnError}`, isError: true };
  const note = escapedNote(run);
  const stopped = note
    ? "the command's process group was stopped."
    : 'the command and every process it started were stopped.';
  if (run.timedOut) return { text: `Timed out after ${seconds(timeoutMs ?? 0)}: ${stopped}${note}`, isError: true };
  if (run.aborted) return { text: `Aborted: ${stopped}${note}`, isError: true };
  if (run.exitCode === undefined) return { text: `Ended by signal ${run.signal ?? 'unknown'}.${note}`, isError: true };
  return { text: `Exit code ${run.exitCode}.${note}`, isError: run.exitCode !== 0 };
}

async function workingFolder(
  ctx: ToolContext,
  cwd: string | undefined,
): Promise<{ ok: true; path: string } | { ok: false; error: string }> {
  const resolved = await resolveToolPath(ctx, cwd ?? '.', 'write');
  if (!resolved.ok) return { ok: false, error: `cwd: ${resolved.error}` };
  const folder = resolved.value;
  if (!folder.exists) return { ok: false, error: `cwd ${folder.display} does not exist` };
  if (!(await stat(folder.real)).isDirectory())
    return { ok: false, error: `cwd ${folder.display} is a file, not a folder` };
  return { ok: true, path: folder.real };
}

/** Starts a command as a background task: one of bash's two ways to run in the background (see createBashTool). */
type BackgroundStart = (
  ctx: ToolContext,
  input: BashInput,
  cwd: string,
  env: Record<string, string>,
  confinement: Confinement | undefined,
) => ToolResult;

const noBackground: BackgroundStart = () =>
  errorResult(
    'Background commands are not available here (no background task registry); run the command in the foreground instead.',
  );

const startInBackground =
  (tasks: TaskStore): BackgroundStart =>
  (ctx, input, cwd, env, confinement) => {
    const description = input.description?.trim();
    if (!description)
      return errorResult('run_in_background needs a description: a few words saying what the command does.');
    const timeoutMs = input.disable_timeout ? undefined : (input.timeout ?? BASH_BACKGROUND_DEFAULT_TIMEOUT_MS);
    const spec = {
      kind: 'bash' as const,
      description,
      meta: { command: input.command, cwd },
      async run(io: { signal: AbortSignal; write(chunk: string): void }): Promise<TaskOutcome> {
        const settle = confinement?.watch();
        const run = await runInProcessGroup({
          command: input.command,
          cwd,
          env,
          ...(confinement ? { wrapper: confinement.wrapper } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          signal: io.signal,
          onOutput: (text) => io.write(text),
        });
        const undone = settle?.() ?? '';
        if (undone) io.write(`\n${undone}\n`);
        const status = statusLine(run, timeoutMs);
        if (run.timedOut) return { status: 'timeout', result: status.text };
        if (run.aborted) return { status: 'aborted', result: status.text };
        return { status: status.isError ? 'failed' : 'completed', result: status.text };
      },
    };
    const info = tasks.viewFor(ctx.agentId).start(timeoutMs !== undefined ? { ...spec, timeoutMs } : spec);
    const limit = timeoutMs === undefined ? 'no timeout' : `timeout ${seconds(timeoutMs)}`;
    return textResult(
      `Started background task ${info.taskId} (${description}; ${limit}). Its output goes to ${info.outputPath}. ` +
        'You will be told when it finishes; carry on with other work meanwhile.',
      { taskId: info.taskId, outputPath: info.outputPath },
    );
  };

/** murmur-tools on PATH and the agent's lease in the environment, when the bridge is on for this agent. */
async function addBridgeLease(ctx: ToolContext, env: Record<string, string>): Promise<ShellBridgeLease | undefined> {
  const lease = await ctx.shellBridge?.lease();
  if (!lease) return undefined;
  Object.assign(env, lease.variables);
  env.PATH = env.PATH ? `${lease.binDir}${delimiter}${env.PATH}` : lease.binDir;
  return lease;
}

/** Where the command's processes run, and what to undo after it: the run's sandbox when it has one (see sandbox.ts). */
interface Confinement {
  wrapper: ProcessWrapper;
  /**
   * Notes the protected paths just before the command (sandbox-guard.ts); the function it returns, called when the
   * command has ended, undoes what the command did to them and gives the sentence for its result ('' when nothing).
   */
  watch(): () => string;
}

function confinementFor(
  ctx: ToolContext,
  cwd: string,
  env: Record<string, string>,
  lease: ShellBridgeLease | undefined,
): Confinement | undefined {
  const sandbox = ctx.env?.sandbox;
  if (!sandbox) return undefined;
  const root = ctx.workspace?.root ?? ctx.cwd;
  const extraRoots = ctx.workspace?.extraRoots ?? [];
  const readOnlyRoot = sandbox.readOnlyWorkspace === true;
  const plan = sandboxMounts({
    sandbox,
    root,
    extraRoots,
    cwd,
    home: env.HOME,
    runtimeDir: env.XDG_RUNTIME_DIR,
    lease,
    ...(readOnlyRoot ? { readOnlyRoot, ignoredFolders: ignoredFolders(root) } : {}),
  });
  // Inside, /tmp is the sandbox's own; the agent socket of the user's ssh-agent is not there.
  env.TMPDIR = '/tmp';
  delete env.SSH_AUTH_SOCK;
  const roots = readOnlyRoot ? extraRoots : [root, ...extraRoots];
  return {
    wrapper: { file: sandbox.bwrap, args: bwrapArguments(plan) },
    watch: () => {
      const snapshot = snapshotProtected(plan.guarded, roots);
      return () => undoneNote(restoreProtected(snapshot, root));
    },
  };
}

async function executeBash(
  background: BackgroundStart,
  ctx: ToolContext,
  input: BashInput,
  signal: AbortSignal,
  onUpdate: (update: ToolUpdate) => void,
): Promise<ToolResult> {
  if (input.command.trim() === '') return errorResult('command is empty; give a shell command to run.');
  const inBackground = input.run_in_background === true;
  if (input.disable_timeout && !inBackground)
    return errorResult('disable_timeout applies only to background commands (run_in_background: true).');
  if (!inBackground && input.timeout !== undefined && input.timeout > BASH_MAX_TIMEOUT_MS) {
    return errorResult(
      `timeout ${input.timeout} ms is above the foreground maximum of ${BASH_MAX_TIMEOUT_MS} ms (5 min); ` +
        'give a smaller timeout, or run the command with run_in_background: true.',
    );
  }
  const folder = await workingFolder(ctx, input.cwd);
  if (!folder.ok) return errorResult(folder.error);
  // Configured patterns add to the defaults: a narrow list in murmur.toml must not let API keys through.
  const env = scrubSecrets(process.env, ctx.env?.secretPatterns ?? []);
  // Added after the secrets are stripped, so the stripping never removes the lease.
  const lease = await addBridgeLease(ctx, env);
  const confinement = confinementFor(ctx, folder.path, env, lease);
  if (inBackground) return background(ctx, input, folder.path, env, confinement);
  const timeoutMs = input.timeout ?? BASH_DEFAULT_TIMEOUT_MS;
  const output = new HeadTailBuffer(BASH_MAX_OUTPUT_CHARS);
  const settle = confinement?.watch();
  const run = await runInProcessGroup({
    command: input.command,
    cwd: folder.path,
    env,
    ...(confinement ? { wrapper: confinement.wrapper } : {}),
    timeoutMs,
    signal,
    onOutput: (text) => {
      output.append(text);
      onUpdate({ text });
    },
  });
  const undone = settle?.() ?? '';
  const status = statusLine(run, timeoutMs);
  const text = output.toString().replace(/\n+$/, '');
  const body = `${text === '' ? '(no output)' : text}\n\n${status.text}${undone ? `\n${undone}` : ''}`;
  const details = {
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    aborted: run.aborted,
    ...(run.escaped ? { escapedPids: run.escaped.map((p) => p.pid) } : {}),
  };
  return status.isError ? errorResult(body, details) : textResult(body, details);
}

/** bash's traits: a rule's parentheses match the command it runs (`bash(npm test*)`); it is never read-only. */
export const BASH_TRAITS = { ruleArgument: 'command' } as const satisfies ToolTraits;

/**
 * bash, with background commands in `tasks`. Without a task store (the loop's fallback bash, tests) a command
 * asked to run in the background is refused with the reason.
 */
export function createBashTool(tasks?: TaskStore): RuntimeTool {
  const background = tasks ? startInBackground(tasks) : noBackground;
  return defineRuntimeTool({
    def: {
      ...BASH_TRAITS,
      name: 'bash',
      description:
        'Run a shell command (bash -c) in the workspace and get its output (stdout and stderr together) and exit code. ' +
        `Default timeout ${BASH_DEFAULT_TIMEOUT_MS / 1000} s, at most ${BASH_MAX_TIMEOUT_MS / 60_000} min; on timeout the command and everything it started are stopped. ` +
        'stdin is closed, so interactive prompts get end-of-input. For servers or long jobs set run_in_background: true with a ' +
        'description: you get a task id at once and are told when it ends. Secrets (*_API_KEY, *_TOKEN, *_SECRET, *_KEY, credentials…) are not in the environment. ' +
        'Prefer read, grep, glob and edit over cat, grep, find and sed.',
      parameters: bashParameters,
      prepareArguments: prepareBashArguments,
      executionMode: 'sequential',
    },
    execute: (ctx, input, signal, onUpdate) => executeBash(background, ctx, input, signal, onUpdate),
  });
}
