// Runs a shell command as the leader of its own process group, so a timeout or an abort can stop the
// command and everything it started: SIGTERM to the group, a grace period, then SIGKILL. No process may
// outlive its command — except one that left the group (setsid, a daemon): that one is reported, and its
// open output pipe no longer holds the command up.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import {
  COMMAND_MARKER_VARIABLE,
  findEscapedProcesses,
  newCommandMarker,
  type EscapedProcess,
} from './escaped-processes.js';

export const KILL_GRACE_MS = 5_000;
/**
 * Once the group is gone, how long the output pipes may stay open. They close at once unless a process outside
 * the group holds them; this only lets output already written arrive.
 */
export const OUTPUT_DRAIN_MS = 250;

const SHELL = existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';

/** A program a command's shell runs under: its path and arguments; the shell and its own come after them. */
export interface ProcessWrapper {
  file: string;
  args: readonly string[];
}

export interface GroupRunOptions {
  command: string;
  cwd: string;
  env: Record<string, string>;
  /** Undefined = no timeout. */
  timeoutMs?: number;
  signal?: AbortSignal;
  graceMs?: number;
  /** See OUTPUT_DRAIN_MS. */
  drainMs?: number;
  onOutput(text: string): void;
  /** A program the shell runs under (the sandbox). */
  wrapper?: ProcessWrapper;
}

export interface GroupRunResult {
  exitCode: number | undefined;
  /** The signal that ended the shell, if any. */
  signal: string | undefined;
  timedOut: boolean;
  aborted: boolean;
  /** The command could not be started. */
  spawnError?: string;
  /**
   * Processes that left the command's process group and may still run. Present (possibly empty, when they
   * cannot be listed) when one was found or when the output had to be cut off because one held it open.
   */
  escaped?: EscapedProcess[];
  /** The output pipes were closed by us while a process outside the group still held them. */
  outputCut?: boolean;
}

/** Whether a process of the group still runs. Zombies do not count: a slow reaper may leave them for seconds. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return process.platform === 'linux' ? hasLiveMember(pgid) : true;
}

function hasLiveMember(pgid: number): boolean {
  let pids: string[];
  try {
    pids = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const pid of pids) {
    if (pid.charCodeAt(0) < 48 || pid.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      continue;
    }
    // Fields after the command name (which may hold spaces): state ppid pgrp ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is already gone.
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** SIGTERM to the whole group, then SIGKILL to whatever is left after the grace period. */
export async function terminateGroup(pgid: number, graceMs: number = KILL_GRACE_MS): Promise<void> {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
    if (!groupAlive(pgid)) return;
  }
  signalGroup(pgid, 'SIGKILL');
}

// Groups still running when this process exits are killed with it.
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function track(pgid: number): void {
  liveGroups.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const group of liveGroups) signalGroup(group, 'SIGKILL');
    });
  }
}

export async function runInProcessGroup(options: GroupRunOptions): Promise<GroupRunResult> {
  const graceMs = options.graceMs ?? KILL_GRACE_MS;
  const drainMs = options.drainMs ?? OUTPUT_DRAIN_MS;
  // Loaded on the first command, not at start-up: execa and its dependencies are a tenth of the bundle.
  const { execa } = await import('execa');
  if (options.signal?.aborted) return { exitCode: undefined, signal: undefined, timedOut: false, aborted: true };
  const marker = newCommandMarker();
  const shellArgs = ['-c', options.command];
  const [file, args] = options.wrapper
    ? [options.wrapper.file, [...options.wrapper.args, SHELL, ...shellArgs]]
    : [SHELL, shellArgs];
  const subprocess = execa(file, args, {
    cwd: options.cwd,
    env: { ...options.env, [COMMAND_MARKER_VARIABLE]: marker },
    extendEnv: false,
    // Closed stdin: an interactive command reads EOF at once instead of waiting forever.
    stdin: 'ignore',
    all: true,
    buffer: false,
    reject: false,
    detached: true,
    forceKillAfterDelay: false,
  });
  const pgid = subprocess.pid;
  if (pgid === undefined) {
    const result = await subprocess;
    return {
      exitCode: undefined,
      signal: undefined,
      timedOut: false,
      aborted: false,
      spawnError: result.message ?? 'the shell could not be started',
    };
  }
  track(pgid);
  const decoder = new StringDecoder('utf8');
  subprocess.all?.on('data', (chunk: Buffer) => {
    const text = decoder.write(chunk);
    if (text) options.onOutput(text);
  });
  let timedOut = false;
  let aborted = false;
  let stopping: Promise<void> | undefined;
  let groupStopped!: () => void;
  const stopped = new Promise<void>((resolve) => {
    groupStopped = resolve;
  });
  const stop = () => {
    stopping ??= terminateGroup(pgid, graceMs).then(groupStopped);
  };
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          stop();
        }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    stop();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  // When the shell itself exits, whatever it left running in its group is stopped too (and releases the pipe).
  subprocess.once('exit', () => stop());
  let drainTimer: NodeJS.Timeout | undefined;
  try {
    // The subprocess settles when the shell has exited and its pipes have closed. A process that left the group
    // keeps the pipes open as long as it runs: once the group is stopped, stop waiting for them after a drain.
    const pipesClosed = subprocess.then(() => true);
    const drained = stopped.then(
      () =>
        new Promise<false>((resolve) => {
          drainTimer = setTimeout(() => resolve(false), drainMs);
        }),
    );
    const outputCut = !(await Promise.race([pipesClosed, drained]));
    if (outputCut) for (const stream of [subprocess.all, subprocess.stdout, subprocess.stderr]) stream?.destroy();
    const result = await subprocess;
    await stopping;
    const rest = decoder.end();
    if (rest) options.onOutput(rest);
    const outcome: GroupRunResult = { exitCode: result.exitCode, signal: result.signal, timedOut, aborted };
    if (result.exitCode === undefined && result.signal === undefined && !timedOut && !aborted)
      outcome.spawnError = result.message;
    const escaped = findEscapedProcesses(marker, pgid);
    if (escaped.length > 0 || outputCut) outcome.escaped = escaped;
    if (outputCut) outcome.outputCut = true;
    return outcome;
  } finally {
    if (timer) clearTimeout(timer);
    if (drainTimer) clearTimeout(drainTimer);
    options.signal?.removeEventListener('abort', onAbort);
    liveGroups.delete(pgid);
  }
}
