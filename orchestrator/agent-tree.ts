// The agent tree (AgentTree): every agent of a run, its limits (depth, spawn cap, timeouts, budgets, model requests in flight),
// live usage roll-up, abort that reaches every descendant, and waking idle agents when messages arrive.
import type { AgentProfile } from '../roles/profile.js';
import { Agent, type AgentIdentity, type AgentLoopConfig, type AgentRunResult, type AgentRunOptions } from './agent.js';
import { StopRequest } from './loop.js';
import { type Clock, systemClock } from './clock.js';
import type { EventBus } from './events.js';
import { Semaphore, gateProvider } from './model-gate.js';
import type { ModelProvider, ModelResult } from './models/provider.js';
import { defaultRetryPolicy, withRetries, type RetryPolicy } from './models/retry.js';
import { AgentDirectory } from './agent-directory.js';
import { savedAgentOf, summaryOf, summaryOfSaved } from './agent-summary.js';
import type { SavedAgent } from '../protocol/run-state.js';
import {
  DEFAULT_LIMITS,
  type AgentRecord,
  type AgentTreeHooks,
  type AgentTreeLimits,
  type SpawnResult,
  type SpawnSpec,
} from './agent-tree-types.js';
import {
  addUsage,
  emptyUsage,
  totalTokens,
  type AgentStatus,
  type AgentSummary,
  type Usage,
  type UserMessage,
} from './types.js';

// The tree's vocabulary is importable from here too (the engine and the runtime read it through the tree).
export * from './agent-tree-types.js';

/** Makes an agent's loop config when the tree spawns it; the tree passes itself (subagents are spawned through it). */
export type AgentConfigurer = (record: AgentRecord, hooks: AgentTreeHooks, tree: AgentTree) => AgentLoopConfig;

export interface AgentTreeOptions {
  bus: EventBus;
  provider: ModelProvider;
  /** Providers for profiles that name another model. */
  providerFor?: (spec: string) => Promise<ModelProvider>;
  configure: AgentConfigurer;
  limits?: Partial<AgentTreeLimits>;
  retry?: RetryPolicy;
  clock?: Clock;
  random?: () => number;
  /** A model-request limit shared with other schedulers of the process (the MCP server runs one per request). */
  gate?: Semaphore;
  /** Called after agents start or end (the session's saved state). */
  onChange?: () => void;
  /** Where the tree keeps its agents (the engine makes it first, for the parts built before the tree); default: its own. */
  directory?: AgentDirectory;
}

const TERMINAL_BY_STOP = new Set<AgentStatus | 'idle'>(['aborted', 'timeout']);

export class AgentTree {
  readonly limits: AgentTreeLimits;
  readonly runUsage: Usage = emptyUsage();
  /** The run's agents, kept in the directory the engine built first (one store, read by its other parts too). */
  readonly records: AgentDirectory;
  private readonly gate: Semaphore;
  /** The run's clock: agent timeouts, retry waits and subagent deadlines read it. */
  readonly clock: Clock;
  private readonly models = new Map<string, ModelProvider | Promise<ModelProvider>>();
  private spawned = 0;
  private counter = 0;
  private running = 0;
  private readonly idleWaiters = new Set<() => void>();
  private stopped = false;
  private readonly onChange: (() => void) | undefined;

  constructor(private readonly options: AgentTreeOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.gate = options.gate ?? new Semaphore(this.limits.maxModelRequests);
    this.clock = options.clock ?? systemClock;
    this.onChange = options.onChange;
    this.records = options.directory ?? new AgentDirectory();
  }

  get(agentId: string): AgentRecord | undefined {
    return this.records.get(agentId);
  }

  /** A settled swarm item's agent leaves memory, keeping its saved row and its id (a busy one stays). */
  settle(agentId: string): void {
    const record = this.records.get(agentId);
    if (record && !record.agent.busy) this.records.settle(agentId, savedAgentOf(record));
  }

  /** A settled agent of an earlier process (a resume): only its row comes back. */
  restoreSettled(row: SavedAgent): void {
    this.records.restoreSettled(row);
  }

  /** The live agents (settled ones have left). */
  all(): AgentRecord[] {
    return [...this.records.values()];
  }

  /** Every agent as saved, settled ones included, in spawn order. */
  savedAgents(): SavedAgent[] {
    return [...this.records.entries()].map((entry) => ('row' in entry ? entry.row : savedAgentOf(entry.record)));
  }

  /** Every agent's summary, settled ones included, in spawn order. */
  summaries(): AgentSummary[] {
    return this.records.everyEntry().map((e) => ('row' in e ? summaryOfSaved(e.row) : summaryOf(e.record)));
  }

  /** Every agent's id, settled ones included. */
  ids(): Iterable<string> {
    return this.records.ids();
  }

  /** An agent's transcript was lost: a completed one (live or settled) counts as failed, with the reason. */
  markRecordLost(agentId: string, reason: string): void {
    const live = this.records.get(agentId);
    if (live) live.agent.markRecordLost(reason);
    else this.records.markRowLost(agentId, reason);
  }

  children(agentId: string): AgentRecord[] {
    return this.all().filter((r) => r.parentId === agentId);
  }

  get spawnedCount(): number {
    return this.spawned;
  }

  /** Model requests in flight and queued, across the process. */
  get modelLoad(): { inFlight: number; queued: number } {
    return { inFlight: this.gate.inUse, queued: this.gate.queued };
  }

  private pipeline(provider: ModelProvider): ModelProvider {
    const { bus } = this.options;
    return withRetries(
      gateProvider(provider, this.gate),
      this.options.retry ?? defaultRetryPolicy,
      (notice) => {
        const record = this.records.get(notice.agentId);
        bus.emit({
          type: 'model.retry',
          agentId: notice.agentId,
          attempt: notice.attempt,
          delayMs: notice.delayMs,
          reason: notice.error.message,
          ...(notice.error.status !== undefined ? { status: notice.error.status } : {}),
          ...(record?.swarmId !== undefined ? { swarmId: record.swarmId, item: record.item } : {}),
        });
      },
      this.clock,
      this.options.random,
    );
  }

  private modelFor(profile: AgentProfile): ModelProvider | Promise<ModelProvider> {
    const key = profile.model ?? '';
    let entry = this.models.get(key);
    if (!entry) {
      if (!profile.model || !this.options.providerFor) entry = this.pipeline(this.options.provider);
      else entry = this.options.providerFor(profile.model).then((p) => this.pipeline(p));
      this.models.set(key, entry);
    }
    return entry;
  }

  private nextId(): string {
    let id: string;
    do id = `a-${++this.counter}`;
    while (this.records.has(id));
    return id;
  }

  /** Creates an agent without starting it. Over a limit: an error value, nothing spawned. */
  spawn(spec: SpawnSpec): SpawnResult {
    if (this.stopped) return { ok: false, error: 'the run is stopping; no new agents start' };
    const parent = spec.parentId !== undefined ? this.records.get(spec.parentId) : undefined;
    if (spec.parentId !== undefined && !parent) return { ok: false, error: `unknown parent agent "${spec.parentId}"` };
    const depth = parent ? parent.depth + 1 : spec.detached ? 1 : 0;
    if (depth > this.limits.maxDepth) {
      const where = parent
        ? `${parent.id} is already ${parent.depth} level(s) below main`
        : 'this subagent would be 1 level below the run';
      return {
        ok: false,
        error: `nesting limit reached: ${where}, and at most ${this.limits.maxDepth} level(s) of subagents are allowed; do the work yourself`,
      };
    }
    const subagent = depth > 0;
    if (subagent && spec.id === undefined && this.spawned >= this.limits.maxAgents) {
      return {
        ok: false,
        error: `spawn cap reached: this run has already started ${this.spawned} subagents (limit ${this.limits.maxAgents})`,
      };
    }
    const { runBudgetTokens } = this.limits;
    if (
      subagent &&
      spec.id === undefined &&
      runBudgetTokens !== undefined &&
      totalTokens(this.runUsage) >= runBudgetTokens
    ) {
      return {
        ok: false,
        error: `the run's token budget is spent (${totalTokens(this.runUsage)} of ${runBudgetTokens} tokens)`,
      };
    }
    const id = spec.id ?? (subagent ? this.nextId() : 'main');
    if (this.records.has(id)) return { ok: false, error: `an agent with id "${id}" already exists` };
    if (subagent && spec.id === undefined) this.spawned++;

    const record = { id, profile: spec.profile, depth, totalUsage: emptyUsage() } as AgentRecord;
    if (spec.parentId !== undefined) record.parentId = spec.parentId;
    if (spec.description !== undefined) record.description = spec.description;
    if (spec.swarmId !== undefined) record.swarmId = spec.swarmId;
    if (spec.item !== undefined) record.item = spec.item;
    if (spec.attempt !== undefined) record.attempt = spec.attempt;
    if (spec.workspaceRoot !== undefined) record.workspaceRoot = spec.workspaceRoot;
    if (spec.callId !== undefined) record.callId = spec.callId;
    const hooks = this.hooksFor(record);
    // Filled field by field (no spreads: a swarm spawns thousands), then handed over read-only.
    const identity: { -readonly [K in keyof AgentIdentity]: AgentIdentity[K] } = { id, role: spec.profile.name };
    if (spec.parentId !== undefined) identity.parentId = spec.parentId;
    if (spec.description !== undefined) identity.description = spec.description;
    if (spec.swarmId !== undefined) identity.swarmId = spec.swarmId;
    if (spec.item !== undefined) identity.item = spec.item;
    if (spec.attempt !== undefined) identity.attempt = spec.attempt;
    if (spec.profile.model) identity.model = spec.profile.model;
    record.agent = new Agent(
      identity,
      this.options.configure(record, hooks, this),
      this.options.bus,
      spec.messages ?? [],
      this.clock,
      () => this.wake(record),
    );
    addUsage(record.totalUsage, record.agent.state.usage);
    this.records.register(record);
    this.onChange?.();
    return { ok: true, record };
  }

  private async resolveModel(record: AgentRecord): Promise<ModelProvider> {
    return this.modelFor(record.profile);
  }

  private hooksFor(record: AgentRecord): AgentTreeHooks {
    let model: ModelProvider | undefined;
    return {
      // Not async once the model is known: one promise layer less on every model call.
      callModel: (request, signal) => {
        if (model) return model.complete(request, signal);
        return this.resolveModel(record).then(
          (resolved) => {
            model = resolved;
            return resolved.complete(request, signal);
          },
          (error: Error): ModelResult => ({
            ok: false,
            error: { kind: 'bad_request', message: error.message, retryable: false },
          }),
        );
      },
      endpoint: () => model?.endpoint,
      budgetSpent: () => {
        const { agentBudgetTokens, runBudgetTokens } = this.limits;
        if (agentBudgetTokens !== undefined && totalTokens(record.agent.state.usage) >= agentBudgetTokens) return true;
        return runBudgetTokens !== undefined && totalTokens(this.runUsage) >= runBudgetTokens;
      },
      onUsage: (usage) => {
        addUsage(this.runUsage, usage);
        for (
          let r: AgentRecord | undefined = record;
          r;
          r = r.parentId !== undefined ? this.records.get(r.parentId) : undefined
        )
          addUsage(r.totalUsage, usage);
      },
      onMessage: noop,
    };
  }

  /**
   * Runs an agent until it ends. A parent signal (the caller's tool call) aborts it; the agent's own timeout
   * (profile, else the global default) ends only it, with status `timeout`.
   */
  async run(
    record: AgentRecord,
    prompt?: string | UserMessage,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<AgentRunResult> {
    const timeoutMs = options.timeoutMs ?? record.profile.timeoutMs ?? this.limits.agentTimeoutMs;
    this.running++;
    try {
      const runOptions: AgentRunOptions = { timeoutMs };
      if (options.signal) {
        runOptions.parentSignal = options.signal;
        runOptions.stopFromParent = (cause) => stopFromOutside(cause, record);
      }
      const pending = record.agent.run(prompt, runOptions);
      this.onChange?.();
      const result = await pending;
      // A stopped agent stops its subtree too (background children included).
      if (TERMINAL_BY_STOP.has(result.status)) this.abortChildren(record.id);
      return result;
    } finally {
      this.running--;
      this.onChange?.();
      if (this.running === 0) this.notifyIdle();
    }
  }

  /** Starts a run for an idle agent that received a message (a background result, a timer). */
  private wake(record: AgentRecord): void {
    if (this.stopped || record.held || record.agent.busy || TERMINAL_BY_STOP.has(record.agent.status)) return;
    // The root agent has no timeout unless its profile sets one (as when the run started it).
    const options = record.depth === 0 ? { timeoutMs: record.profile.timeoutMs ?? Number.POSITIVE_INFINITY } : {};
    void this.run(record, undefined, options).catch(() => undefined);
  }

  abortChildren(agentId: string): void {
    for (const child of this.children(agentId)) this.abort(child.id);
  }

  /** Aborts an agent and every descendant. */
  abort(agentId: string, status: 'aborted' | 'timeout' = 'aborted'): void {
    const record = this.records.get(agentId);
    if (!record) return;
    this.abortChildren(agentId);
    record.agent.abort(status);
  }

  /** Aborts every agent (`reason` becomes their reason); no new agent starts afterwards. */
  abortAll(reason = 'aborted'): void {
    this.stopped = true;
    for (const record of this.records.values()) record.agent.abort('aborted', reason);
  }

  get stopping(): boolean {
    return this.stopped;
  }

  get busyCount(): number {
    return this.running;
  }

  /** Resolves when no agent is running. */
  whenIdle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.add(resolve));
  }

  /** Calls `listener` the next time no agent runs; the returned function withdraws it. */
  onceIdle(listener: () => void): () => void {
    const once = () => {
      this.idleWaiters.delete(once);
      listener();
    };
    this.idleWaiters.add(once);
    return () => this.idleWaiters.delete(once);
  }

  private notifyIdle(): void {
    const waiters = [...this.idleWaiters];
    this.idleWaiters.clear();
    for (const wake of waiters) wake();
  }

  /** Continues the numbering of a resumed session. */
  seedIds(ids: readonly string[], spawned = 0): void {
    for (const id of ids) {
      const n = Number(id.replace(/^a-/, ''));
      if (Number.isInteger(n)) this.counter = Math.max(this.counter, n);
    }
    this.spawned = Math.max(this.spawned, spawned);
  }
}

function noop(): void {}

/**
 * The caller's stop as this agent sees it: whatever stopped the caller (its own timeout, an abort, task_stop)
 * ends this agent as `aborted`, with a reason naming the cause, never as a timeout of its own.
 */
function stopFromOutside(cause: unknown, record: AgentRecord): StopRequest {
  const who = record.parentId !== undefined ? `its parent ${record.parentId}` : 'its caller';
  let message: string;
  if (cause instanceof StopRequest) message = `${who} ${cause.status === 'timeout' ? 'timed out' : 'was aborted'}`;
  else if (cause instanceof Error && cause.name !== 'AbortError') message = cause.message;
  // The run's abort (Engine.abort): the reason its caller gave.
  else if (typeof cause === 'string' && cause !== 'aborted') message = cause;
  else message = `${who} was aborted`;
  return new StopRequest('aborted', message);
}
