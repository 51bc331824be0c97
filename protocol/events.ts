// The events every step of the engine emits (the contract of `--events FILE`): each is documented where it is
// declared. The bus that carries them, and the run-time list of their types, are orchestrator/events.ts's.
import type { RunStatus } from './run-status.js';
import type { ItemAttempt, ItemOutcome } from './reports.js';
import type { EndStatus } from './agents.js';
import type { Message } from './messages.js';
import type { Usage } from './usage.js';

interface Base {
  /** Epoch milliseconds, stamped by the bus from the engine's clock when the emitter leaves it out. */
  ts: number;
  /** The run's session id, stamped by a bus made for one run (the library's): set on every event of that run. */
  sessionId?: string;
}

/** A command (`murmur run`, `murmur swarm`, an MCP request) began: what it was asked and on which model. */
export interface RunStartEvent extends Base {
  type: 'run.start';
  mode: 'run' | 'swarm';
  task: string;
  model: string;
}
/** The command finished: its final status and the whole run's usage. */
export interface RunEndEvent extends Base {
  type: 'run.end';
  status: RunStatus;
  usage: Usage;
  /** How many calls wait for a person (status `waiting`, or kept by an abort). */
  waiting?: number;
  /** When the session began and how long its segments ran in all, across resumes (ms). */
  startedAt?: number;
  durationMs?: number;
}
/** An agent's run began (a new agent, or one resumed with `resumed: true`). */
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
/** An agent's run ended; `usage`, `turns` and `toolCalls` count this run only (not earlier runs of a resumed agent). */
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
/** A model call is about to be made; `turn` counts the agent's turns across resumes, from 1. */
export interface TurnStartEvent extends Base {
  type: 'turn.start';
  agentId: string;
  turn: number;
}
/** The model answered (with `usage` and how many tool calls it asked for), or failed (`error`). */
export interface TurnEndEvent extends Base {
  type: 'turn.end';
  agentId: string;
  turn: number;
  usage?: Usage;
  toolCalls: number;
  /** Set when the model call failed and the turn ended with that reason. */
  error?: string;
  /** A failed call: the HTTP status when there was one, and the kind of failure (`rate_limit`, `network`…). */
  errorStatus?: number;
  errorKind?: string;
  /** The base URL the call went to, when the model is a server. */
  server?: string;
  /** What the server said of its answer: the response's id and the model that answered. */
  responseId?: string;
  responseModel?: string;
}
/**
 * A tool call began; `args` is the raw JSON the model sent, cut at 200 characters. `via: 'shell'`: the call came
 * through murmur-tools from the agent's bash, not from its catalog.
 */
export interface ToolStartEvent extends Base {
  type: 'tool.start';
  agentId: string;
  tool: string;
  callId: string;
  args: string;
  via?: 'shell';
}
/** A running tool streamed partial output (a command's output so far). */
export interface ToolUpdateEvent extends Base {
  type: 'tool.update';
  agentId: string;
  tool: string;
  callId: string;
  text: string;
}
/** A tool call ended, after its result passed the budget gates; `isError` as the model sees it. */
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
/**
 * Streamed text as it arrives; `thinking: true` for reasoning/thinking text that is not part of the answer. Kept
 * out of `--events` (the whole message follows as a `message` event and in the transcript).
 */
export interface MessageDeltaEvent extends Base {
  type: 'message.delta';
  agentId: string;
  text: string;
  thinking?: boolean;
}
/**
 * A message joined an agent's conversation (user, assistant or tool result), in conversation order. The
 * transcript writer keeps it on disk; the dashboard shows it. Kept out of `--events` (the transcripts hold it).
 */
export interface MessageEvent extends Base {
  type: 'message';
  agentId: string;
  role: Message['role'];
  message: Message;
  /** The agent's swarm, for a swarm item's agent: its transcript is packed with the others (transcript-pack.ts). */
  swarmId?: string;
}
/** A message the engine injected joined the conversation: a background task finished, a timer fired. */
export interface MessageSyntheticEvent extends Base {
  type: 'message.synthetic';
  agentId: string;
  kind: string;
  taskId?: string;
}
/** A model call failed in a way worth retrying (see ModelErrorKind); it is retried after `delayMs`. */
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
/** A swarm began, with every item in input order (indices in `swarm.item` refer to this list). */
export interface SwarmStartEvent extends Base {
  type: 'swarm.start';
  swarmId: string;
  parentId?: string;
  description: string;
  role: string;
  items: string[];
  maxConcurrency?: number;
}
export type SwarmItemState =
  /** Live: waiting its turn, running, held back by a rate limit, being checked by a verifier. */
  | 'queued'
  | 'launched'
  | 'rate_limited'
  | 'verifying'
  /** Ended as its report row says (`waiting`: its agent stopped at a call that needs a person; a resume goes on). */
  | ItemOutcome;
/** One swarm item changed state (queued, launched, held back by a rate limit, verified, finished…). */
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
  /** A retried item's end: how its earlier attempts ended (`murmur resume --retry`). */
  attempts?: ItemAttempt[];
}
/** The controller's capacity changed (ramp, rate-limit hold, recovery). */
export interface SwarmCapacityEvent extends Base {
  type: 'swarm.capacity';
  swarmId: string;
  capacity: number;
  running: number;
  limited: boolean;
}
/** A swarm finished: items per final state, and how long it took. */
export interface SwarmEndEvent extends Base {
  type: 'swarm.end';
  swarmId: string;
  counts: Record<string, number>;
  durationMs: number;
}
/** A background task (a command, a subagent, a question) started (`task.start`) or ended (`task.end`, with its status). */
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
/** Something a person should know that is no step of an agent: a skipped definition, an MCP problem, a resume note. */
export interface LogEvent extends Base {
  type: 'log';
  level: 'info' | 'warn' | 'error';
  message: string;
  agentId?: string;
  /** Says what murmur does not contain here (an unconfined verifier): shown even with --json, on stderr. */
  containment?: true;
}

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

/** The name of an event murmur emits (`agent.start`, `swarm.item`…): every type of MurmurEvent. */
export type EventType = MurmurEvent['type'];

export type EventOf<T extends EventType> = Extract<MurmurEvent, { type: T }>;
/** An event as emitted: the bus stamps `ts` when it is missing. */
export type EventInput = MurmurEvent extends infer E
  ? E extends MurmurEvent
    ? Omit<E, 'ts'> & { ts?: number }
    : never
  : never;
