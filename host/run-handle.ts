// A run as a handle, on the one lifecycle: the run's id and bus exist at once (every event on the bus carries the
// id), then the setup (what takes time: MCP servers, a queue's probe), the assembly and runOnEngine follow, and
// `done` settles with what happened. Aborting works at any moment: before the engine exists the abort waits in the
// signal the assembly is given, and the lifecycle ends such a run `aborted` without starting it.
import { EventBus } from '../orchestrator/events.js';
import { newSessionId } from '../orchestrator/session.js';
import type { Environment } from '../orchestrator/environment.js';
import { assembleEngine, type AssemblyInput } from './assemble.js';
import { runOnEngine, type LifecycleResult, type RunRequest } from './lifecycle.js';
import { EventStream, type EventStreamOptions } from './event-stream.js';

export type { EventStreamOptions };
export { EventStream };

/** What a run needs once its setup is done: the engine's plain values and the request. */
export interface RunSetup {
  assembly: Omit<AssemblyInput, 'bus' | 'signal' | 'sessionId'>;
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
      const { engine, close } = await assembleEngine({ ...assembly, bus, signal, sessionId });
      try {
        return await runOnEngine(engine, request, input.env);
      } finally {
        await close();
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
