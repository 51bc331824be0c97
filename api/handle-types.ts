// The types of the library's handle on a run, a swarm or a resume (run-handle.ts makes it), and of the events
// it hands out. Types only: the public declarations reach this file, and nothing of the host's behind it.
import type { EventType, MurmurEvent as BusEvent } from '../protocol/events.js';

/** An event of a run as the library hands it out: always with the run's `sessionId`. */
export type MurmurEvent = BusEvent & { sessionId: string };
/** The event of one type. */
export type EventOf<T extends EventType> = Extract<MurmurEvent, { type: T }>;

/** How a run handle's events() iterator behaves. */
export interface EventsOptions {
  /** How many unread events are kept (default 10,000); beyond that streamed pieces go first (see `dropped`). */
  maxBuffered?: number;
}

/** One run's events, in order, from when `events()` was called until the run ends. */
export interface RunEvents extends AsyncIterableIterator<MurmurEvent> {
  /**
   * Events dropped because the reader fell more than `maxBuffered` behind: first `message.delta` and `tool.update`
   * pieces (their whole arrives as `message` / in the tool's result), then the oldest unread events.
   */
  readonly dropped: number;
}

/** A run, swarm or resume in progress. Thenable: `await handle` is `await handle.done`. */
export interface RunHandle<R> extends PromiseLike<R> {
  /** The run's id, on every event it emits; its session's id when sessions are kept (`resume(id)` continues it). */
  readonly sessionId: string;
  /**
   * The report when the run ends — also when it failed or was aborted (`status`, `reason`). Rejects only with
   * MurmurOptionsError, for a bad option found as the run starts (a queue not reachable, a sandbox that cannot work).
   */
  readonly done: Promise<R>;
  /** Aborts the run (finished work is kept); `done` resolves with status `aborted` and this reason. */
  abort(reason?: string): void;
  /**
   * This run's events from now on (call it right after starting the run to get them all), ending when the run ends.
   * The run never waits for the reader: a reader more than `maxBuffered` events behind loses some (`dropped`).
   */
  events(options?: EventsOptions): RunEvents;
  then<A = R, B = never>(
    onfulfilled?: ((report: R) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B>;
  /** As a promise's catch: the report never rejects for a failed run (its status says so), only for bad options. */
  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<R | B>;
  /** As a promise's finally, once the report is there. */
  finally(onfinally?: (() => void) | null): Promise<R>;
}
