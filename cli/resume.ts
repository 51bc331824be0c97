// `murmur resume ID`: reopen a session left by a crash or an abort. Finished agents stay finished; the
// interrupted ones continue from their transcripts (a swarm finishes only the items that had not completed).
// The resume itself is the host's (host/resume.ts, host/lifecycle.ts); this turns flags into its inputs.
import { boolFlag, parseArgs, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { workspaceFrom } from './setup.js';
import { RESUME_FLAGS } from './flags.js';
import { runInTerminal } from './terminal-run.js';
import { queueFromFlagOrEnv } from './worker.js';
import { openOutputJsonl } from './output-options.js';
import { codeAgentsUsed, openResumable, type Resumable } from '../host/resume.js';
import type { Answers } from '../host/answers.js';
import { recordIfScheduled } from '../scheduler/resumed.js';
import { findInterruption } from '../host/answers.js';
import type { InterruptionAnswer } from '../protocol/interruptions.js';
import { planRetry, stillRunning, type RetryChoice } from '../host/retry.js';

/** Continue with the model, endpoint and rules the session ran with, unless given again. */
export function flagsFromSession(args: ParsedArgs, resumable: Resumable): void {
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
  const resumable = retried(args, opened.resumable);
  refuseCodeAgents('resume', resumable);
  flagsFromSession(args, resumable);
  // A queue swarm reattaches to its queue: --queue, else MURMUR_QUEUE, else the saved URL (only kept without a password).
  const savedQueue = resumable.swarm?.queue;
  const queue = savedQueue
    ? await queueFromFlagOrEnv('resume', stringFlag(args, 'queue'), process.env, savedQueue.url)
    : undefined;
  // The lines file of `--output-jsonl` goes on: only the items without a line are appended.
  const jsonl = resumable.settings.outputJsonl;
  const onItem = jsonl !== undefined && resumable.swarm ? openOutputJsonl('resume', jsonl, true) : undefined;
  // Started by the web console (--hold): what nobody answered there waits again; the command exits 75.
  const hold = boolFlag(args, 'hold');
  if (hold) args.flags.json = true;
  const answers = answersFromFlags(args, resumable);
  // Answered in the console (recorded in its state) or here: a scheduled task's history says which.
  const answeredInConsole = resumable.interruptions.some((i) => i.answer !== undefined);
  return runInTerminal(
    'resume',
    args,
    {
      title: resumable.title,
      sessionKind: resumable.swarm ? 'swarm' : 'run',
      ...(hold ? { hold: true } : {}),
      ...(answers ? { answers } : {}),
      onFinished: (finished) => {
        if (finished.kind === 'run')
          recordIfScheduled(resumable.session.dir, resumable.session.id, finished.outcome, answeredInConsole);
      },
    },
    { kind: 'resume', resumable, ...(queue ? { queue } : {}), ...(onItem ? { onItem } : {}) },
    (refused) => refused.message,
  );
}

/** --retry ITEM… / --retry-failed: the session with those items reopened for their next attempt (host/retry.ts). */
function retried(args: ParsedArgs, resumable: Resumable): Resumable {
  const items = args.flags.retry as string[] | undefined;
  const failed = boolFlag(args, 'retry-failed');
  if (items === undefined && !failed) return resumable;
  if (items !== undefined && failed)
    throw new UsageError('murmur resume: give --retry ITEM… or --retry-failed, not both.');
  const running = stillRunning(resumable);
  if (running !== undefined) throw new UsageError(`murmur resume: ${running}.`);
  const choice: RetryChoice = items !== undefined ? { items } : { failed: true };
  const planned = planRetry(resumable, choice);
  if (!planned.ok) throw new UsageError(`murmur resume: ${planned.error}.`);
  process.stderr.write(`murmur resume: retrying ${planned.labels.join(', ')}\n`);
  return planned.resumable;
}

/** --approve / --deny as answers (the Run checks them against what waits); undefined when neither is given. */
function answersFromFlags(args: ParsedArgs, resumable: Resumable): Answers | undefined {
  const approve = (args.flags.approve as string[] | undefined) ?? [];
  const deny = (args.flags.deny as string[] | undefined) ?? [];
  const reason = stringFlag(args, 'reason');
  if (approve.length === 0 && deny.length === 0) {
    if (reason !== undefined || boolFlag(args, 'always'))
      throw new UsageError(
        `murmur resume: --${reason !== undefined ? 'reason goes with --deny' : 'always goes with --approve'} CALL.`,
      );
    return undefined;
  }
  const answers: Answers = {};
  const approval: InterruptionAnswer = boolFlag(args, 'always') ? { kind: 'allow_always' } : { kind: 'allow_once' };
  for (const name of approve) answers[name] = answerFor(resumable, name, approval);
  for (const name of deny)
    answers[name] = answerFor(
      resumable,
      name,
      reason !== undefined ? { kind: 'deny', feedback: reason } : { kind: 'deny' },
    );
  return answers;
}

/** --approve / --deny in the words of the interruption's kind (a plan is approved or rejected, a question declined). */
function answerFor(resumable: Resumable, name: string, answer: InterruptionAnswer): InterruptionAnswer {
  const found = findInterruption(resumable.interruptions, name);
  if (!found.ok) throw new UsageError(`murmur resume: ${found.error}.`);
  const { kind } = found.interruption;
  const denied = answer.kind === 'deny';
  const feedback = denied ? answer.feedback : undefined;
  if (kind === 'plan')
    return denied ? { kind: 'reject', ...(feedback ? { reason: feedback } : {}) } : { kind: 'approve' };
  if (kind === 'question') {
    if (!denied)
      throw new UsageError(
        `murmur resume: ${name} is a question (${found.interruption.summary}); it cannot be approved — answer it in a terminal (murmur resume ${resumable.session.id}) or the console, or --deny it.`,
      );
    return { kind: 'declined', ...(feedback ? { reason: feedback } : {}) };
  }
  return answer;
}

/** A session that ran an agent defined in code is its program's to resume or continue: a usage error here. */
export function refuseCodeAgents(command: 'resume' | 'run', resumable: Resumable): void {
  const [code] = codeAgentsUsed(resumable);
  if (code === undefined) return;
  const id = resumable.session.id;
  const call = command === 'run' ? `murmur.continue('${id}', message)` : `murmur.resume('${id}')`;
  throw new UsageError(
    `murmur ${command}: session ${id} used the agent "${code}", which its program defined in code (defineAgent); murmur ${command} does not know it. Go on from that program: ${call} on a createMurmur made with the same options (agents included).`,
  );
}
