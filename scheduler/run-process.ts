// Runs a scheduled run as an ordinary murmur session in a child process (`murmur scheduler --exec-run …`):
// the prompt goes in on stdin, one JSON object comes back on stdout, stderr goes to the run's log file.
// A child that finds its scheduler gone stops itself (its session saved), so a crash never leaves runs behind.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Launcher, ScheduledRunProcess, ScheduledRunResult } from './active-runs.js';
import { logExcerpt, logSize } from './run-log.js';

import { HELD_EXIT_CODE } from './held.js';

export { HELD_EXIT_CODE };

export interface ProcessLauncherOptions {
  /** The murmur entry script (dist/cli/main.js). */
  mainScript: string;
  env?: NodeJS.ProcessEnv;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** What a child's exit and its JSON say about the run. */
export function resultOf(
  code: number | null,
  signal: NodeJS.Signals | null,
  stdout: string,
  sessionId: string | undefined,
  /** The first lines the run wrote to its log (its stderr): the reason of a run that failed without saying why. */
  logText?: string,
): ScheduledRunResult {
  let json: { status?: string; result?: string; reason?: string; interruptions?: { summary?: string }[] } | undefined;
  const last = stdout.trim().split('\n').at(-1);
  try {
    json = last ? (JSON.parse(last) as typeof json) : undefined;
  } catch {
    json = undefined;
  }
  const resume = sessionId ? `; continue it with: murmur resume ${sessionId}` : '';
  if (code === HELD_EXIT_CODE)
    return {
      state: 'waiting-for-approval',
      summary: `waiting for approval: ${json?.interruptions?.map((i) => i.summary).join('; ') || 'a call needs a person'}${resume}`,
    };
  if (json?.status === 'completed') {
    const text = json.result?.trim() ?? '';
    return text
      ? { state: 'succeeded', summary: firstLine(text) }
      : { state: 'failed', summary: 'the run finished without any output' };
  }
  if (json?.status === 'aborted' || signal !== null)
    return { state: 'interrupted', summary: `the run was stopped${resume}` };
  if (json?.status)
    return { state: 'failed', summary: firstLine(`${json.status}${json.reason ? `: ${json.reason}` : ''}`) };
  const status = `the run exited with status ${code ?? '?'}`;
  return { state: 'failed', summary: logText ? `${status}: ${logText}` : `${status} (see its log)` };
}

export function processLauncher(options: ProcessLauncherOptions): Launcher {
  return ({ store, task, run, prompt }): ScheduledRunProcess => {
    const logFile = store.runLogFile(run.id);
    mkdirSync(dirname(logFile), { recursive: true });
    const from = logSize(logFile);
    const log = openSync(logFile, 'a');
    const args = [
      options.mainScript,
      'scheduler',
      '--exec-run',
      run.id,
      '--task',
      task.id,
      '--cwd',
      task.workspace,
      '--session-id',
      run.sessionId!,
      '--scheduler-pid',
      String(process.pid),
    ];
    if (task.model) args.push('--model', task.model);
    // An agent's task without a mode runs in manual, as its approval card said (not murmur.toml's mode).
    const mode = task.permissionMode ?? (task.createdBy === 'agent' ? 'manual' : undefined);
    if (mode) args.push('--permission-mode', mode);
    if (task.effort) args.push('--effort', task.effort);
    const child = spawn(process.execPath, args, {
      cwd: task.workspace,
      env: { ...(options.env ?? process.env), MURMUR_HOME: store.home },
      stdio: ['pipe', 'pipe', log],
      // Its own process group: a Ctrl-C at the scheduler's terminal reaches the scheduler, which stops each run
      // once (SIGTERM) so it saves its session, rather than every run being hit twice; a run that does not stop
      // within the grace period (or at a second Ctrl-C) has its whole group killed.
      detached: true,
    });
    closeSync(log);
    let stdout = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(prompt);
    const done = new Promise<ScheduledRunResult>((resolve) => {
      child.on('error', (error) => resolve({ state: 'failed', summary: `could not start the run: ${error.message}` }));
      child.on('close', (code, signal) =>
        resolve(resultOf(code, signal, stdout, run.sessionId, logExcerpt(logFile, from))),
      );
    });
    const kill = () => {
      // The whole process group: the run and whatever it started (bash, MCP servers).
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    return { done, stop: () => void child.kill('SIGTERM'), kill };
  };
}
