// The event bus: every step of the engine emits an event; dashboards, logs and transcripts subscribe.
import { EventEmitter } from 'eventemitter3';
import type { EndStatus, Usage } from './types.js';

interface Base {
  ts: number;
}

export interface RunStartEvent extends Base { type: 'run.start'; mode: 'run' | 'swarm'; task: string; model: string }
export interface RunEndEvent extends Base { type: 'run.end'; status: string; usage: Usage }
export interface AgentStartEvent extends Base {
  type: 'agent.start';
  agentId: string;
  parentId?: string;
  role: string;
  description?: string;
  /** The first line of the task, at most 200 characters. */
  prompt: string;
  model?: string;
  swarmId?: string;
  item?: string;
  resumed?: boolean;
}
export interface AgentEndEvent extends Base {
  type: 'agent.end';
  agentId: string;
  parentId?: string;
  role: string;
  status: EndStatus;
  reason?: string;
  usage: Usage;
  turns: number;
  toolCalls: number;
  durationMs: number;
  swarmId?: string;
  item?: string;
}
export interface TurnStartEvent extends Base { type: 'turn.start'; agentId: string; turn: number }
export interface TurnEndEvent extends Base {
  type: 'turn.end';
  agentId: string;
  turn: number;
  usage?: Usage;
  toolCalls: number;
  /** Set when the model call failed and the turn ended with that reason. */
  error?: string;
}
/** `via: 'shell'`: the call came through murmur-tools from the agent's bash, not from its catalog. */
export interface ToolStartEvent extends Base { type: 'tool.start'; agentId: string; tool: string; callId: string; args: string; via?: 'shell' }
export interface ToolUpdateEvent extends Base { type: 'tool.update'; agentId: string; tool: string; callId: string; text: string }
export interface ToolEndEvent extends Base {
  type: 'tool.end';
  agentId: string;
  tool: string;
  callId: string;
  isError: boolean;
  durationMs: number;
  /** The first 200 characters of an error result. */
  error?: string;
  via?: 'shell';
}
/** Streamed text; `thinking: true` for reasoning/thinking text that is not part of the answer. */
export interface MessageDeltaEvent extends Base { type: 'message.delta'; agentId: string; text: string; thinking?: boolean }
export interface MessageEvent extends Base { type: 'message'; agentId: string; role: 'user' | 'assistant' | 'tool'; message: unknown }
export interface MessageSyntheticEvent extends Base { type: 'message.synthetic'; agentId: string; kind: string; taskId?: string }
export interface ModelRetryEvent extends Base {
  type: 'model.retry';
  agentId: string;
  status?: number;
  attempt: number;
  delayMs: number;
  reason: string;
  swarmId?: string;
  item?: string;
}
export interface SwarmStartEvent extends Base {
  type: 'swarm.start';
  swarmId: string;
  parentId?: string;
  description: string;
  role: string;
  items: string[];
  maxConcurrency?: number;
}
export type SwarmItemState = 'queued' | 'launched' | 'rate_limited' | 'completed' | 'failed' | 'aborted' | 'conflict' | 'verifying';
export interface SwarmItemEvent extends Base {
  type: 'swarm.item';
  swarmId: string;
  item: string;
  index: number;
  state: SwarmItemState;
  /** The item's worker (also on a verdict: the row it belongs to). */
  agentId?: string;
  /** On a verdict: the verifier that gave it. */
  verifierId?: string;
  reason?: string;
  verdict?: 'pass' | 'fail';
  rounds?: number;
  /** The controller's capacity after this change. */
  capacity?: number;
  running?: number;
  /** Distributed swarms: the worker machine that ran the item, and the model it ran on. */
  host?: string;
  model?: string;
}
/** The controller's capacity changed (ramp, rate-limit hold, recovery). */
export interface SwarmCapacityEvent extends Base { type: 'swarm.capacity'; swarmId: string; capacity: number; running: number; limited: boolean }
export interface SwarmEndEvent extends Base { type: 'swarm.end'; swarmId: string; counts: Record<string, number>; durationMs: number }
export interface TaskEvent extends Base {
  type: 'task.start' | 'task.end';
  taskId: string;
  agentId: string;
  kind: string;
  description: string;
  status?: string;
}
/** An agent's todo list changed (todo_list). */
export interface TodoEvent extends Base {
  type: 'todo.update';
  agentId: string;
  todos: { title: string; status: 'pending' | 'in_progress' | 'done' }[];
}
export interface LogEvent extends Base { type: 'log'; level: 'info' | 'warn' | 'error'; message: string; agentId?: string }

export type MurmurEvent =
  | RunStartEvent
  | RunEndEvent
  | AgentStartEvent
  | AgentEndEvent
  | TurnStartEvent
  | TurnEndEvent
  | ToolStartEvent
  | ToolUpdateEvent
  | ToolEndEvent
  | MessageDeltaEvent
  | MessageEvent
  | MessageSyntheticEvent
  | ModelRetryEvent
  | SwarmStartEvent
  | SwarmItemEvent
  | SwarmCapacityEvent
  | SwarmEndEvent
  | TaskEvent
  | TodoEvent
  | LogEvent;

export type EventType = MurmurEvent['type'];
export type EventOf<T extends EventType> = Extract<MurmurEvent, { type: T }>;
/** An event as emitted: the bus stamps `ts` when it is missing. */
export type EventInput = MurmurEvent extends infer E ? (E extends MurmurEvent ? Omit<E, 'ts'> & { ts?: number } : never) : never;

type Listener = (event: MurmurEvent) => void;

/**
 * Synchronous fan-out with isolation: a throwing subscriber is reported and skipped, never breaks the
 * emitter. Subscribers that do slow work must buffer (see jsonl-log.ts) so the loop is never stalled.
 */
export class EventBus {
  private readonly emitter = new EventEmitter();
  private anyListeners = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether anybody would receive an event of this type: lets hot paths skip building it. */
  wants(type: EventType): boolean {
    return this.anyListeners > 0 || this.emitter.listenerCount(type) > 0;
  }

  emit(input: EventInput): void {
    const event = input as MurmurEvent;
    if (event.ts === undefined) event.ts = this.now();
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
