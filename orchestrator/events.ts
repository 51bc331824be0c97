// The event bus: every step of the engine emits an event; dashboards, the JSONL log (events-log.ts) and the
// transcript writer (transcript-writer.ts) subscribe. The event types are the contract of `--events FILE`, declared
// and documented in protocol/events.ts (re-exported here); test/core/events-contract.test.ts checks the README lists
// them all.
import { EventEmitter } from 'eventemitter3';
import type { EventInput, EventOf, EventType, MurmurEvent } from '../protocol/events.js';
import { systemClock } from './clock.js';

export type {
  AgentEndEvent,
  AgentStartEvent,
  EventInput,
  EventOf,
  EventType,
  LogEvent,
  MessageDeltaEvent,
  MessageEvent,
  MessageSyntheticEvent,
  ModelRetryEvent,
  MurmurEvent,
  RunEndEvent,
  RunStartEvent,
  SwarmCapacityEvent,
  SwarmEndEvent,
  SwarmItemEvent,
  SwarmItemState,
  SwarmStartEvent,
  TaskEvent,
  TodoEvent,
  ToolEndEvent,
  ToolStartEvent,
  ToolUpdateEvent,
  TurnEndEvent,
  TurnStartEvent,
} from '../protocol/events.js';

/**
 * Every declared event type, at run time (the README test and the JSONL log read it). The check below fails the
 * type check when a type is added to MurmurEvent (protocol/events.ts) but not here, or listed here but not declared.
 */
export const EVENT_TYPES = [
  'run.start',
  'run.end',
  'agent.start',
  'agent.end',
  'turn.start',
  'turn.end',
  'tool.start',
  'tool.update',
  'tool.end',
  'message.delta',
  'message',
  'message.synthetic',
  'model.retry',
  'swarm.start',
  'swarm.item',
  'swarm.capacity',
  'swarm.end',
  'task.start',
  'task.end',
  'todo.update',
  'log',
] as const satisfies readonly EventType[];
type Missing = Exclude<EventType, (typeof EVENT_TYPES)[number]>;
const everyTypeListed: [Missing] extends [never] ? true : Missing = true;
void everyTypeListed;

/** Kept out of `--events`: streamed text and whole messages, which the transcripts on disk already hold. */
export const NOT_IN_EVENT_LOG: ReadonlySet<EventType> = new Set<EventType>(['message', 'message.delta']);

type Listener = (event: MurmurEvent) => void;

/**
 * Synchronous fan-out with isolation: a throwing subscriber is reported and skipped, never breaks the
 * emitter. Subscribers that do slow work must buffer (as events-log.ts and transcript-writer.ts do) so the loop is never stalled.
 */
export class EventBus {
  private readonly emitter = new EventEmitter();
  private anyListeners = 0;

  /**
   * `now` stamps events that come without `ts`: the engine passes its clock. A bus made for one run gets its
   * `sessionId`, stamped on every event (an event passed on from another bus must be a copy).
   */
  constructor(
    private readonly now: () => number = systemClock.now,
    readonly sessionId?: string,
  ) {}

  /** Whether anybody would receive an event of this type: lets hot paths skip building it. */
  wants(type: EventType): boolean {
    return this.anyListeners > 0 || this.emitter.listenerCount(type) > 0;
  }

  emit(input: EventInput): void {
    const event = input as MurmurEvent;
    if (event.ts === undefined) event.ts = this.now();
    if (this.sessionId !== undefined) event.sessionId = this.sessionId;
    if (this.emitter.listenerCount(event.type) > 0) this.emitter.emit(event.type, event);
    if (this.anyListeners > 0) this.emitter.emit('*', event);
  }

  on<T extends EventType>(type: T, listener: (event: EventOf<T>) => void): () => void;
  on(type: '*', listener: Listener): () => void;
  on(type: string, listener: (event: never) => void): () => void {
    const safe = (event: MurmurEvent) => {
      try {
        (listener as Listener)(event);
      } catch (error) {
        process.emitWarning(`murmur: an event subscriber threw on ${event.type}: ${String(error)}`);
      }
    };
    this.emitter.on(type, safe);
    if (type === '*') this.anyListeners++;
    return () => {
      this.emitter.off(type, safe);
      if (type === '*') this.anyListeners--;
    };
  }
}
