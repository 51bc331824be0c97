// The swarm runner: the I/O shell around the controller. It launches items as agents through the scheduler,
// feeds their endings back (rate limits included), runs verify rounds and worktree merges, emits the events
// and keeps a state that a killed process can resume from.
import { setMaxListeners } from 'node:events';
import type { EventBus, SwarmItemState } from '../orchestrator/events.js';
import { type Clock, systemClock } from '../orchestrator/clock.js';
import type { AgentRecord, Scheduler } from '../orchestrator/scheduler.js';
import { runUntilSettled } from '../orchestrator/subagents.js';
import type { TaskRegistry } from '../orchestrator/tasks.js';
import type { AgentProfile } from '../roles/profile.js';
import { describeChanges } from './changes.js';
import { SwarmController, type ControllerAction } from './controller.js';
import { type Attempt, endsWithHandoff, rateLimited, type SavedSwarm, type SwarmItemRecord } from './item-state.js';
import type { ItemResult } from './report.js';
import type { SwarmSettings } from './settings.js';
import { parseVerdict, reworkPrompt, verifierPrompt } from './verify.js';
import type { WorktreeIsolation } from './worktree.js';

export { endsWithHandoff, type SavedSwarm, type SwarmItemRecord } from './item-state.js';

export interface SwarmRunSpec {
  swarmId: string;
  description: string;
  template?: string;
  items: SwarmItemRecord[];
  profile: AgentProfile;
  verifierProfile: AgentProfile;
  /** The agent that called agent_swarm; absent for `murmur swarm`. */
  parentId?: string;
  verify: boolean;
  maxRounds: number;
  isolation?: WorktreeIsolation;
  settings: SwarmSettings;
}

export interface SwarmDeps {
  scheduler: Scheduler;
  /** Background work of the items' agents: an item's answer waits for it (see runUntilSettled). */
  tasks: TaskRegistry;
  bus: EventBus;
  cwd: string;
  /** Whether cwd is in a git repository (diffs for verifiers). */
  inRepo: boolean;
  clock?: Clock;
  /** The swarm's state changed (save the session). */
  onChange?: () => void;
  onProgress?: (text: string) => void;
}

export class SwarmRun {
  /** Progress lines for the calling tool (streamed as tool updates). */
  onProgress: ((text: string) => void) | undefined;
  private readonly clock: Clock;
  private readonly started: number;
  private finishedCount = 0;
  private finishedBefore = 0;

  constructor(
    readonly spec: SwarmRunSpec,
    private readonly deps: SwarmDeps,
  ) {
    this.clock = deps.clock ?? systemClock;
    this.started = this.clock.now();
  }

  state(): SavedSwarm {
    const saved: SavedSwarm = {
      swarmId: this.spec.swarmId,
      description: this.spec.description,
      role: this.spec.profile.name,
      verify: this.spec.verify,
      maxRounds: this.spec.maxRounds,
      isolation: this.spec.isolation ? 'worktree' : 'none',
      items: this.spec.items,
    };
    if (this.spec.template !== undefined) saved.template = this.spec.template;
    if (this.spec.settings.controller.maxConcurrency !== undefined) saved.maxConcurrency = this.spec.settings.controller.maxConcurrency;
    return saved;
  }

  results(): ItemResult[] {
    return this.spec.items.map((s, index) => s.result ?? { index, item: s.item, outcome: 'aborted', rounds: s.rounds, text: '', notStarted: true, ...(s.agentId ? { agentId: s.agentId } : {}) });
  }

  private emitItem(index: number, state: SwarmItemState, extra: Record<string, unknown> = {}): void {
    const s = this.spec.items[index]!;
    this.deps.bus.emit({ type: 'swarm.item', swarmId: this.spec.swarmId, item: s.item, index, state, ...(s.agentId ? { agentId: s.agentId } : {}), ...extra });
  }

  async run(signal: AbortSignal): Promise<ItemResult[]> {
    // Every running item listens on the swarm's signal.
    setMaxListeners(0, signal);
    const { bus } = this.deps;
    const { spec } = this;
    const pending = spec.items.map((s, i) => (s.result ? -1 : i)).filter((i) => i >= 0);
    this.finishedBefore = spec.items.length - pending.length;
    bus.emit({
      type: 'swarm.start',
      swarmId: spec.swarmId,
      description: spec.description,
      role: spec.profile.name,
      items: spec.items.map((s) => s.item),
      ...(spec.parentId !== undefined ? { parentId: spec.parentId } : {}),
      ...(spec.settings.controller.maxConcurrency !== undefined ? { maxConcurrency: spec.settings.controller.maxConcurrency } : {}),
    });
    for (let i = 0; i < spec.items.length; i++) {
      const done = spec.items[i]!.result;
      if (done) this.emitItem(i, done.outcome, { reason: 'finished before the resume' });
      else this.emitItem(i, 'queued');
    }
    if (pending.length > 0) await this.drive(pending, signal);
    const results = this.results();
    const counts: Record<string, number> = {};
    for (const r of results) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
    bus.emit({ type: 'swarm.end', swarmId: spec.swarmId, counts, durationMs: this.clock.now() - this.started });
    return results;
  }

  private drive(pending: number[], signal: AbortSignal): Promise<void> {
    const controller = new SwarmController(pending.length, this.spec.settings.controller);
    const clock = this.clock;
    let timer: unknown;
    let inFlight = 0;
    return new Promise<void>((resolve) => {
      const settleIfDone = () => {
        if (controller.done && inFlight === 0) {
          if (timer !== undefined) clock.clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve();
        }
      };
      /** Ends an item that is not in flight once its worktree is looked after; the swarm waits for it. */
      const finishKeepingWork = (index: number, result: ItemResult) => {
        inFlight++;
        void this.keepWork(index, result).then((kept) => {
          inFlight--;
          this.finish(index, kept);
          settleIfDone();
        });
      };
      const schedule = () => {
        if (timer !== undefined) clock.clearTimeout(timer);
        timer = undefined;
        const at = controller.nextWakeAt();
        if (at !== undefined) timer = clock.setTimeout(() => apply(controller.tick(clock.now())), Math.max(0, at - clock.now()));
      };
      const apply = (actions: ControllerAction[]) => {
        for (const action of actions) {
          const index = action.type === 'capacity' ? -1 : pending[action.index]!;
          switch (action.type) {
            case 'launch':
              inFlight++;
              void this.attempt(index, signal)
                .catch((error: unknown): Attempt => ({ kind: 'done', result: this.crashed(index, error) }))
                .then(async (outcome): Promise<Attempt> => {
                  if (outcome.kind === 'rate_limited' && !signal.aborted) return outcome;
                  // Stopping: a limited item is not queued again, it ends like every other started item.
                  const result =
                    outcome.kind === 'done' ? outcome.result : this.itemResult(index, this.recordOf(index), 'aborted', 'the swarm was aborted while the item waited out a rate limit');
                  return { kind: 'done', result: await this.keepWork(index, result) };
                })
                .then((outcome) => {
                  inFlight--;
                  if (outcome.kind === 'rate_limited') apply(controller.rateLimited(action.index, clock.now(), outcome.retryAfterMs));
                  else {
                    this.finish(index, outcome.result);
                    apply(controller.finished(action.index, clock.now()));
                  }
                });
              break;
            case 'rate_limited':
              this.emitItem(index, 'rate_limited', {
                reason: `rate limited after the provider's retries (attempt ${action.attempt}); back in the queue in ${Math.round((action.retryAt - clock.now()) / 100) / 10} s`,
                capacity: action.capacity,
                running: action.running,
              });
              break;
            case 'give_up': {
              const s = this.spec.items[index]!;
              finishKeepingWork(index, { index, item: s.item, outcome: 'failed', rounds: s.rounds, text: '', reason: action.reason, ...(s.agentId ? { agentId: s.agentId } : {}) });
              break;
            }
            case 'capacity':
              this.deps.bus.emit({ type: 'swarm.capacity', swarmId: this.spec.swarmId, capacity: action.capacity, running: action.running, limited: action.limited });
              break;
          }
        }
        schedule();
        settleIfDone();
      };
      const onAbort = () => {
        for (const ctlIndex of controller.abort()) {
          const index = pending[ctlIndex]!;
          const s = this.spec.items[index]!;
          const result: ItemResult = { index, item: s.item, outcome: 'aborted', rounds: s.rounds, text: '', reason: 'aborted before it started' };
          if (s.agentId) {
            // Waiting out a rate limit: it has worked already, maybe in a worktree.
            result.agentId = s.agentId;
            finishKeepingWork(index, result);
          } else {
            result.notStarted = true;
            this.finish(index, result);
          }
        }
        schedule();
        settleIfDone();
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      apply(controller.start(clock.now()));
    });
  }

  /**
   * An isolated item that did not complete keeps its branch (and its worktree while that holds changes), and
   * the report says where; a failure here never loses the result.
   */
  private async keepWork(index: number, result: ItemResult): Promise<ItemResult> {
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

  private finish(index: number, result: ItemResult): void {
    const s = this.spec.items[index]!;
    if (!s.result) this.finishedCount++;
    s.result = result;
    const extra: Record<string, unknown> = { rounds: result.rounds };
    if (result.verdict) extra.verdict = result.verdict;
    if (result.reason) extra.reason = result.notStarted ? 'not_started' : result.reason;
    this.emitItem(index, result.outcome, extra);
    this.deps.onChange?.();
    const progress = this.onProgress ?? this.deps.onProgress;
    if (progress) {
      progress(`${this.finishedCount + this.finishedBefore}/${this.spec.items.length} items done (last: ${s.item} ${result.outcome})`);
    }
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

  /** One launch of an item: the worker's run, then verify rounds and the merge. */
  private async attempt(index: number, signal: AbortSignal): Promise<Attempt> {
    const { scheduler } = this.deps;
    const s = this.spec.items[index]!;
    const timeoutMs = this.spec.settings.itemTimeoutMs;
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
    this.emitItem(index, 'launched');
    this.deps.onChange?.();

    // A worker that was killed after its final answer but before the state said so has completed: it must
    // not run again (another model call after a handoff would redo or undo its work).
    if (prompt === undefined && record.agent.status === 'interrupted' && endsWithHandoff(record.agent.state.messages)) record.agent.status = 'completed';
    // A worker that already completed (resumed mid-verification) goes straight to its checks.
    if (record.agent.status !== 'completed' || prompt !== undefined) {
      const run = await runUntilSettled(scheduler, this.deps.tasks, record, prompt, signal, timeoutMs);
      const limited = rateLimited(run);
      if (limited) return limited;
      if (run.status !== 'completed') return { kind: 'done', result: this.itemResult(index, record, run.status === 'aborted' ? 'aborted' : 'failed', run.reason ?? run.status) };
    }
    if (this.spec.verify) {
      const verified = await this.verifyRounds(index, record, root ?? this.deps.cwd, signal, timeoutMs);
      if (verified) return verified;
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

  /**
   * Runs verify rounds; returns the attempt's end when the item did not pass (a fail, or a rate limit that puts
   * it back in the queue), undefined when it passed. A round cut short goes on with its own verifier next time.
   */
  private async verifyRounds(index: number, worker: AgentRecord, root: string, signal: AbortSignal, timeoutMs: number): Promise<Attempt | undefined> {
    const { scheduler } = this.deps;
    const s = this.spec.items[index]!;
    const inRepo = this.deps.inRepo || this.spec.isolation !== undefined;
    const failed = (outcome: ItemResult['outcome'], reason: string): Attempt => ({ kind: 'done', result: this.itemResult(index, worker, outcome, reason) });
    while (s.verdict !== 'pass') {
      if (s.rounds >= this.spec.maxRounds) return failed('failed', `failed verification after ${s.rounds} round(s)`);
      // A round counts once its verdict is in: a round cut short by a crash runs again on resume.
      const round = s.rounds + 1;
      this.emitItem(index, 'verifying', { rounds: round });
      let verifier = this.verifierOf(index);
      let prompt: string | undefined;
      // A new round, or one whose verifier never got its task (a crash right after it was created).
      if (!verifier || verifier.agent.state.messages.length === 0) {
        const changes = await describeChanges(worker.agent.state.messages, root, inRepo, this.spec.isolation?.base);
        if (!verifier) {
          const spawned = this.spawn(index, this.spec.verifierProfile, `verify ${s.item}`, root);
          if (typeof spawned === 'string') return failed('failed', `no verifier started: ${spawned}`);
          verifier = spawned;
          s.verifierId = verifier.id;
          this.deps.onChange?.();
        }
        prompt = verifierPrompt({ item: s.item, task: s.prompt ?? s.item, handoff: worker.agent.state.lastText, changes, round });
      }
      // A verifier that had answered before a crash is not asked again.
      const answered = prompt === undefined && verifier.agent.status !== 'failed' && endsWithHandoff(verifier.agent.state.messages);
      let text = verifier.agent.state.lastText;
      if (!answered) {
        const check = await runUntilSettled(scheduler, this.deps.tasks, verifier, prompt, signal, timeoutMs);
        const limited = rateLimited(check);
        if (limited) return limited;
        if (check.status !== 'completed') {
          return failed(check.status === 'aborted' ? 'aborted' : 'failed', `the verifier ended ${check.status}${check.reason ? `: ${check.reason}` : ''}`);
        }
        text = check.text;
      }
      const verdict = parseVerdict(text);
      s.rounds = round;
      s.verdict = verdict.verdict;
      delete s.verifierId;
      if (verdict.verdict === 'fail') s.reasons = verdict.reasons;
      else delete s.reasons;
      // The item's event names its worker (whose row shows the verdict); the verifier rides along.
      const extra: Record<string, unknown> = { verdict: verdict.verdict, rounds: s.rounds, verifierId: verifier.id };
      if (verdict.verdict === 'fail' && verdict.reasons) extra.reason = verdict.reasons.slice(0, 300);
      this.emitItem(index, 'verifying', extra);
      this.deps.onChange?.();
      if (verdict.verdict === 'pass') return undefined;
      if (s.rounds >= this.spec.maxRounds) return failed('failed', `failed verification after ${s.rounds} round(s): ${verdict.reasons.slice(0, 300)}`);
      const rework = await runUntilSettled(scheduler, this.deps.tasks, worker, reworkPrompt(verdict.reasons, s.rounds), signal, timeoutMs);
      // Limited mid-rework: back in the queue; the next attempt continues the worker, then verifies anew.
      const limited = rateLimited(rework);
      if (limited) return limited;
      if (rework.status !== 'completed') return failed(rework.status === 'aborted' ? 'aborted' : 'failed', rework.reason ?? rework.status);
    }
    return undefined;
  }

  /** The verifier of the item's round in progress, when it can go on. */
  private verifierOf(index: number): AgentRecord | undefined {
    const id = this.spec.items[index]!.verifierId;
    const record = id !== undefined ? this.deps.scheduler.get(id) : undefined;
    if (!record || record.agent.busy) return undefined;
    return record;
  }
}
