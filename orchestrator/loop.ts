// The agent loop: model call -> assistant message -> tool batch -> next turn. A function of its inputs;
// the only state it touches is the LoopState it is handed. It is the hot path of every agent: it builds an
// event only when somebody listens (EventBus.wants), and allocates per run and per turn only what it must.
import type { RuntimeTool, ToolResult } from '../tools/contract.js';
import { systemClock } from './clock.js';
import { AnswerJudge, type OutputSpec } from './final-answer.js';
import type { EventBus, EventInput } from './events.js';
import type { ModelError, ModelRequest, ModelResult } from './models/provider.js';
import { answeredTurnEnd, failedTurnEnd } from './turn-end.js';
import {
  executeToolBatch,
  type AgentToolContext,
  type BatchHooks,
  type BatchObserver,
  type BatchOptions,
  type CallEnd,
  type CallUpdate,
} from './tool-batch.js';
import {
  addUsage,
  type AssistantMessage,
  type Effort,
  type EndStatus,
  type Message,
  type ToolCall,
  type ToolResultMessage,
  type ToolSchema,
  type Usage,
  type UserMessage,
} from './types.js';

/** Why an agent was stopped from outside (set as the abort signal's reason). */
export class StopRequest extends Error {
  constructor(
    readonly status: 'aborted' | 'timeout',
    message: string,
  ) {
    super(message);
  }
}

/** The tools of one turn. */
export interface TurnTools {
  tools: ReadonlyMap<string, RuntimeTool>;
  schemas: readonly ToolSchema[];
  /** Said before the conversation this turn (how to reach deferred tools). */
  instruction?: string;
}

export interface LoopState {
  messages: Message[];
  /** Turns in this agent's life so far (across resumes). */
  turns: number;
  toolCalls: number;
  usage: Usage;
  lastText: string;
}

export interface LoopConfig {
  agentId: string;
  role: string;
  /** A swarm item's agent: the item's attempt it works on (absent: 1), told to the model with each request. */
  attempt?: number;
  /** A swarm item's agent: its messages say so (their transcript is packed). */
  swarmId?: string;
  system: string;
  /** Turns allowed in this run. */
  maxTurns: number;
  callModel: (request: ModelRequest, signal: AbortSignal) => Promise<ModelResult>;
  /** The base URL of the model's server, once known (turn.end names it for traces). */
  endpoint?: () => string | undefined;
  /** The catalog of this turn, decided once from the turn's facts (async when MCP servers must be listed). */
  toolsForTurn: (turn: number) => TurnTools | Promise<TurnTools>;
  context: AgentToolContext;
  bus: EventBus;
  /** Messages that arrived while the agent worked (synthetic notifications): they join before the next call. */
  drainInbox: () => UserMessage[];
  /** True once the agent's token budget is spent. */
  budgetSpent?: () => boolean;
  /** Called with every message appended to the conversation. */
  onMessage?: (message: Message) => void;
  /** Called with each turn's usage as soon as it is known (live roll-up). */
  onUsage?: (usage: Usage) => void;
  hooks?: BatchHooks;
  maxOutputTokens?: number;
  /** How hard the model should think (the agent definition's, else the run's); absent = the model's default. */
  effort?: Effort;
  /** A typed output: the agent answers through final_answer (final-answer.ts), judged after each answer. */
  output?: OutputSpec;
  now?: () => number;
}

/** The running agent's own wiring; the rest of LoopConfig comes from its owner (AgentLoopConfig). */
export type LoopSelf = Pick<LoopConfig, 'agentId' | 'role' | 'bus' | 'drainInbox' | 'now' | 'swarmId' | 'attempt'>;

export interface LoopOutcome {
  status: EndStatus;
  reason?: string;
  /** The model failure that ended the run, if one did. */
  modelError?: ModelError;
}

function stopOutcome(signal: AbortSignal): LoopOutcome {
  const reason = signal.reason;
  if (reason instanceof StopRequest) return { status: reason.status, reason: reason.message };
  return { status: 'aborted', reason: reason instanceof Error ? reason.message : 'aborted' };
}

function preview(text: string, max = 200): string {
  return text.length > max ? text.slice(0, max) : text;
}

const EMPTY_ARRIVALS: UserMessage[] = [];

function emitToolEnd(bus: EventBus, agentId: string, call: ToolCall, result: ToolResult, durationMs: number): void {
  const event: Extract<EventInput, { type: 'tool.end' }> = {
    type: 'tool.end',
    agentId,
    tool: call.name,
    callId: call.id,
    isError: result.isError === true,
    durationMs,
  };
  if (result.isError) {
    const first = result.content[0];
    if (first?.type === 'text') event.error = preview(first.text);
  }
  bus.emit(event);
}

/**
 * One run of the loop. A class rather than closures: its methods live on the prototype, so a run allocates one
 * object where closures would allocate one each (the overhead benchmark runs 1,000 agents a round). It is also the
 * tool batch's observer. `update` and `end` exist only when somebody listens to tool.update and tool.end as the
 * run starts, so the batch neither builds a per-call update callback nor times calls for nobody.
 */
class LoopRun implements BatchObserver {
  readonly update: CallUpdate | undefined;
  readonly end: CallEnd | undefined;
  private readonly onTextDelta: ((text: string) => void) | undefined;
  private readonly onThinkingDelta: ((text: string) => void) | undefined;
  /** A provider's warning (a server refused --effort) as a `log` event; only effort can raise one today. */
  private readonly onWarning: ((message: string) => void) | undefined;
  /** Judges the answers of an agent with a typed output (this run's invalid answers). */
  private readonly judge: AnswerJudge | undefined;

  constructor(
    private readonly state: LoopState,
    private readonly config: Omit<LoopConfig, keyof LoopSelf>,
    private readonly self: LoopSelf,
    private readonly signal: AbortSignal,
  ) {
    const { bus, agentId } = self;
    this.update = bus.wants('tool.update')
      ? (call, text) => bus.emit({ type: 'tool.update', agentId, tool: call.name, callId: call.id, text })
      : undefined;
    this.end = bus.wants('tool.end')
      ? (call, result, durationMs) => emitToolEnd(bus, agentId, call, result, durationMs)
      : undefined;
    const streamed = bus.wants('message.delta');
    this.onTextDelta = streamed ? (text) => bus.emit({ type: 'message.delta', agentId, text }) : undefined;
    this.onThinkingDelta = streamed
      ? (text) => bus.emit({ type: 'message.delta', agentId, text, thinking: true })
      : undefined;
    this.onWarning =
      config.effort && bus.wants('log')
        ? (message) => bus.emit({ type: 'log', level: 'warn', agentId, message })
        : undefined;
    this.judge = config.output ? new AnswerJudge(config.output) : undefined;
  }

  start(call: ToolCall): void {
    this.state.toolCalls++;
    const { bus, agentId } = this.self;
    if (bus.wants('tool.start'))
      bus.emit({ type: 'tool.start', agentId, tool: call.name, callId: call.id, args: preview(call.arguments) });
  }

  private append(message: Message): void {
    this.state.messages.push(message);
    this.config.onMessage?.(message);
    const { bus, agentId, swarmId } = this.self;
    if (bus.wants('message'))
      bus.emit({
        type: 'message',
        agentId,
        role: message.role,
        message,
        ...(swarmId !== undefined ? { swarmId } : {}),
      });
  }

  private admit(messages: readonly UserMessage[]): void {
    const { bus, agentId } = this.self;
    for (const message of messages) {
      this.append(message);
      if (message.synthetic && bus.wants('message.synthetic')) {
        const { kind, taskId } = message.synthetic;
        bus.emit(
          taskId ? { type: 'message.synthetic', agentId, kind, taskId } : { type: 'message.synthetic', agentId, kind },
        );
      }
    }
  }

  /**
   * Keeps a batch's results in the conversation, except those of calls that wait for a person: they stay open.
   * The outcome of an agent that now waits, or undefined when every call has its result.
   */
  private keep(results: readonly ToolResultMessage[]): LoopOutcome | undefined {
    let waitingFor: string[] | undefined;
    for (const result of results) {
      if (!result.pending) this.append(result);
      else (waitingFor ??= []).push(firstText(result));
    }
    return waitingFor ? { status: 'waiting', reason: waitingFor.join('; ') } : undefined;
  }

  async run(): Promise<LoopOutcome> {
    const { state, config, self, signal } = this;
    const { bus, agentId } = self;
    const agent = { id: agentId, role: self.role, attempt: self.attempt ?? 1 };
    // Built once per run; only the turn's tools change between batches.
    const batchOptions: BatchOptions = {
      tools: EMPTY_TOOLS,
      context: config.context,
      signal,
      observer: this,
      now: self.now ?? systemClock.now,
    };
    if (config.hooks) batchOptions.hooks = config.hooks;

    // Calls left open when the agent stopped for a person run first, answered, exactly where they stopped.
    const open = openCalls(state.messages);
    if (open.length > 0) {
      batchOptions.tools = (await config.toolsForTurn(state.turns)).tools;
      const waiting = this.keep(await executeToolBatch(open, batchOptions));
      if (waiting) return signal.aborted ? stopOutcome(signal) : waiting;
    }

    let arrived = EMPTY_ARRIVALS;
    for (let turnInRun = 0; ; turnInRun++) {
      this.admit(arrived.length > 0 ? arrived : self.drainInbox());
      arrived = EMPTY_ARRIVALS;
      if (signal.aborted) return stopOutcome(signal);
      if (turnInRun >= config.maxTurns)
        return { status: 'failed', reason: `reached maxTurns (${config.maxTurns}) before finishing` };
      // A woken agent whose budget is already spent must not call the model again.
      if (config.budgetSpent?.()) return { status: 'budget', reason: 'token budget spent' };

      // A turn counts once the model answered: a failed call is not a turn the conversation holds.
      const turn = state.turns + 1;
      if (bus.wants('turn.start')) bus.emit({ type: 'turn.start', agentId, turn });
      const offered = config.toolsForTurn(turn);
      const turnTools = offered instanceof Promise ? await offered : offered;
      const system = turnTools.instruction ? `${config.system}\n\n${turnTools.instruction}` : config.system;
      const request: ModelRequest = { system, messages: state.messages, tools: turnTools.schemas, agent };
      if (this.onTextDelta) request.onTextDelta = this.onTextDelta;
      if (this.onThinkingDelta) request.onThinkingDelta = this.onThinkingDelta;
      if (this.onWarning) request.onWarning = this.onWarning;
      if (config.maxOutputTokens !== undefined) request.maxOutputTokens = config.maxOutputTokens;
      if (config.effort) request.effort = config.effort;
      const result = await config.callModel(request, signal);

      if (!result.ok) {
        if (bus.wants('turn.end')) bus.emit(failedTurnEnd(agentId, turn, result.error, config.endpoint?.()));
        if (signal.aborted) return stopOutcome(signal);
        return { status: 'failed', reason: result.error.message, modelError: result.error };
      }
      const message: AssistantMessage = result.message;
      state.turns = turn;
      if (message.usage) {
        addUsage(state.usage, message.usage);
        config.onUsage?.(message.usage);
      }
      this.append(message);
      if (message.text) state.lastText = message.text;
      if (bus.wants('turn.end')) bus.emit(answeredTurnEnd(agentId, turn, message, config.endpoint?.()));

      if (message.toolCalls.length === 0) {
        if (config.budgetSpent?.()) return { status: 'budget', reason: 'token budget spent' };
        // A message that arrived during the final call wakes the agent for another turn.
        arrived = self.drainInbox();
        if (arrived.length > 0) continue;
        if (!this.judge) return { status: 'completed' };
        const next = this.judge.afterText();
        if ('status' in next) return next;
        arrived = [next];
        continue;
      }

      if (config.budgetSpent?.()) {
        // Keep the transcript whole: every call gets a result, none runs.
        for (const call of message.toolCalls) {
          this.append({
            role: 'tool',
            toolCallId: call.id,
            toolName: call.name,
            content: [{ type: 'text', text: 'Not run: the token budget is spent.' }],
            isError: true,
          });
        }
        return { status: 'budget', reason: 'token budget spent' };
      }

      batchOptions.tools = turnTools.tools;
      const results = await executeToolBatch(message.toolCalls, batchOptions);
      const waiting = this.keep(results);
      if (waiting) return signal.aborted ? stopOutcome(signal) : waiting;
      const answered = this.judge?.afterBatch(results);
      if (answered?.status === 'completed') {
        state.lastText = answered.text;
        return { status: 'completed' };
      }
      if (answered) return answered;
    }
  }
}

const EMPTY_TOOLS: ReadonlyMap<string, RuntimeTool> = new Map();

function firstText(result: ToolResultMessage): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : 'waiting for a person';
}

const NO_CALLS: readonly ToolCall[] = [];

/** The calls of the conversation's last assistant message that have no result yet (a stop for a person left them). */
export function openCalls(messages: readonly Message[]): readonly ToolCall[] {
  let i = messages.length - 1;
  while (i >= 0 && messages[i]!.role === 'tool') i--;
  const last = messages[i];
  if (!last || last.role !== 'assistant' || last.toolCalls.length === 0) return NO_CALLS;
  if (messages.length - 1 - i >= last.toolCalls.length) return NO_CALLS;
  const answered = new Set<string>();
  for (let j = i + 1; j < messages.length; j++) answered.add((messages[j] as ToolResultMessage).toolCallId);
  return last.toolCalls.filter((call) => !answered.has(call.id));
}

export function runLoop(state: LoopState, config: LoopConfig, signal: AbortSignal): Promise<LoopOutcome> {
  return new LoopRun(state, config, config, signal).run();
}

/** The loop as an Agent runs it: its owner's settings as given (never copied) beside the agent's own wiring. */
export function runAgentLoop(
  state: LoopState,
  settings: Omit<LoopConfig, keyof LoopSelf>,
  self: LoopSelf,
  signal: AbortSignal,
): Promise<LoopOutcome> {
  return new LoopRun(state, settings, self, signal).run();
}
