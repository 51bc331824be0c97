// The host assembly: an engine built from plain values in dependency order — the agent directory, the permission
// setup and the interaction adapters (they need only it and the bus), the session, the options and the engine,
// then the abort signal. Nothing is filled in after the fact. A Run (run.ts) builds its engine here; so does a
// queue worker for each item it takes.
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { Engine } from '../orchestrator/engine.js';
import { prepareAgentDefinitions } from '../roles/definitions.js';
import { SessionStore, stateHome } from '../orchestrator/session.js';
import { AgentDirectory } from '../orchestrator/agent-directory.js';
import { InterruptionDesk } from '../orchestrator/permissions/interruption-desk.js';
import { HostInputError } from './errors.js';
import { lockSession } from './session-lock.js';
import { resolveSandbox } from './sandbox.js';
import { abortReasonText } from './abort-reason.js';
import { hostEngineOptions, interactionFor, permissionsFor, type HostInput } from './engine-options.js';
import type { TracingInput } from './tracing/links.js';

export interface AssemblyInput extends HostInput {
  /** Aborting it aborts the run (finished work is kept); its reason becomes the run's. */
  signal?: AbortSignal;
  /** The id of the new session (default a fresh one); a run handle gives it before the engine exists. */
  sessionId?: string;
  /** Spans of the run's events go to this provider (host/tracing/; loaded only when given). */
  tracing?: TracingInput;
}

export interface Assembled {
  engine: Engine;
  /** Closes the engine (its session saved), detaches from the abort signal and gives the session back. */
  close(): Promise<void>;
}

export async function assembleEngine(input: AssemblyInput): Promise<Assembled> {
  // 1. The agent directory: approval prompts look up the asking agent's parents there; the agent tree fills it.
  const directory = new AgentDirectory();
  // 2. The sandbox (one that cannot work here throws, before anything is on disk), the permission setup (a bad
  //    rule throws too; auto mode may allow sandboxed bash) and the interaction adapters.
  const sandbox = await resolveSandbox(input.cwd, input.config, input.env, input.sandbox);
  // What the run waits for: a resumed session's interruptions (with the answers given since), held calls from now on.
  const desk = new InterruptionDesk(input.interruptions ?? [], input.holdForPerson === true);
  const permissions = permissionsFor(input, directory.get, sandbox, desk);
  const interaction = await interactionFor(input, permissions);
  // 3. The session (the result budget spills long results into it), held by this process while it runs it.
  const session =
    input.session === false
      ? undefined
      : (input.session ?? SessionStore.create(stateHome(realpathSync(resolve(input.cwd)), input.env), input.sessionId));
  // Settled swarm agents leave memory once the session's settled log holds their rows.
  if (session) directory.useSession(session.dir);
  const locked = session ? lockSession(session) : undefined;
  if (locked && !locked.ok) throw new HostInputError('sessionId', locked.error);
  const lock = locked?.lock;
  try {
    // 4. The options and the engine.
    const options = hostEngineOptions(input, { directory, permissions, interaction, session, sandbox, desk });
    // The engine reads the agent files synchronously: the YAML library they may need is loaded first.
    await prepareAgentDefinitions({ workspace: input.cwd, ...(input.env.HOME ? { userHome: input.env.HOME } : {}) });
    const engine = new Engine(options);
    // 5. Spans from its events, when a front end asks for them.
    const recorder = input.tracing
      ? new (await import('./tracing/recorder.js')).SpanRecorder(engine.bus, {
          ...input.tracing,
          model: options.provider.name,
          ...(session ? { sessionId: session.id } : {}),
        })
      : undefined;
    // 6. The abort signal.
    const { signal } = input;
    const abort = () => engine.abort(abortReasonText(signal?.reason));
    if (signal?.aborted) abort();
    else signal?.addEventListener('abort', abort, { once: true });
    let closed: Promise<void> | undefined;
    return {
      engine,
      close: () =>
        (closed ??= (async () => {
          signal?.removeEventListener('abort', abort);
          try {
            await engine.close();
          } finally {
            recorder?.close();
            lock?.release();
          }
          // A session made here for a run refused before it started holds nothing: no empty folder in `murmur sessions`.
          if (!engine.started) session?.discardIfUnused();
        })()),
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}
