// Starts work for the console as `murmur run`, `murmur swarm` or `murmur resume` would run it: a child process of
// the installed command (as the scheduler starts its runs), detached into its own session with its output in a
// log file, so it outlives a restart of the console and a Ctrl-C at the console's terminal. The answer waits until
// the session can be opened (or the child gave up: then the end of its log says why).
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { readTail } from './event-log.js';

export interface LaunchOptions {
  /** The murmur entry script (dist/bundle/main.js). */
  mainScript: string;
  workspace: string;
  env: NodeJS.ProcessEnv;
  /** The command's arguments (`run …`, `swarm …`, `resume ID …`). */
  args: readonly string[];
  /** Where its stdout and stderr go (appended). */
  logFile: string;
  /** Whether the session is there to be shown. */
  ready: () => boolean;
  /** How long to wait for it (default 20 s); a child still starting after that is left to start. */
  timeoutMs?: number;
}

export type Launched = { ok: true; pid: number } | { ok: false; exitCode: number | null; reason: string };

/** The console's log of the work it started for a session: `<home>/console/<sessionId>.log`. */
export function consoleLogFile(home: string, sessionId: string): string {
  return join(home, 'console', `${sessionId}.log`);
}

/** The last lines of a log (its last 4 KB): what a command that gave up said. */
export function logTail(file: string, maxLines = 6): string {
  const lines = (readTail(file, 4096) ?? '').trim().split('\n');
  return lines
    .filter((line) => !line.startsWith('--- '))
    .slice(-maxLines)
    .join('\n');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function launchMurmur(options: LaunchOptions): Promise<Launched> {
  mkdirSync(join(options.logFile, '..'), { recursive: true });
  const log = openSync(options.logFile, 'a');
  writeSync(log, `--- ${new Date().toISOString()} murmur ${options.args[0]} started by the web console\n`);
  let exit: { code: number | null; error?: string } | undefined;
  let pid: number | undefined;
  try {
    const child = spawn(process.execPath, [options.mainScript, ...options.args], {
      cwd: options.workspace,
      env: options.env,
      stdio: ['ignore', log, log],
      detached: true,
    });
    pid = child.pid;
    child.once('error', (error) => (exit = { code: null, error: error.message }));
    child.once('exit', (code) => (exit ??= { code }));
    child.unref();
  } finally {
    closeSync(log);
  }
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  while (Date.now() < deadline) {
    // 0, 1, 75 and 130 are a run that ran (completed, did not complete, held for a person, stopped); 2 is refused
    // input, others a crash.
    if (exit && !exit.error && [0, 1, 75, 130].includes(exit.code ?? -1)) return { ok: true, pid: pid! };
    if (!exit && options.ready()) return { ok: true, pid: pid! };
    if (exit) {
      const said = logTail(options.logFile);
      const reason = exit.error
        ? `could not start murmur: ${exit.error}`
        : `murmur ${options.args[0]} exited with status ${exit.code ?? '?'}${said ? `: ${said}` : ''}`;
      return { ok: false, exitCode: exit.code, reason };
    }
    await sleep(50);
  }
  return { ok: true, pid: pid! };
}
