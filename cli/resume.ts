// `murmur resume ID`: reopen a session left by a crash or an abort. Finished agents stay finished; the
// interrupted ones continue from their transcripts (a swarm finishes only the items that had not completed).
import { parseArgs, stringFlag, UsageError } from './args.js';
import { workspaceFrom } from './setup.js';
import { RESUME_FLAGS } from './flags.js';
import { buildHost } from './host.js';
import { noteInterruptedSubagents } from '../host/resume.js';
import { printOutcome } from './run.js';
import { SessionStore, stateHome } from '../orchestrator/session.js';
import { readSavedState } from '../orchestrator/saved-state.js';
import { markHeldResumed, prepareReplay, readHeld, readScheduledMarker, replayingProvider } from '../orchestrator/cron/held.js';
import { recordResumedRun } from '../orchestrator/cron/resumed.js';

export async function resumeCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs('resume', argv, RESUME_FLAGS);
  const [id, ...extra] = args.positionals;
  if (!id) throw new UsageError('murmur resume: missing the session id. Usage: murmur resume ID — `murmur sessions` lists this workspace\'s sessions (newest first) with their ids.');
  if (extra.length > 0) throw new UsageError(`murmur resume: one session id expected, got ${args.positionals.length}: ${args.positionals.join(' ')}.`);
  const cwd = workspaceFrom('resume', args);
  let session: SessionStore;
  try {
    session = SessionStore.open(stateHome(cwd), id);
  } catch (error) {
    throw new UsageError(`murmur resume: ${(error as Error).message}`);
  }
  const read = readSavedState(session.dir);
  if (!read.ok) throw new UsageError(`murmur resume: ${read.error}.`);
  const { state } = read;
  // Continue with the model, endpoint and rules the session ran with, unless given again.
  if (stringFlag(args, 'model') === undefined && state.model) args.flags.model = state.model;
  const settings = state.settings ?? {};
  if (stringFlag(args, 'base-url') === undefined && settings.baseUrl !== undefined) args.flags['base-url'] = settings.baseUrl;
  if (stringFlag(args, 'permission-mode') === undefined && settings.permissionMode !== undefined) args.flags['permission-mode'] = settings.permissionMode;
  if (args.flags['swarm-mode'] === undefined && settings.swarmMode === true) args.flags['swarm-mode'] = true;
  if (stringFlag(args, 'effort') === undefined && settings.effort !== undefined) args.flags.effort = settings.effort;
  if (state.kind === 'swarm') return (await import('./swarm.js')).resumeSwarm(args, session, state);

  // A scheduled run held at a call that needed a person: that call is made again (and asked) instead of being
  // marked interrupted — its assistant message is replayed as the model's next answer.
  const held = readHeld(session.dir);
  const replay = held.length > 0 ? prepareReplay(session, held) : undefined;
  // Until replayed, held.json keeps the messages (a resume stopped before then can replay them next time).
  if (replay) replay.onDone = () => markHeldResumed(session.dir);
  const host = await buildHost('resume', args, {
    title: state.task ?? `session ${id}`,
    sessionKind: 'run',
    session,
    ...(replay
      ? {
          extend: (options) => {
            options.provider = replayingProvider(options.provider, replay);
            const providerFor = options.providerFor;
            if (providerFor) options.providerFor = async (spec) => replayingProvider(await providerFor(spec), replay);
          },
        }
      : {}),
  });
  try {
    const { interrupted } = host.engine.restore(state);
    noteInterruptedSubagents(host.engine, interrupted);
    const outcome = await host.engine.continueMain();
    const marker = readScheduledMarker(session.dir);
    if (marker) recordResumedRun(marker, outcome, id);
    return await host.finishRun(outcome, printOutcome(args, outcome));
  } finally {
    await host.close();
  }
}
