// The swarm runner: the shell around the controller. It hands items to a launcher when the controller says so,
// feeds their endings back (rate limits included), emits the events and keeps a state that a killed process
// can resume from. It knows only the launcher port and a clock: the local launcher runs items here, the queue
// launcher on other machines.
import { setMaxListeners } from 'node:events';
import type { SwarmItemState } from '../orchestrator/events.js';
import { type Clock, systemClock } from '../orchestrator/clock.js';
import { SwarmController, type ControllerAction } from './controller.js';
import type { Attempt, SavedSwarm, SwarmItemRecord } from './item-state.js';
import type { ItemHooks, ItemLauncher } from './launcher.js';
import type { ItemResult } from './report.js';
import type { SwarmSettings } from './settings.js';

export { endsWithHandoff, type SavedSwarm, type SwarmItemRecord } from './item-state.js';

export interface SwarmRunSpec {
  swarmId: string;
  description: string;
  template?: string;
  items: SwarmItemRecord[];
  /** The role or defined agent every item runs as. */
  role: string;
  /** The agent that called agent_swarm; absent for `murmur swarm`. */
  parentId?: string;
  verify: boolean;
  maxRounds: number;
  isolation: 'none' | 'worktree';
  settings: SwarmSettings;
  /** Saved with the state: what a resume needs beyond the items (the queue's URL and the base commit, say). */
  extra?: Record<string, unknown>;
}

export class SwarmRun {
  /** Progress lines for the calling tool (streamed as tool updates). */
  onProgress: ((text: string) => void) | undefined;
  private readonly started: number;
  private finishedCount = 0;
  private finishedBefore = 0;

  constructor(
    readonly spec: SwarmRunSpec,
    readonly launcher: ItemLauncher,
    private readonly clock: Clock = systemClock,
  ) {
    this.started = this.clock.now();
  }

  state(): SavedSwarm {
    const saved: SavedSwarm = {
      swarmId: this.spec.swarmId,
      description: this.spec.description,
      role: this.spec.role,
      verify: this.spec.verify,
      maxRounds: this.spec.maxRounds,
      isolation: this.spec.isolation,
      items: this.spec.items,
      ...this.spec.extra,
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
    this.launcher.emit({ type: 'swarm.item', swarmId: this.spec.swarmId, item: s.item, index, state, ...(s.agentId ? { agentId: s.agentId } : {}), ...extra });
  }

  private save(): void {
    this.launcher.save(this.state());
  }

  async run(signal: AbortSignal): Promise<ItemResult[]> {
    // Every running item listens on the swarm's signal.
    setMaxListeners(0, signal);
    const { spec } = this;
    const pending = spec.items.map((s, i) => (s.result ? -1 : i)).filter((i) => i >= 0);
    this.finishedBefore = spec.items.length - pending.length;
    this.launcher.emit({
      type: 'swarm.start',
      swarmId: spec.swarmId,
      description: spec.description,
      role: spec.role,
      items: spec.items.map((s) => s.item),
      ...(spec.parentId !== undefined ? { parentId: spec.parentId } : {}),
      ...(spec.settings.controller.maxConcurrency !== undefined ? { maxConcurrency: spec.settings.controller.maxConcurrency } : {}),
    });
    for (let i = 0; i < spec.items.length; i++) {
      const done = spec.items[i]!.result;
      if (done) this.emitItem(i, done.outcome, { reason: 'finished before the resume' });
      else this.emitItem(i, 'queued');
    }
    try {
      if (pending.length > 0) await this.drive(pending, signal);
      const results = this.results();
      const counts: Record<string, number> = {};
      for (const r of results) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
      this.launcher.emit({ type: 'swarm.end', swarmId: spec.swarmId, counts, durationMs: this.clock.now() - this.started });
      return results;
    } finally {
      // Whatever happened, the launcher lets go of what it holds (a queue's connections, say).
      await this.launcher.finish?.(this.results());
    }
  }

  private hooksFor(index: number): ItemHooks {
    return { emit: (state, extra) => this.emitItem(index, state, extra), changed: () => this.save() };
  }

  private drive(pending: number[], signal: AbortSignal): Promise<void> {
    const controller = new SwarmController(pending.length, this.spec.settings.controller);
    const { clock, launcher } = this;
    let timer: unknown;
    let inFlight = 0;
    /** Items whose attempt runs now: they are stopped when the swarm is. */
    const running = new Set<number>();
    return new Promise<void>((resolve) => {
      const settleIfDone = () => {
        if (controller.done && inFlight === 0) {
          if (timer !== undefined) clock.clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve();
        }
      };
      // Launchers with a commit step end items in item order: `cursor` is the first item without a result,
      // and an attempt that ended waits in `toCommit` until the cursor reaches it (counted in flight meanwhile).
      let cursor = 0;
      let committing = false;
      const toCommit = new Map<number, ItemResult>();
      const pump = () => {
        if (committing) return;
        const items = this.spec.items;
        while (cursor < items.length && items[cursor]!.result) cursor++;
        const result = toCommit.get(cursor);
        if (!result) return;
        toCommit.delete(cursor);
        committing = true;
        const index = cursor;
        void this.commit(index, result).then((final) => {
          committing = false;
          inFlight--;
          end(index, final);
          settleIfDone();
        });
      };
      const end = (index: number, result: ItemResult) => {
        this.finish(index, result);
        pump();
      };
      /** Ends an item that is not in flight once its work is looked after; the swarm waits for it. */
      const finishKeepingWork = (index: number, result: ItemResult) => {
        inFlight++;
        void this.keepWork(index, result).then((kept) => {
          inFlight--;
          end(index, kept);
          settleIfDone();
        });
      };
      const schedule = () => {
        if (timer !== undefined) clock.clearTimeout(timer);
        timer = undefined;
        const at = controller.nextWakeAt();
        if (at !== undefined) timer = clock.setTimeout(() => apply(controller.tick(clock.now())), Math.max(0, at - clock.now()));
      };
      const launch = (ctlIndex: number) => {
        const index = pending[ctlIndex]!;
        inFlight++;
        running.add(index);
        let refused: { error: unknown } | undefined;
        try {
          launcher.start(index, this.hooksFor(index));
        } catch (error) {
          refused = { error };
        }
        void (refused ? Promise.reject(refused.error) : Promise.resolve().then(() => launcher.settle(index)))
          .catch((error: unknown): Attempt => ({ kind: 'done', result: this.crashed(index, error) }))
          .then(async (outcome): Promise<Attempt> => {
            running.delete(index);
            if (outcome.kind === 'rate_limited' && !signal.aborted) return outcome;
            // Stopping: a limited item is not queued again, it ends like every other started item.
            const result =
              outcome.kind === 'done' ? outcome.result : this.aborted(index, outcome.text ?? '', 'the swarm was aborted while the item waited out a rate limit');
            return { kind: 'done', result: await this.keepWork(index, result) };
          })
          .then((outcome) => {
            if (outcome.kind === 'rate_limited') {
              inFlight--;
              apply(controller.rateLimited(ctlIndex, clock.now(), outcome.retryAfterMs));
            } else if (launcher.commit) {
              // Its capacity frees now; its end waits for every earlier item's (still counted in flight).
              toCommit.set(index, outcome.result);
              pump();
              apply(controller.finished(ctlIndex, clock.now()));
            } else {
              inFlight--;
              end(index, outcome.result);
              apply(controller.finished(ctlIndex, clock.now()));
            }
          });
      };
      const apply = (actions: ControllerAction[]) => {
        for (const action of actions) {
          const index = action.type === 'capacity' ? -1 : pending[action.index]!;
          switch (action.type) {
            case 'launch':
              launch(action.index);
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
              launcher.emit({ type: 'swarm.capacity', swarmId: this.spec.swarmId, capacity: action.capacity, running: action.running, limited: action.limited });
              break;
          }
        }
        schedule();
        settleIfDone();
      };
      const onAbort = () => {
        for (const index of running) launcher.stop(index);
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
            end(index, result);
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

  /** What an item that did not complete leaves is kept; a failure here never loses the result. */
  private async keepWork(index: number, result: ItemResult): Promise<ItemResult> {
    try {
      return await this.launcher.keep(index, result);
    } catch {
      return result;
    }
  }

  /** The launcher's last step for an ended item; a failure there fails the item instead of hanging the swarm. */
  private async commit(index: number, result: ItemResult): Promise<ItemResult> {
    try {
      return (await this.launcher.commit?.(index, result)) ?? result;
    } catch (error) {
      return { ...result, outcome: 'failed', reason: `internal error while taking in its changes: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  private finish(index: number, result: ItemResult): void {
    const s = this.spec.items[index]!;
    if (!s.result) this.finishedCount++;
    s.result = result;
    // Same step as the result, before the save: a state never holds an item neither ended nor attached.
    this.launcher.ended?.(index, result);
    const extra: Record<string, unknown> = { rounds: result.rounds };
    if (result.verdict) extra.verdict = result.verdict;
    if (result.reason) extra.reason = result.notStarted ? 'not_started' : result.reason;
    if (result.host) extra.host = result.host;
    if (result.model) extra.model = result.model;
    this.emitItem(index, result.outcome, extra);
    this.save();
    this.onProgress?.(`${this.finishedCount + this.finishedBefore}/${this.spec.items.length} items done (last: ${s.item} ${result.outcome})`);
  }

  private aborted(index: number, text: string, reason: string): ItemResult {
    const s = this.spec.items[index]!;
    const result: ItemResult = { index, item: s.item, outcome: 'aborted', rounds: s.rounds, text, reason };
    if (s.agentId) result.agentId = s.agentId;
    if (s.verdict) result.verdict = s.verdict;
    return result;
  }

  /** A bug in a launcher (not a model or tool failure) fails its item instead of hanging the swarm. */
  private crashed(index: number, error: unknown): ItemResult {
    const s = this.spec.items[index]!;
    const result: ItemResult = { index, item: s.item, outcome: 'failed', rounds: s.rounds, text: '', reason: `internal error: ${error instanceof Error ? error.message : String(error)}` };
    if (s.agentId) result.agentId = s.agentId;
    return result;
  }
}
