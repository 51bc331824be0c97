// A thin stateful wrapper around the loop: the conversation, the inbox, the status, abort and timeout.
import { getEventListeners, setMaxListeners } from 'node:events';
import { type Clock, systemClock } from './clock.js';
import { answerText, isAcceptedAnswer } from './final-answer.js';
import type { EventBus, EventInput } from './events.js';
import { runAgentLoop, StopRequest, type LoopConfig, type LoopOutcome, type LoopSelf, type LoopState } from './loop.js';
import {
  addUsage,
  emptyUsage,
  userText,
  type AgentStatus,
  type EndStatus,
  type Message,
  type Usage,
  type UserMessage,
} from './types.js';
import { afterRecordLoss } from './record-loss.js';

/** Who the agent is: fixed when it is made. */
export interface AgentIdentity {
  readonly id: string;
  readonly role: string;
  readonly parentId?: string;
  readonly description?: string;
  readonly swarmId?: string;
  readonly item?: string;
  /** A swarm item's agent: the item's attempt it works on (absent: 1). */
  readonly attempt?: number;
  readonly model?: string;
}

/** The statuses a saved session restores (a saved `running` or `idle` agent comes back `interrupted`). */
export type RestoredStatus = AgentStatus | 'idle';

/** Everything the loop needs except the per-run state, which the Agent owns. */
export type AgentLoopConfig = Omit<LoopConfig, 'agentId' | 'role' | 'attempt' | 'drainInbox' | 'bus' | 'maxTurns'> & {
  maxTurns: number;
};

export interface AgentRunResult {
  status: EndStatus;
  reason?: string;
  /** The agent's last message: the handoff to its parent. */
  text: string;
  usage: Usage;
  outcome: LoopOutcome;
}

export interface AgentRunOptions {
  /** Milliseconds for this run; ends only this agent, with status `timeout`. */
  timeoutMs?: number;
  /** Aborting this aborts the run (a parent's signal). */
  parentSignal?: AbortSignal;
  /** How the parent signal's abort reason reads for this agent; default: a StopRequest as is, else "parent aborted". */
  stopFromParent?: (cause: unknown) => StopRequest;
}

export class Agent {
  readonly state: LoopState;
  // Changed only by the agent's own runs and the methods below (interrupt, expire, acceptHandoff, restore).
  private currentStatus: AgentStatus | 'idle' = 'idle';
  private currentReason: string | undefined;
  private startTime: number | undefined;
  private endTime: number | undefined;
  private inbox: UserMessage[] = [];
  private controller: AbortController | undefined;
  private running: Promise<AgentRunResult> | undefined;
  private ended = false;
  /** The agent's own part of the loop's config, built once: every run reuses it (and `config` as given). */
  private readonly self: LoopSelf;
  private readonly config: AgentLoopConfig;
  constructor(
    readonly identity: AgentIdentity,
    config: AgentLoopConfig,
    private readonly bus: EventBus,
    messages: Message[] = [],
    private readonly clock: Clock = systemClock,
    /** Called when a message arrives while the agent is idle: the owner decides whether to wake it. */
    private readonly onIdleMessage?: (agent: Agent) => void,
  ) {
    // Kept apart from `config`, which is not copied: on Node 20 `{ ...config, agentId… }` costs about 1.7 KB
    // per object, and 1,000 agents a second is the workload the overhead benchmark measures.
    this.config = config;
    this.self = { agentId: identity.id, role: identity.role, bus, drainInbox: () => this.drain() };
    if (identity.swarmId !== undefined) this.self.swarmId = identity.swarmId;
    if (identity.attempt !== undefined) this.self.attempt = identity.attempt;
    // The loop falls back to the system clock itself; a closure only for another clock.
    const now = config.now ?? (clock === systemClock ? undefined : () => clock.now());
    if (now) this.self.now = now;
    this.state = { messages, turns: 0, toolCalls: 0, usage: emptyUsage(), lastText: '' };
    for (const m of messages) {
      // A typed output's answer is its handoff (as the loop made it when the agent answered).
      if (isAcceptedAnswer(m)) this.state.lastText = answerText(m.details.output);
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

  get status(): AgentStatus | 'idle' {
    return this.currentStatus;
  }

  /** Why it ended as it did (failed, aborted, timed out…). */
  get reason(): string | undefined {
    return this.currentReason;
  }

  /** When it first started (a resumed agent keeps its saved start). */
  get startedAt(): number | undefined {
    return this.startTime;
  }

  get endedAt(): number | undefined {
    return this.endTime;
  }

  /** A finished agent given more to do while it is not running (a resumed session's note): it is to continue. */
  interrupt(): void {
    if (!this.running) this.currentStatus = 'interrupted';
  }

  /** Ends a finished run as timed out: its owner stopped waiting for the background work it left (nothing is running). */
  expire(reason: string): void {
    if (this.running) return;
    this.currentStatus = 'timeout';
    this.currentReason = reason;
  }

  /**
   * Its transcript could not be written to the end (found once its lines were written, after the run): a completed
   * agent is failed from now on, any other keeps its status; the reason says which file and why. Said once.
   */
  markRecordLost(reason: string): void {
    if (this.running) return;
    const after = afterRecordLoss(this.currentStatus, this.currentReason, reason);
    if (after) ({ status: this.currentStatus, reason: this.currentReason } = after);
  }

  /** An interrupted agent whose work was taken over as it stood (a worktree item's changes, merged): it counts as completed. */
  acceptHandoff(): void {
    if (!this.running && this.currentStatus === 'interrupted') this.currentStatus = 'completed';
  }

  /** The status a saved session left it in, before it runs in this process; one that was still going is `interrupted`. */
  restore(status: RestoredStatus, reason?: string): void {
    if (this.running || this.startTime !== undefined) return;
    if (status === 'running' || status === 'idle' || status === 'interrupted') {
      this.currentStatus = 'interrupted';
      return;
    }
    this.currentStatus = status;
    this.currentReason = reason;
  }

  /** The times a saved session kept for it (its first start, its last end), before it runs in this process. */
  restoreTimes(startedAt: number | undefined, endedAt: number | undefined): void {
    if (this.running) return;
    if (startedAt !== undefined) this.startTime = startedAt;
    if (endedAt !== undefined) this.endTime = endedAt;
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
  run(prompt?: string | UserMessage, options: AgentRunOptions = NO_OPTIONS): Promise<AgentRunResult> {
    if (this.running) return Promise.reject(new Error(`agent ${this.id} is already running`));
    if (prompt !== undefined)
      this.inbox.unshift(typeof prompt === 'string' ? { role: 'user', content: prompt } : prompt);
    // execute() clears `running` itself as it settles (its own finally, not a `.finally()` chain: fewer
    // promises per run). Had it ended before its first await (an agent.start subscriber threw), it ended already.
    this.ended = false;
    const running = this.execute(options);
    if (!this.ended) this.running = running;
    return running;
  }

  /** Resolves when the current run ends (at once when idle). */
  async settled(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  private async execute(options: AgentRunOptions): Promise<AgentRunResult> {
    try {
      const controller = takeController();
      this.controller = controller;
      const { identity, bus, clock } = this;
      const { parentSignal } = options;
      let onParentAbort: (() => void) | undefined;
      if (parentSignal) {
        const stop = options.stopFromParent ?? defaultParentStop;
        onParentAbort = () => controller.abort(stop(parentSignal.reason));
        if (parentSignal.aborted) onParentAbort();
        else parentSignal.addEventListener('abort', onParentAbort, { once: true });
      }
      const timeoutMs = options.timeoutMs;
      // Infinity means no timeout; timers cannot wait longer than 2^31-1 ms.
      const timer =
        timeoutMs !== undefined && Number.isFinite(timeoutMs)
          ? clock.setTimeout(
              () => this.abort('timeout', `timed out after ${formatMs(timeoutMs)}`),
              Math.min(timeoutMs, 2_147_483_647),
            )
          : undefined;

      const started = clock.now();
      // Resumed: it ran before in this process, or it continues a conversation from disk.
      const resumed = this.startTime !== undefined || this.state.messages.length > 0;
      // Its first start stays its start: a resumed or woken agent keeps it.
      this.startTime ??= started;
      this.endTime = undefined;
      this.currentStatus = 'running';
      this.currentReason = undefined;
      const turnsBefore = this.state.turns;
      const toolCallsBefore = this.state.toolCalls;
      // Scalars, not a copy of the usage object: only agent.end reads them.
      const { input, output, cacheRead, cacheWrite, cost } = this.state.usage;
      if (bus.wants('agent.start')) {
        const first = this.inbox[0];
        const text = first ? userText(first) : '';
        const { id, ...rest } = identity;
        bus.emit({ type: 'agent.start', agentId: id, ...rest, prompt: firstLine(text), resumed });
      }

      let outcome: LoopOutcome;
      let reusable = false;
      try {
        outcome = await runAgentLoop(this.state, this.config, this.self, controller.signal);
        reusable = true;
      } catch (error) {
        // A bug, not a model or tool failure: report it as a failed agent instead of crashing the parent.
        outcome = {
          status: 'failed',
          reason: `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        };
      } finally {
        if (timer !== undefined) clock.clearTimeout(timer);
        if (onParentAbort) parentSignal?.removeEventListener('abort', onParentAbort);
        this.controller = undefined;
        if (reusable) giveBack(controller);
      }

      this.currentStatus = outcome.status;
      this.currentReason = outcome.reason;
      const endedAt = (this.endTime = clock.now());
      if (bus.wants('agent.end')) {
        const now = this.state.usage;
        const usage: Usage = {
          input: now.input - input,
          output: now.output - output,
          cacheRead: now.cacheRead - cacheRead,
          cacheWrite: now.cacheWrite - cacheWrite,
        };
        if (now.cost !== undefined) usage.cost = now.cost - (cost ?? 0);
        // The engine always listens to agent.end: built without spreads (see the constructor).
        const event: Extract<EventInput, { type: 'agent.end' }> = {
          type: 'agent.end',
          agentId: identity.id,
          role: identity.role,
          status: outcome.status,
          usage,
          turns: this.state.turns - turnsBefore,
          toolCalls: this.state.toolCalls - toolCallsBefore,
          durationMs: endedAt - started,
        };
        if (identity.parentId !== undefined) event.parentId = identity.parentId;
        if (identity.swarmId !== undefined) {
          event.swarmId = identity.swarmId;
          if (identity.item !== undefined) event.item = identity.item;
        }
        if (outcome.reason !== undefined) event.reason = outcome.reason;
        bus.emit(event);
      }
      const result: AgentRunResult = {
        status: outcome.status,
        text: this.state.lastText,
        usage: this.state.usage,
        outcome,
      };
      if (outcome.reason !== undefined) result.reason = outcome.reason;
      return result;
    } finally {
      this.running = undefined;
      this.ended = true;
      if (this.inbox.length > 0) this.onIdleMessage?.(this);
    }
  }

  private drain(): UserMessage[] {
    if (this.inbox.length === 0) return EMPTY;
    const out = this.inbox;
    this.inbox = [];
    return out;
  }
}

const EMPTY: UserMessage[] = [];

/**
 * Controllers of runs that ended normally, unaborted, with no listener left on their signal: the next run (of
 * any agent) takes one instead of making a signal. On Node 20 making an AbortSignal costs about 10 µs (it
 * re-prototypes a fresh EventTarget) and 1.4 KB, more than the rest of a short agent's loop. A finished run's
 * signal can no longer be aborted by anyone (the agent dropped its controller, its timer and its parent's
 * listener are gone), and nothing that listens to it is left, so nothing can tell it was handed on.
 */
const spareControllers: AbortController[] = [];
const MAX_SPARE_CONTROLLERS = 256;

function takeController(): AbortController {
  const spare = spareControllers.pop();
  if (spare) return spare;
  const controller = new AbortController();
  // Every parallel tool call and subagent listens on it: not a leak.
  setMaxListeners(0, controller.signal);
  return controller;
}

function giveBack(controller: AbortController): void {
  const signal = controller.signal;
  if (signal.aborted || spareControllers.length >= MAX_SPARE_CONTROLLERS) return;
  if (getEventListeners(signal, 'abort').length > 0) return;
  spareControllers.push(controller);
}
const NO_OPTIONS: AgentRunOptions = {};

function defaultParentStop(cause: unknown): StopRequest {
  return cause instanceof StopRequest ? cause : new StopRequest('aborted', 'parent aborted');
}

function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.round(ms / 6000) / 10} min`;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
