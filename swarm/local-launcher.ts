// The local launcher: runs each item as an agent of this process through the host's agents — the worker's run,
// then verify rounds and the worktree merge — exactly as a swarm always ran. It reports each step to the runner
// and keeps its own copy of the item, moved by the same mutator.
import type { AgentProfile } from '../roles/profile.js';
import { finalAnswerOf } from '../orchestrator/final-answer.js';
import { advanceItem, type AttemptProgress, type LaunchableItem, type SwarmItem } from './item-state.js';
import { type Attempt, endsWithHandoff, type ItemLauncher, rateLimited } from './item-launcher.js';
import type { ItemResult } from './report.js';
import type { SwarmAgent, SwarmAgents } from './swarm-agents.js';
import { verifyRounds } from './verify.js';
import { filesTouchedByTools } from './touched-files.js';
import type { WorktreeIsolation } from './worktree.js';

export interface LocalLauncherSpec {
  swarmId: string;
  profile: AgentProfile;
  verifierProfile: AgentProfile;
  /** The agent that called agent_swarm; absent for `murmur swarm`. */
  parentId?: string;
  verify: boolean;
  maxRounds: number;
  /** Per attempt. */
  itemTimeoutMs: number;
  isolation?: WorktreeIsolation;
  /** The items' agents run sandboxed: an isolated item is checked after its agent (item-seal.ts). */
  sandboxed?: boolean;
}

export interface LocalLauncherDeps {
  /** The run's agents: items' workers and verifiers are started and run through them. */
  agents: SwarmAgents;
  cwd: string;
  /** Whether cwd is in a git repository (diffs for verifiers). */
  inRepo: boolean;
  /** A folder that is this launcher's alone (a queue worker's item tree): verifiers' changes there are put back. */
  ownTree?: string;
  /** A log line for the person watching. */
  warn?(message: string): void;
}

/** One attempt's copy of its item: reports go to the runner and move this copy the same way. */
class AttemptItem {
  constructor(
    private current: SwarmItem,
    private readonly report: (report: AttemptProgress) => void,
  ) {}

  get item(): SwarmItem {
    return this.current;
  }

  tell(report: AttemptProgress): void {
    this.current = advanceItem(this.current, report);
    this.report(report);
  }
}

export class LocalLauncher implements ItemLauncher {
  constructor(
    readonly spec: LocalLauncherSpec,
    private readonly deps: LocalLauncherDeps,
  ) {}

  settled(_index: number, result: ItemResult): void {
    if (result.agentId !== undefined) this.deps.agents.release?.(result.agentId);
  }

  async run(
    index: number,
    item: LaunchableItem,
    report: (report: AttemptProgress) => void,
    signal: AbortSignal,
  ): Promise<Attempt> {
    const s = new AttemptItem(item, report);
    try {
      return await this.attempt(index, s, signal);
    } catch (error) {
      // A bug in an attempt (not a model or tool failure) fails its item instead of hanging the swarm.
      const agentId = s.item.agentId;
      const agent = agentId !== undefined ? this.deps.agents.agent(agentId) : undefined;
      return {
        kind: 'done',
        result: this.itemResult(
          index,
          s.item,
          agent,
          'failed',
          `internal error: ${error instanceof Error ? error.message : String(error)}`,
        ),
      };
    }
  }

  /** The swarm has ended: the pool's free worktrees go (items that kept theirs keep them). */
  async finish(): Promise<void> {
    await this.spec.isolation?.close();
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

  private spawn(
    item: string,
    profile: AgentProfile,
    description: string,
    workspaceRoot: string | undefined,
    attempt?: number,
  ): SwarmAgent | string {
    return this.deps.agents.spawn({
      profile,
      description,
      swarmId: this.spec.swarmId,
      item,
      ...(attempt !== undefined ? { attempt } : {}),
      ...(this.spec.parentId !== undefined ? { parentId: this.spec.parentId } : {}),
      ...(workspaceRoot !== undefined ? { workspaceRoot } : {}),
    });
  }

  private itemResult(
    index: number,
    s: SwarmItem,
    agent: SwarmAgent | undefined,
    outcome: ItemResult['outcome'],
    reason?: string,
  ): ItemResult {
    const result: ItemResult = { index, item: s.item, outcome, rounds: s.rounds, text: agent?.lastText ?? '' };
    if (agent) result.agentId = agent.id;
    const answer = agent && this.spec.profile.output ? finalAnswerOf(agent.messages) : undefined;
    if (answer) result.output = answer.value;
    if (s.verdict) result.verdict = s.verdict;
    if (reason !== undefined) result.reason = reason;
    return result;
  }

  /** A rate limit, with what the agent had said so far (the report's text if the swarm stops meanwhile). */
  private limited(attempt: Attempt, agent: SwarmAgent): Attempt {
    return attempt.kind === 'rate_limited' ? { ...attempt, text: agent.lastText } : attempt;
  }

  /**
   * A sandboxed item whose agent changed the repository's protected git files or a ref beyond its own branch is
   * not merged: it fails naming them, and its branch is kept under a new name for a person to inspect.
   */
  private async rejectIfUnsealed(index: number, s: SwarmItem, agent: SwarmAgent): Promise<Attempt | undefined> {
    const isolation = this.spec.isolation;
    if (!isolation || !this.spec.sandboxed) return undefined;
    const broken = await isolation.sealBroken(index);
    if (broken.length === 0) return undefined;
    const kept = await isolation.reject(index);
    const reason =
      `not merged: while it ran, ${broken.join(', ')} changed, which an item may not touch (protected git files, ` +
      `refs other than its own branch); its work is kept on branch ${kept} for a person to inspect, and a resume starts it again from a fresh worktree`;
    this.deps.warn?.(`item ${s.item}: ${reason}`);
    const result = this.itemResult(index, s, agent, 'failed', reason);
    result.branch = kept;
    return { kind: 'done', result };
  }

  /** One launch of an item: the worker's run, then verify rounds and the merge. */
  private async attempt(index: number, s: AttemptItem, signal: AbortSignal): Promise<Attempt> {
    const { agents } = this.deps;
    const start = s.item;
    const timeoutMs = this.spec.itemTimeoutMs;
    let agent = start.agentId !== undefined ? agents.agent(start.agentId) : undefined;
    let prompt: string | undefined;
    let root: string | undefined;
    try {
      // A new agent starts from a clean worktree; a continuing one goes on in its own.
      const isolation = this.spec.isolation;
      root = isolation ? await (agent ? isolation.prepare(index) : isolation.prepareFresh(index, signal)) : undefined;
      if (isolation && this.spec.sandboxed) await isolation.seal(index);
    } catch (error) {
      // Stopped while it waited for a free worktree: it never started.
      const outcome = signal.aborted ? 'aborted' : 'failed';
      const reason = signal.aborted ? 'aborted before it started' : (error as Error).message;
      return { kind: 'done', result: this.itemResult(index, s.item, agent, outcome, reason) };
    }
    if (!agent) {
      const spawned = this.spawn(start.item, this.spec.profile, start.item, root, start.attempt);
      if (typeof spawned === 'string')
        return { kind: 'done', result: this.itemResult(index, s.item, undefined, 'failed', `not started: ${spawned}`) };
      agent = spawned;
      prompt = start.prompt;
    } else if (start.status === 'queued' && start.resumePrompt !== undefined) {
      prompt = start.resumePrompt;
    }
    s.tell({ kind: 'launched', agentId: agent.id });

    // A worker that was killed after its final answer but before the state said so has completed: it must
    // not run again (another model call after a handoff would redo or undo its work).
    if (prompt === undefined && agent.status === 'interrupted' && endsWithHandoff(agent.messages))
      agents.acceptHandoff(agent.id);
    // A worker that already completed (resumed mid-verification) goes straight to its checks.
    if (agent.status !== 'completed' || prompt !== undefined) {
      const run = await agents.run(agent.id, prompt, signal, timeoutMs);
      const limited = rateLimited(run);
      if (limited) return this.limited(limited, agent);
      if (run.status !== 'completed')
        return {
          kind: 'done',
          result: this.itemResult(
            index,
            s.item,
            agent,
            run.status === 'aborted' || run.status === 'waiting' ? run.status : 'failed',
            run.reason ?? run.status,
          ),
        };
    }
    if (this.spec.verify) {
      const worker = agent;
      const verified = await verifyRounds({
        agents,
        item: () => s.item,
        tell: (report) => s.tell(report),
        worker,
        root: root ?? this.deps.cwd,
        inRepo: this.deps.inRepo || this.spec.isolation !== undefined,
        ...(this.spec.isolation ? { base: this.spec.isolation.base } : {}),
        maxRounds: this.spec.maxRounds,
        timeoutMs,
        signal,
        ...(this.spec.isolation
          ? { worktree: await this.spec.isolation.wholePath(index) }
          : this.deps.ownTree !== undefined
            ? { worktree: this.deps.ownTree }
            : {}),
        ...(this.deps.warn ? { warn: this.deps.warn } : {}),
        spawnVerifier: () =>
          this.spawn(start.item, this.spec.verifierProfile, `verify ${start.item}`, root, start.attempt),
        result: (outcome, reason) => this.itemResult(index, s.item, worker, outcome, reason),
      });
      if (verified) return this.limited(verified, agent);
    }
    if (this.spec.isolation) {
      const rejected = await this.rejectIfUnsealed(index, s.item, agent);
      if (rejected) return rejected;
      // Without verifiers (whose shells may touch anything) a worker that used file tools only says what it changed.
      const touched = this.spec.verify || root === undefined ? undefined : filesTouchedByTools(agent.messages, root);
      const merged =
        (touched && (await this.spec.isolation.mergeTouched(index, touched))) ??
        (await this.spec.isolation.mergeBack(index, start.item));
      if (merged.kind === 'conflict') {
        const result = this.itemResult(index, s.item, agent, 'conflict', merged.reason);
        result.branch = merged.branch;
        return { kind: 'done', result };
      }
    }
    return { kind: 'done', result: this.itemResult(index, s.item, agent, 'completed') };
  }
}
