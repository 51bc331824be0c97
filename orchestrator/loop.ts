// The agent loop: model call -> assistant message -> tool batch -> next turn. A function of its inputs;
// the only state it touches is the LoopState it is handed.
import type { RuntimeTool } from '../tools/contract.js';
import type { EventBus } from './events.js';
import type { ModelError, ModelRequest, ModelResult } from './models/provider.js';
import { executeToolBatch, type BatchHooks } from './tool-batch.js';
import { addUsage, type AssistantMessage, type EndStatus, type Message, type ToolSchema, type Usage, type UserMessage } from './types.js';
import type { ToolContext } from '../tools/contract.js';

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
  system: string;
  /** Turns allowed in this run. */
  maxTurns: number;
  callModel: (request: ModelRequest, signal: AbortSignal) => Promise<ModelResult>;
  /** The catalog of this turn, decided once from the turn's facts (async when MCP servers must be listed). */
  toolsForTurn: (turn: number) => TurnTools | Promise<TurnTools>;
  context: Omit<ToolContext, 'callId'>;
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
  now?: () => number;
}

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

export async function runLoop(state: LoopState, config: LoopConfig, signal: AbortSignal): Promise<LoopOutcome> {
  const { bus, agentId } = config;
  const now = config.now ?? Date.now;
  const append = (message: Message) => {
    state.messages.push(message);
    config.onMessage?.(message);
    if (bus.wants('message')) bus.emit({ type: 'message', agentId, role: message.role, message });
  };
  const observer = {
    start: (call: { id: string; name: string; arguments: string }) => {
      state.toolCalls++;
      if (bus.wants('tool.start')) bus.emit({ type: 'tool.start', agentId, tool: call.name, callId: call.id, args: preview(call.arguments) });
    },
    update: (call: { id: string; name: string }, text: string) => {
      if (bus.wants('tool.update')) bus.emit({ type: 'tool.update', agentId, tool: call.name, callId: call.id, text });
    },
    end: (call: { id: string; name: string }, result: { isError?: boolean; content: { type: string }[] }, durationMs: number) => {
      if (!bus.wants('tool.end')) return;
      const event: Parameters<EventBus['emit']>[0] = { type: 'tool.end', agentId, tool: call.name, callId: call.id, isError: result.isError === true, durationMs };
      if (result.isError) {
        const first = result.content[0] as { type: string; text?: string } | undefined;
        if (first?.type === 'text') (event as { error?: string }).error = preview(first.text ?? '');
      }
      bus.emit(event);
    },
  };
  const onTextDelta = bus.wants('message.delta') ? (text: string) => bus.emit({ type: 'message.delta', agentId, text }) : undefined;

  const admit = (messages: UserMessage[]) => {
    for (const message of messages) {
      append(message);
      if (message.synthetic && bus.wants('message.synthetic')) {
        const { kind, taskId } = message.synthetic;
        bus.emit(taskId ? { type: 'message.synthetic', agentId, kind, taskId } : { type: 'message.synthetic', agentId, kind });
      }
    }
  };

  let arrived: UserMessage[] = [];
  for (let turnInRun = 0; ; turnInRun++) {
    admit(arrived.length > 0 ? arrived : config.drainInbox());
    arrived = [];
    if (signal.aborted) return stopOutcome(signal);
    if (turnInRun >= config.maxTurns) return { status: 'failed', reason: `reached maxTurns (${config.maxTurns}) before finishing` };
    // A woken agent whose budget is already spent must not call the model again.
    if (config.budgetSpent?.()) return { status: 'budget', reason: 'token budget spent' };

    // A turn counts once the model answered: a failed call is not a turn the conversation holds.
    const turn = state.turns + 1;
    if (bus.wants('turn.start')) bus.emit({ type: 'turn.start', agentId, turn });
    const offered = config.toolsForTurn(turn);
    const turnTools = offered instanceof Promise ? await offered : offered;
    const system = turnTools.instruction ? `${config.system}\n\n${turnTools.instruction}` : config.system;
    const request: ModelRequest = { system, messages: state.messages, tools: turnTools.schemas, agent: { id: agentId, role: config.role } };
    if (onTextDelta) request.onTextDelta = onTextDelta;
    if (config.maxOutputTokens !== undefined) request.maxOutputTokens = config.maxOutputTokens;
    const result = await config.callModel(request, signal);

    if (!result.ok) {
      if (bus.wants('turn.end')) bus.emit({ type: 'turn.end', agentId, turn, toolCalls: 0, error: result.error.message });
      if (signal.aborted) return stopOutcome(signal);
      return { status: 'failed', reason: result.error.message, modelError: result.error };
    }
    const message: AssistantMessage = result.message;
    state.turns = turn;
    if (message.usage) {
      addUsage(state.usage, message.usage);
      config.onUsage?.(message.usage);
    }
    append(message);
    if (message.text) state.lastText = message.text;
    if (bus.wants('turn.end')) {
      const event = { type: 'turn.end' as const, agentId, turn, toolCalls: message.toolCalls.length, ...(message.usage ? { usage: message.usage } : {}) };
      bus.emit(event);
    }

    if (message.toolCalls.length === 0) {
      if (config.budgetSpent?.()) return { status: 'budget', reason: 'token budget spent' };
      // A message that arrived during the final call wakes the agent for another turn.
      arrived = config.drainInbox();
      if (arrived.length === 0) return { status: 'completed' };
      continue;
    }

    if (config.budgetSpent?.()) {
      // Keep the transcript whole: every call gets a result, none runs.
      for (const call of message.toolCalls) {
        append({ role: 'tool', toolCallId: call.id, toolName: call.name, content: [{ type: 'text', text: 'Not run: the token budget is spent.' }], isError: true });
      }
      return { status: 'budget', reason: 'token budget spent' };
    }

    const batchOptions = { tools: turnTools.tools, context: config.context, signal, observer, now } as Parameters<typeof executeToolBatch>[1];
    if (config.hooks) batchOptions.hooks = config.hooks;
    const results = await executeToolBatch(message.toolCalls, batchOptions);
    for (const toolResult of results) append(toolResult);
  }
}
