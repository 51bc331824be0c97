// The Run: the one way a run starts and ends, for every front end (the command line's run, swarm, resume and
// scheduled runs, `murmur mcp serve`, the library). `startRun` gives a handle at once (the run's id and bus exist
// before anything is built); the setup (what takes time: MCP servers, a queue's probe) names the request, the Run
// builds its private engine for it (a resume's from the saved session, with the answers given to what it waits for),
// runs it through the lifecycle and closes it, and `done` settles with what happened. Aborting works at any moment:
// before the engine exists the abort waits in the signal the assembly is given, and the run ends `aborted` unstarted.
import { EventBus } from '../orchestrator/events.js';
import { newSessionId } from '../orchestrator/session.js';
import type { Environment } from '../orchestrator/environment.js';
import { loadOutputChecks } from '../orchestrator/final-answer.js';
import type { RunSettings } from '../orchestrator/saved-state.js';
import type { Engine } from '../orchestrator/engine.js';
import { assembleEngine, type AssemblyInput } from './assemble.js';
import { runOnEngine, type LifecycleResult, type RunRequest } from './lifecycle.js';
import { applyAnswers, type Answers } from './answers.js';
import { EventStream, type EventStreamOptions } from './event-stream.js';

export type { EventStreamOptions };
export { EventStream };

/**
 * The plain values a run's engine is built from, as a front end decides them. A resume's session, what it waits
 * for, its sandbox, its tool access and the settings it ran with come from the saved session, not from here.
 */
export type RunValues = Omit<AssemblyInput, 'bus' | 'signal' | 'sessionId' | 'interruptions'>;

/** What a run needs once its setup is done: the engine's values and the request (a task, a swarm or a saved session). */
export interface RunSetup {
  assembly: RunValues;
  request: RunRequest;
}

export interface StartRun {
  /** The id of the run and its new session; absent = a fresh one. A resume passes its session's. */
  sessionId?: string;
  /** The caller's signals (an instance's, a run's): any of them aborts the run, with its reason. */
  signals?: readonly (AbortSignal | undefined)[];
  env: Environment;
  /** Subscribes the front end's listeners to the run's bus; returns their unsubscribe (called when the run ends). */
  attach?: (bus: EventBus) => () => void;
  /** What may take time before the run (given its bus); throws for bad input (HostInputError, or the front end's). */
  setup: (bus: EventBus) => Promise<RunSetup>;
  /** A resume's answers to what its session waits for, by `agentId/callId` (or call id); a wrong one refuses the run. */
  answers?: Answers;
  /** The engine is built and the run about to start (a screen starts here, below the setup's warnings). */
  ready?: () => Promise<void> | void;
}

export interface HostRun {
  /** The run's id: its session's when sessions are kept; on every event of the run. */
  readonly sessionId: string;
  /** What happened; rejects only with what the setup or the assembly threw (bad input found as the run starts). */
  readonly done: Promise<LifecycleResult>;
  /** Aborts the run at any moment (finished work is kept); `reason` becomes the run's. */
  abort(reason?: unknown): void;
  /** The run's events from now on, until it ends (see event-stream.ts for what a slow reader loses). */
  events(options?: EventStreamOptions): EventStream;
}

/** Where the run's engine comes from: the request, and for a resume the saved session and the answers given to it. */
type Opened = { ok: true; run: Run } | { ok: false; result: LifecycleResult };

/** One run: its engine (built for it, seen by nothing else), the request it runs, and the close that saves it. */
class Run {
  private constructor(
    private readonly engine: Engine,
    private readonly request: RunRequest,
    private readonly env: Environment,
    private readonly closeEngine: () => Promise<void>,
  ) {}

  /** Builds the engine for `request` in dependency order; a resume's wrong answer refuses it before anything is built. */
  static async open(
    request: RunRequest,
    values: RunValues,
    context: { bus: EventBus; signal: AbortSignal; sessionId: string; env: Environment; answers?: Answers },
  ): Promise<Opened> {
    const input: AssemblyInput = { ...values, bus: context.bus, signal: context.signal, sessionId: context.sessionId };
    const output =
      request.kind === 'task' ? request.output : request.kind === 'swarm' ? request.launch.output : undefined;
    if (output) input.settings = { ...input.settings, output };
    if (request.kind === 'resume') {
      const { resumable } = request;
      const answered = applyAnswers(resumable.interruptions, context.answers ?? {});
      if (!answered.ok)
        return { ok: false, result: { ok: false, refused: { part: 'answers', message: answered.error } } };
      input.session = resumable.session;
      input.settings = { ...keptSettings(resumable.settings), ...input.settings };
      if (answered.interruptions.length > 0) input.interruptions = answered.interruptions;
      // With nobody to ask, a session that waits for a person goes on waiting (its calls are not settled by policy).
      if (!input.asker && answered.interruptions.length > 0 && input.config.permissions?.headless === undefined)
        input.holdForPerson = true;
      // Its shells ran in the sandbox: they run there again (a front end may turn it on, never off).
      if (resumable.sandbox) input.sandbox = { ...resumable.sandbox, ...input.sandbox };
      if (resumable.settings.toolAccess) input.toolAccess = resumable.settings.toolAccess;
    }
    // A typed output's checker is loaded before any agent answers with it.
    if (input.settings?.output) await loadOutputChecks();
    const { engine, close } = await assembleEngine(input);
    return { ok: true, run: new Run(engine, request, context.env, close) };
  }

  /** Runs the request on the engine (the lifecycle: run.start, the work, run.end). */
  execute(): Promise<LifecycleResult> {
    return runOnEngine(this.engine, this.request, this.env);
  }

  /** Closes the engine: its session saved and flushed, its lock given back. */
  close(): Promise<void> {
    return this.closeEngine();
  }
}

/** What a resumed session keeps of the settings it ran with (the front end gives the rest again). */
function keptSettings(saved: RunSettings): RunSettings {
  const kept: RunSettings = {};
  if (saved.output) kept.output = saved.output;
  if (saved.outputJsonl !== undefined) kept.outputJsonl = saved.outputJsonl;
  return kept;
}

export function startRun(input: StartRun): HostRun {
  const sessionId = input.sessionId ?? newSessionId();
  const bus = new EventBus(undefined, sessionId);
  const controller = new AbortController();
  const given = (input.signals ?? []).filter((s): s is AbortSignal => s !== undefined);
  const signal = given.length === 0 ? controller.signal : AbortSignal.any([controller.signal, ...given]);
  const streams = new Set<EventStream>();
  const detach = input.attach?.(bus);
  let over = false;
  const done = (async (): Promise<LifecycleResult> => {
    try {
      const { assembly, request } = await input.setup(bus);
      const opened = await Run.open(request, assembly, {
        bus,
        signal,
        sessionId,
        env: input.env,
        ...(input.answers ? { answers: input.answers } : {}),
      });
      if (!opened.ok) return opened.result;
      try {
        await input.ready?.();
        return await opened.run.execute();
      } finally {
        await opened.run.close();
      }
    } finally {
      over = true;
      detach?.();
      for (const stream of streams) stream.end();
      streams.clear();
    }
  })();
  return {
    sessionId,
    done,
    abort: (reason) => controller.abort(reason),
    events: (options) => {
      const stream = new EventStream(bus, options);
      if (over) stream.end();
      else streams.add(stream);
      return stream;
    },
  };
}
