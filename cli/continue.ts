// `murmur run --session ID "MESSAGE"`: the person's next message to a run's conversation, answered by its main agent
// with everything said before (host/continue.ts), with the session's model and settings unless given again.
import { UsageError, type ParsedArgs } from './args.js';
import { workspaceFrom } from './setup.js';
import { runInTerminal } from './terminal-run.js';
import { openResumable } from '../host/resume.js';
import { continueProblem } from '../host/continue.js';
import { flagsFromSession, refuseCodeAgents } from './resume.js';

/** Flags of a new run that a continued conversation already has. */
const NOT_WITH_SESSION = ['agent', 'output-schema', 'session-id'];

export async function continueCommand(args: ParsedArgs, id: string, message: string): Promise<number> {
  const clash = NOT_WITH_SESSION.find((name) => args.flags[name] !== undefined);
  if (clash !== undefined)
    throw new UsageError(
      `murmur run: --${clash} starts a new conversation; --session ${id} continues one (its agent and output are the session's).`,
    );
  const opened = openResumable(workspaceFrom('run', args), process.env, id);
  if (!opened.ok) throw new UsageError(`murmur run: --session ${id}: ${opened.error}.`);
  const { resumable } = opened;
  const problem = continueProblem(resumable, message);
  if (problem !== undefined) throw new UsageError(`murmur run: --session ${id}: ${problem}.`);
  refuseCodeAgents('run', resumable);
  flagsFromSession(args, resumable);
  return runInTerminal(
    'run',
    args,
    { title: message, sessionKind: 'run' },
    { kind: 'resume', resumable, message },
    (refused) => `--session ${id}: ${refused.message}`,
  );
}
