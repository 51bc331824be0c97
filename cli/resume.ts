// `murmur resume ID`: reopen a session left by a crash or an abort. Finished agents stay finished; the
// interrupted ones continue from their transcripts (a swarm finishes only the items that had not completed).
// The resume itself is the host's (host/resume.ts, host/lifecycle.ts); this turns flags into its inputs.
import { boolFlag, parseArgs, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { workspaceFrom } from './setup.js';
import { RESUME_FLAGS } from './flags.js';
import { openTerminalRun } from './terminal-run.js';
import { printFinished } from './print-outcome.js';
import { queueFromFlagOrEnv } from './worker.js';
import { openOutputJsonl } from './output-options.js';
import { codeAgentsUsed, openResumable, type Resumable } from '../host/resume.js';
import { answeringAsker } from '../orchestrator/cron/answers.js';
import { holdingRun } from './hold-run.js';

/** Continue with the model, endpoint and rules the session ran with, unless given again. */
function flagsFromSession(args: ParsedArgs, resumable: Resumable): void {
  const { settings, model } = resumable;
  if (stringFlag(args, 'model') === undefined && model) args.flags.model = model;
  if (stringFlag(args, 'base-url') === undefined && settings.baseUrl !== undefined)
    args.flags['base-url'] = settings.baseUrl;
  if (stringFlag(args, 'permission-mode') === undefined && settings.permissionMode !== undefined)
    args.flags['permission-mode'] = settings.permissionMode;
  if (args.flags['swarm-mode'] === undefined && settings.swarmMode === true) args.flags['swarm-mode'] = true;
  if (stringFlag(args, 'effort') === undefined && settings.effort !== undefined) args.flags.effort = settings.effort;
}

export async function resumeCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs('resume', argv, RESUME_FLAGS);
  const [id, ...extra] = args.positionals;
  if (!id)
    throw new UsageError(
      "murmur resume: missing the session id. Usage: murmur resume ID — `murmur sessions` lists this workspace's sessions (newest first) with their ids.",
    );
  if (extra.length > 0)
    throw new UsageError(
      `murmur resume: one session id expected, got ${args.positionals.length}: ${args.positionals.join(' ')}.`,
    );
  const cwd = workspaceFrom('resume', args);
  const opened = openResumable(cwd, process.env, id);
  if (!opened.ok) throw new UsageError(`murmur resume: ${opened.error}.`);
  const { resumable } = opened;
  const [code] = codeAgentsUsed(resumable);
  if (code !== undefined)
    throw new UsageError(
      `murmur resume: session ${resumable.session.id} used the agent "${code}", which its program defined in code (defineAgent); murmur resume does not know it. Resume it from that program: murmur.resume('${resumable.session.id}') on a createMurmur made with the same options (agents included).`,
    );
  flagsFromSession(args, resumable);
  // A queue swarm reattaches to its queue: --queue, else MURMUR_QUEUE, else the saved URL (only kept without a password).
  const savedQueue = resumable.swarm?.queue;
  const queue = savedQueue
    ? await queueFromFlagOrEnv('resume', stringFlag(args, 'queue'), process.env, savedQueue.url)
    : undefined;
  // The lines file of `--output-jsonl` goes on: only the items without a line are appended.
  const jsonl = resumable.settings.outputJsonl;
  const onItem = jsonl !== undefined && resumable.swarm ? openOutputJsonl('resume', jsonl, true) : undefined;
  // Started by the web console (--hold): a request nobody answered there is held again, as in a scheduled run.
  const hold = boolFlag(args, 'hold') ? holdingRun(resumable.session, { record: true }) : undefined;
  if (hold) args.flags.json = true;
  const answered = resumable.held.some((call) => call.answer !== undefined);
  const terminal = await openTerminalRun('resume', args, {
    title: resumable.title,
    ...(hold ? { asker: { asker: hold.asker } } : {}),
    // Answers recorded in the console for the held calls are replayed; anything else is asked as usual.
    ...(answered ? { answering: (asker) => answeringAsker(resumable.held, asker) } : {}),
    sessionKind: resumable.swarm ? 'swarm' : 'run',
    session: resumable.session,
    ...(resumable.sandbox ? { sandbox: resumable.sandbox } : {}),
    ...(resumable.extend ? { extend: resumable.extend } : {}),
  });
  hold?.attach(terminal);
  try {
    const finished = await terminal.run(
      { kind: 'resume', resumable, ...(queue ? { queue } : {}), ...(onItem ? { onItem } : {}) },
      (refused) => refused.message,
    );
    if (hold?.holding()) return await new Promise<number>(() => undefined);
    return await terminal.finishRun(finished.outcome, printFinished(args, finished));
  } finally {
    if (!hold?.holding()) await terminal.close();
  }
}
