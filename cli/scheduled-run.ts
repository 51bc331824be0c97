// One run of a scheduled task, in the child process the scheduler starts (`murmur scheduler --exec-run RUN
// --task ID --session-id SID --cwd DIR [--model M] [--permission-mode P] [--effort E]`, prompt on stdin).
// An ordinary session with one difference: nobody watches it, so a call that needs a person waits — the run ends
// `waiting` with the call among its interruptions (exit 75), and `murmur resume SID` (or the console) carries on.
import { boolFlag, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { runInTerminal } from './terminal-run.js';
import { SessionStore, stateHome } from '../host/session-store.js';
import { SCHEDULED_FILE } from '../scheduler/held.js';
import { workspaceFrom } from './setup.js';
import writeFileAtomic from 'write-file-atomic';
import { join } from 'node:path';

async function readStdin(): Promise<string> {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) text += chunk as string;
  return text;
}

export async function scheduledRun(args: ParsedArgs): Promise<number> {
  const runId = stringFlag(args, 'exec-run')!;
  const taskId = stringFlag(args, 'task');
  const sessionId = stringFlag(args, 'session-id');
  if (!taskId || !sessionId)
    throw new UsageError(
      'murmur scheduler --exec-run: needs --task and --session-id (this mode is for the scheduler itself).',
    );
  // The scheduler that started this run; from the start, so a scheduler killed while this one loads is noticed.
  const parent = Number(stringFlag(args, 'scheduler-pid') ?? process.ppid);
  const cwd = workspaceFrom('scheduler', args);
  const prompt = (await readStdin()).trim();
  if (!prompt) throw new UsageError('murmur scheduler --exec-run: no prompt on stdin.');
  const home = stateHome(cwd);
  const session = SessionStore.create(home, sessionId);
  writeFileAtomic.sync(
    join(session.dir, SCHEDULED_FILE),
    `${JSON.stringify({ taskId, runId, home, workspace: cwd }, null, 1)}\n`,
  );

  args.flags.json = true;
  // The scheduler may be gone (killed) when the outcome is printed: a closed pipe must not stop the session's save.
  process.stdout.on('error', () => undefined);
  // The scheduler records the waiting run from this process's exit (run-process.ts).
  const title = prompt.split('\n', 1)[0]!;
  // The scheduler went away (killed): stop, so the session is saved and the run is not left going unseen.
  const orphaned = new AbortController();
  const watchdog = setInterval(() => {
    if (process.ppid !== parent) orphaned.abort('the scheduler that started this run is gone');
  }, 500);
  watchdog.unref();
  try {
    if (process.ppid !== parent) {
      process.stderr.write('murmur: the scheduler that started this run is gone; the run does not start.\n');
      return 1;
    }
    return await runInTerminal(
      'scheduler',
      args,
      { title, sessionKind: 'run', session, hold: true, signal: orphaned.signal },
      { kind: 'task', task: prompt, title },
      (refused) => refused.message,
    );
  } finally {
    clearInterval(watchdog);
  }
}

export function isScheduledRun(args: ParsedArgs): boolean {
  return stringFlag(args, 'exec-run') !== undefined || boolFlag(args, 'exec-run');
}
