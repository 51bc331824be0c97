// A thin stateful wrapper around the loop: the conversation, the inbox, the status, abort and timeout.
import { setMaxListeners } from 'node:events';
import { type Clock, systemClock } from './clock.js';
import type { EventBus } from './events.js';
import { runLoop, StopRequest, type LoopConfig, type LoopOutcome, type LoopState } from './loop.js';
import { addUsage, emptyUsage, userText, type AgentStatus, type EndStatus, type Message, type Usage, type UserMessage } from './types.js';

export interface AgentIdentity {
  id: string;
  role: string;
  parentId?: string;
  description?: string;
  swarmId?: string;
  item?: string;
  model?: string;
}

/** Everything the loop needs except the per-run state, which the Agent owns. */
export type AgentLoopConfig = Omit<LoopConfig, 'agentId' | 'role' | 'drainInbox' | 'bus' | 'maxTurns'> & { maxTurns: number };

export interface AgentRunResult {
  status: EndStatus;
  reason?: string;
  /** The agent's last message: the handoff to its parent. */
  text: string;
  usage: Usage;
  outcome: LoopOutcome;
}

export interface RunOptions {
  /** Milliseconds for this run; ends only this agent, with status `timeout`. */
  timeoutMs?: number;
  /** Aborting this aborts the run (a parent's signal). */
  parentSignal?: AbortSignal;
}

export class Agent {
  readonly state: LoopState;
  status: AgentStatus | 'idle' = 'idle';
  reason: string | undefined;
  startedAt: number | undefined;
  endedAt: number | undefined;
  private inbox: UserMessage[] = [];
  private controller: AbortController | undefined;
  private running: Promise<AgentRunResult> | undefined;
  /** Called when a message arrives while the agent is idle: the owner decides whether to wake it. */
  onIdleMessage: ((agent: Agent) => void) | undefined;

  constructor(
    readonly identity: AgentIdentity,
    private readonly config: AgentLoopConfig,
    private readonly bus: EventBus,
    messages: Message[] = [],
    private readonly clock: Clock = systemClock,
  ) {
    this.state = { messages, turns: 0, toolCalls: 0, usage: emptyUsage(), lastText: '' };
    for (const m of messages) {
      if (m.role !== 'assistant') continue;
      this.state.turns++;
      this.state.toolCalls += m.toolCalls.length;
      if (m.usage) addUsage(this.state.usage, m.usage);
      if (m.text) this.state.lastText = m.text;
    }
  }

  get id(): string {
    return this.identity.id;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /**
   * Queues a message. While running it joins after the current tool batch; while idle the owner is told
   * (unless `wake` is false: the message then waits for the next run).
   */
  enqueue(message: UserMessage, wake = true): void {
    this.inbox.push(message);
    if (!this.running && wake) this.onIdleMessage?.(this);
  }

  get pendingMessages(): number {
    return this.inbox.length;
  }

  /** Stops the current run (its tools and model stream) with the given status. */
  abort(status: 'aborted' | 'timeout' = 'aborted', message = status === 'timeout' ? 'timed out' : 'aborted'): void {
    this.controller?.abort(new StopRequest(status, message));
  }

  /** Runs until the model answers without tool calls, maxTurns, the budget, a failure or an abort. */
  run(prompt?: string | UserMessage, options: RunOptions = {}): Promise<AgentRunResult> {
    if (this.running) return Promise.reject(new Error(`agent ${this.id} is already running`));
    if (prompt !== undefined) this.inbox.unshift(typeof prompt === 'string' ? { role: 'user', content: prompt } : prompt);
    this.running = this.execute(options).finally(() => {
      this.running = undefined;
      if (this.inbox.length > 0) this.onIdleMessage?.(this);
    });
    return this.running;
  }

  /** Resolves when the current run ends (at once when idle). */
  async settled(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  private async execute(options: RunOptions): Promise<AgentRunResult> {
    const controller = new AbortController();
    // Every parallel tool call and subagent listens on it: not a leak.
    setMaxListeners(0, controller.signal);
    this.controller = controller;
    const { identity, bus, clock } = this;
    const onParentAbort = () => controller.abort(options.parentSignal?.reason instanceof StopRequest ? options.parentSignal.reason : new StopRequest('aborted', 'parent aborted'));
    if (options.parentSignal?.aborted) onParentAbort();
    else options.parentSignal?.addEventListener('abort', onParentAbort, { once: true });
    const timeoutMs = options.timeoutMs;
    // Infinity means no timeout; timers cannot wait longer than 2^31-1 ms.
    const timer =
      timeoutMs !== undefined && Number.isFinite(timeoutMs)
        ? clock.setTimeout(() => this.abort('timeout', `timed out after ${formatMs(timeoutMs)}`), Math.min(timeoutMs, 2_147_483_647))
        : undefined;

    const started = clock.now();
    // Resumed: it ran before in this process, or it continues a conversation from disk.
    const resumed = this.startedAt !== undefined || this.state.messages.length > 0;
    this.startedAt = started;
    this.endedAt = undefined;
    this.status = 'running';
    this.reason = undefined;
    const turnsBefore = this.state.turns;
    const toolCallsBefore = this.state.toolCalls;
    const usageBefore = { ...this.state.usage };
    if (bus.wants('agent.start')) {
      const first = this.inbox[0];
      const text = first ? userText(first) : '';
      const { id, ...rest } = identity;
      bus.emit({ type: 'agent.start', agentId: id, ...rest, prompt: firstLine(text), resumed });
    }

    let outcome: LoopOutcome;
    try {
      outcome = await runLoop(
        this.state,
        { ...this.config, agentId: identity.id, role: identity.role, bus, drainInbox: () => this.drain() },
        controller.signal,
      );
    } catch (error) {
      // A bug, not a model or tool failure: report it as a failed agent instead of crashing the parent.
      outcome = { status: 'failed', reason: `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}` };
    } finally {
      if (timer !== undefined) clock.clearTimeout(timer);
      options.parentSignal?.removeEventListener('abort', onParentAbort);
      this.controller = undefined;
    }

    this.status = outcome.status;
    this.reason = outcome.reason;
    this.endedAt = clock.now();
    if (bus.wants('agent.end')) {
      const usage = diffUsage(this.state.usage, usageBefore);
      bus.emit({
        type: 'agent.end',
        agentId: identity.id,
        ...(identity.parentId !== undefined ? { parentId: identity.parentId } : {}),
        ...(identity.swarmId !== undefined ? { swarmId: identity.swarmId, item: identity.item } : {}),
        role: identity.role,
        status: outcome.status,
        ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
        usage,
        turns: this.state.turns - turnsBefore,
        toolCalls: this.state.toolCalls - toolCallsBefore,
        durationMs: this.endedAt - started,
      });
    }
    const result: AgentRunResult = { status: outcome.status, text: this.state.lastText, usage: this.state.usage, outcome };
    if (outcome.reason !== undefined) result.reason = outcome.reason;
    return result;
  }

  private drain(): UserMessage[] {
    if (this.inbox.length === 0) return EMPTY;
    const out = this.inbox;
    this.inbox = [];
    return out;
  }
}

const EMPTY: UserMessage[] = [];

function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.round(ms / 6000) / 10} min`;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function diffUsage(now: Usage, before: Usage): Usage {
  const out: Usage = {
    input: now.input - before.input,
    output: now.output - before.output,
    cacheRead: now.cacheRead - before.cacheRead,
    cacheWrite: now.cacheWrite - before.cacheWrite,
  };
  if (now.cost !== undefined) out.cost = now.cost - (before.cost ?? 0);
  return out;
}
