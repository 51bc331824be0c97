// The local launcher: runs each item as a subagent of this process through the scheduler — the worker's run,
// then verify rounds and the worktree merge — exactly as a swarm always ran.
import type { EventBus, EventInput } from '../orchestrator/events.js';
import type { AgentRecord, Scheduler } from '../orchestrator/scheduler.js';
import { runUntilSettled } from '../orchestrator/subagents.js';
import type { TaskRegistry } from '../orchestrator/tasks.js';
import type { AgentProfile } from '../roles/profile.js';
import { type Attempt, endsWithHandoff, rateLimited, type SwarmItemRecord } from './item-state.js';
import type { ItemHooks, ItemLauncher } from './launcher.js';
import type { ItemResult } from './report.js';
import { verifyRounds } from './verify.js';
import type { WorktreeIsolation } from './worktree.js';

export interface LocalLauncherSpec {
  swarmId: string;
  /** The swarm's items (shared with the runner: attempts record agent ids, rounds and verdicts in them). */
  items: SwarmItemRecord[];
  profile: AgentProfile;
  verifierProfile: AgentProfile;
  /** The agent that called agent_swarm; absent for `murmur swarm`. */
  parentId?: string;
  verify: boolean;
  maxRounds: number;
  /** Per attempt. */
  itemTimeoutMs: number;
  isolation?: WorktreeIsolation;
}

export interface LocalLauncherDeps {
  scheduler: Scheduler;
  /** Background work of the items' agents: an item's answer waits for it (see runUntilSettled). */
  tasks: TaskRegistry;
  bus: EventBus;
  cwd: string;
  /** Whether cwd is in a git repository (diffs for verifiers). */
  inRepo: boolean;
  /** The swarm's state changed (save the session). */
  save?: () => void;
}

export class LocalLauncher implements ItemLauncher {
  private readonly attempts = new Map<number, { stop: AbortController; done: Promise<Attempt> }>();

  constructor(
    readonly spec: LocalLauncherSpec,
    private readonly deps: LocalLauncherDeps,
  ) {}

  start(index: number, hooks: ItemHooks): void {
    const stop = new AbortController();
    const done = this.attempt(index, hooks, stop.signal).catch((error: unknown): Attempt => ({ kind: 'done', result: this.crashed(index, error) }));
    this.attempts.set(index, { stop, done });
  }

  async settle(index: number): Promise<Attempt> {
    const running = this.attempts.get(index);
    if (!running) return { kind: 'done', result: this.itemResult(index, this.recordOf(index), 'failed', 'internal error: the item was never started') };
    try {
      return await running.done;
    } finally {
      this.attempts.delete(index);
    }
  }

  stop(index: number): void {
    this.attempts.get(index)?.stop.abort();
  }

  /**
   * An isolated item that did not complete keeps its branch (and its worktree while that holds changes), and
   * the report says where; a failure here never loses the result.
   */
  async keep(index: number, result: ItemResult): Promise<ItemResult> {
    const isolation = this.spec.isolation;
    if (!isolation || result.outcome === 'completed' || result.outcome === 'conflict') return result;
    try {
      const kept = await isolation.keep(index);
      if (!kept) return result;
      const withWork: ItemResult = { ...result, branch: kept.branch };
      if (kept.worktree !== undefined) withWork.worktree = kept.worktree;
      return withWork;
    } catch {
      return result;
    }
  }

  save(): void {
    this.deps.save?.();
  }

  emit(event: EventInput): void {
    this.deps.bus.emit(event);
  }

  private spawn(index: number, profile: AgentProfile, description: string, workspaceRoot: string | undefined): AgentRecord | string {
    const s = this.spec.items[index]!;
    const spawned = this.deps.scheduler.spawn({
      profile,
      description,
      swarmId: this.spec.swarmId,
      item: s.item,
      ...(this.spec.parentId !== undefined ? { parentId: this.spec.parentId } : { detached: true }),
      ...(workspaceRoot !== undefined ? { workspaceRoot } : {}),
    });
    return spawned.ok ? spawned.record : spawned.error;
  }

  private recordOf(index: number): AgentRecord | undefined {
    const id = this.spec.items[index]!.agentId;
    return id !== undefined ? this.deps.scheduler.get(id) : undefined;
  }

  /** A bug in an attempt (not a model or tool failure) fails its item instead of hanging the swarm. */
  private crashed(index: number, error: unknown): ItemResult {
    return this.itemResult(index, this.recordOf(index), 'failed', `internal error: ${error instanceof Error ? error.message : String(error)}`);
  }

  private itemResult(index: number, record: AgentRecord | undefined, outcome: ItemResult['outcome'], reason?: string): ItemResult {
    const s = this.spec.items[index]!;
    const result: ItemResult = { index, item: s.item, outcome, rounds: s.rounds, text: record?.agent.state.lastText ?? '' };
    if (record) result.agentId = record.id;
    if (s.verdict) result.verdict = s.verdict;
    if (reason !== undefined) result.reason = reason;
    return result;
  }

  /** A rate limit, with what the agent had said so far (the report's text if the swarm stops meanwhile). */
  private limited(attempt: Attempt, record: AgentRecord): Attempt {
    return attempt.kind === 'rate_limited' ? { ...attempt, text: record.agent.state.lastText } : attempt;
  }

  /** One launch of an item: the worker's run, then verify rounds and the merge. */
  private async attempt(index: number, hooks: ItemHooks, signal: AbortSignal): Promise<Attempt> {
    const { scheduler } = this.deps;
    const s = this.spec.items[index]!;
    const timeoutMs = this.spec.itemTimeoutMs;
    let record = s.agentId !== undefined ? scheduler.get(s.agentId) : undefined;
    let prompt: string | undefined;
    let root: string | undefined;
    try {
      root = this.spec.isolation ? await this.spec.isolation.prepare(index) : undefined;
    } catch (error) {
      return { kind: 'done', result: this.itemResult(index, record, 'failed', (error as Error).message) };
    }
    if (!record) {
      const spawned = this.spawn(index, this.spec.profile, s.item, root);
      if (typeof spawned === 'string') return { kind: 'done', result: this.itemResult(index, undefined, 'failed', `not started: ${spawned}`) };
      record = spawned;
      s.agentId = record.id;
      prompt = s.prompt;
    } else if (s.resumePrompt !== undefined) {
      prompt = s.resumePrompt;
      delete s.resumePrompt;
    }
    hooks.emit('launched');
    hooks.changed();

    // A worker that was killed after its final answer but before the state said so has completed: it must
    // not run again (another model call after a handoff would redo or undo its work).
    if (prompt === undefined && record.agent.status === 'interrupted' && endsWithHandoff(record.agent.state.messages)) record.agent.status = 'completed';
    // A worker that already completed (resumed mid-verification) goes straight to its checks.
    if (record.agent.status !== 'completed' || prompt !== undefined) {
      const run = await runUntilSettled(scheduler, this.deps.tasks, record, prompt, signal, timeoutMs);
      const limited = rateLimited(run);
      if (limited) return this.limited(limited, record);
      if (run.status !== 'completed') return { kind: 'done', result: this.itemResult(index, record, run.status === 'aborted' ? 'aborted' : 'failed', run.reason ?? run.status) };
    }
    if (this.spec.verify) {
      const worker = record;
      const verified = await verifyRounds({
        scheduler,
        tasks: this.deps.tasks,
        record: s,
        worker,
        root: root ?? this.deps.cwd,
        inRepo: this.deps.inRepo || this.spec.isolation !== undefined,
        ...(this.spec.isolation ? { base: this.spec.isolation.base } : {}),
        maxRounds: this.spec.maxRounds,
        timeoutMs,
        signal,
        hooks,
        spawnVerifier: () => this.spawn(index, this.spec.verifierProfile, `verify ${s.item}`, root),
        verifierInProgress: () => {
          const found = s.verifierId !== undefined ? scheduler.get(s.verifierId) : undefined;
          return found && !found.agent.busy ? found : undefined;
        },
        result: (outcome, reason) => this.itemResult(index, worker, outcome, reason),
      });
      if (verified) return this.limited(verified, record);
    }
    if (this.spec.isolation) {
      const merged = await this.spec.isolation.mergeBack(index, s.item);
      if (merged.kind === 'conflict') {
        const result = this.itemResult(index, record, 'conflict', merged.reason);
        result.branch = merged.branch;
        return { kind: 'done', result };
      }
    }
    return { kind: 'done', result: this.itemResult(index, record, 'completed') };
  }
}
