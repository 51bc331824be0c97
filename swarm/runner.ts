// The swarm runner: the shell around the controller. It owns the items' states and is the one place they change
// (through the item mutator): it hands items to a launcher when the controller says so, applies what the launcher
// reports and how attempts end (rate limits included), emits the events and persists the state a killed process
// can resume from. It knows only the launcher port, where events and states go, and a clock.
import { setMaxListeners } from 'node:events';
import type { SwarmItemState } from '../orchestrator/events.js';
import { type Clock, systemClock } from '../orchestrator/clock.js';
import { SwarmController, type ControllerAction } from './controller.js';
import { advanceItem, endedResult, itemEvent, savedAfter, type ItemChange, type SwarmItem } from './item-state.js';
import type { ItemList } from './item-state.js';
import type { Attempt, ItemLauncher } from './item-launcher.js';
import { commitEnded, keepWork, type Ended } from './launcher-steps.js';
import type { ItemResult, ItemResults } from './report.js';
import type { SavingSwarm } from './saved-swarm.js';
import { ItemStore } from './item-store.js';
import type { SwarmSettings } from './settings.js';
import type { SwarmEngine } from './swarm-engine.js';

export type { SavedSwarm, SavingSwarm, SwarmItemRecord } from './saved-swarm.js';

export interface SwarmRunSpec {
  swarmId: string;
  description: string;
  template?: string;
  /** Each item's state as the swarm starts: queued, or done (a resumed swarm's finished items). */
  items: ItemList;
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

/** Where a run's events and states go: the host's bus, its item journal and its one persist sink. */
export type SwarmSink = Pick<SwarmEngine, 'emit' | 'persist'> &
  Partial<Pick<SwarmEngine, 'journal' | 'writeRoom' | 'settledItems' | 'queueItems'>>;

export class SwarmRun {
  /** Progress lines for the calling tool (streamed as tool updates). */
  onProgress: ((text: string) => void) | undefined;
  /** Each item's result as it ends (and, as the run starts, those that ended before a resume). Must not throw. */
  onItemDone: ((result: ItemResult) => void) | undefined;
  /** The items and their records (a save costs no more than the item that changed; ended ones leave memory). */
  private readonly items: ItemStore;
  private readonly started: number;
  private finishedCount = 0;
  private finishedBefore = 0;
  /** The swarm as specified, without its items: the store owns them (a list kept here would hold every item). */
  readonly spec: Omit<SwarmRunSpec, 'items'>;

  constructor(
    spec: SwarmRunSpec,
    private readonly launcher: ItemLauncher,
    private readonly sink: SwarmSink,
    private readonly clock: Clock = systemClock,
  ) {
    const { items, ...rest } = spec;
    this.spec = rest;
    const { verify, maxRounds } = spec;
    const queue = sink.queueItems?.bind(sink, spec.swarmId);
    this.items = new ItemStore(items, sink.settledItems?.(spec.swarmId), { verify, maxRounds }, queue);
    this.started = this.clock.now();
  }

  /** Item `index` as it stands. */
  item(index: number): SwarmItem {
    return this.items.get(index);
  }

  /**
   * The swarm as saved. Its `items` is the runner's own list, whose records are replaced (never changed) as their
   * items move, so a save costs no more than the item that changed: keep a copy to keep a moment.
   */
  state(): SavingSwarm {
    const saved: SavingSwarm = {
      swarmId: this.spec.swarmId,
      description: this.spec.description,
      role: this.spec.role,
      verify: this.spec.verify,
      maxRounds: this.spec.maxRounds,
      isolation: this.spec.isolation,
      items: this.items.records,
      ...(this.items.queued ? { queuedItems: this.items.queued.ref } : {}),
      ...this.spec.extra,
    };
    if (this.spec.template !== undefined) saved.template = this.spec.template;
    if (this.spec.settings.controller.maxConcurrency !== undefined)
      saved.maxConcurrency = this.spec.settings.controller.maxConcurrency;
    return saved;
  }

  /** Saves the swarm's state now (the host saves it again as items move). */
  save(): void {
    this.sink.persist(this.state());
  }

  /** Each item's result, in index order, read as iterated (ended items that left memory come from the log). */
  results(): ItemResults {
    return this.items.results();
  }

  /** How the items ended so far, without reading them back (see ItemStore.tally). */
  tally(): ReturnType<ItemStore['tally']> {
    return this.items.tally();
  }

  /**
   * After the run: items whose agent's transcript turned out incomplete (`lossOf` says why) fail, with the event and
   * a save; a resume runs them again. Items that did not complete are left as they are.
   */
  markRecordLosses(lossOf: (agentId: string) => string | undefined): void {
    for (let index = 0; index < this.items.length; index++) {
      const s = this.items.get(index);
      if (s.status !== 'done' || s.result.outcome !== 'completed' || s.result.agentId === undefined) continue;
      const reason = lossOf(s.result.agentId);
      if (reason !== undefined) this.transition(index, { kind: 'record_lost', reason });
    }
  }

  /** A run that will not run lets go of what its launcher holds (a queue's connections would keep the process up). */
  async release(): Promise<void> {
    this.items.queued?.close();
    await this.launcher.finish?.();
  }

  private emitItem(index: number, state: SwarmItemState, extra: Record<string, unknown> = {}): void {
    const s = this.items.get(index);
    this.sink.emit({
      type: 'swarm.item',
      swarmId: this.spec.swarmId,
      item: s.item,
      index,
      state,
      ...(s.agentId ? { agentId: s.agentId } : {}),
      ...extra,
    });
  }

  /**
   * The one place an item changes: the mutator, the journal (before anything tells of the change, so an item the
   * events call completed is one a resume finds completed), the job the record let go of, its event, then the
   * saved state when a resume needs it.
   */
  private transition(index: number, change: ItemChange): void {
    const job = this.items.records[index]?.jobId;
    const before = this.items.get(index);
    const now = advanceItem(before, change);
    const record = this.items.set(index, before, now);
    this.sink.journal?.(this.spec.swarmId, index, record);
    // An end tells of the result as recorded (with the item's earlier attempts), not as the launcher gave it.
    const event = itemEvent(
      change.kind === 'done' && now.status === 'done' ? { ...change, result: now.result } : change,
    );
    if (event) this.emitItem(index, event.state, event.extra);
    if (savedAfter(change)) this.save();
    // Recorded before the job goes: a coordinator killed in between still finds the job, never a record without one.
    if (job !== undefined && record.jobId !== job) this.launcher.forget?.(job);
  }

  async run(signal: AbortSignal): Promise<ItemResults> {
    // Every running item listens on the swarm's signal.
    setMaxListeners(0, signal);
    const pending = await this.start();
    try {
      if (pending.length > 0) await this.drive(pending, signal);
      const results = this.results();
      const { swarmId } = this.spec;
      const durationMs = this.clock.now() - this.started;
      this.sink.emit({ type: 'swarm.end', swarmId, counts: this.items.tally().counts, durationMs });
      return results;
    } finally {
      // Whatever happened, the launcher lets go of what it holds (a queue's connections, say).
      await this.release();
    }
  }

  /**
   * Tells of every item as the swarm starts, a block at a time as the events file keeps up (a million items' lines
   * are never waiting at once); the items still to run. Nothing here outlives it (see ItemStore).
   */
  private async start(): Promise<Int32Array> {
    const { spec } = this;
    // One item at a time: a fresh item is made when asked for (a million at once is the memory the store saves).
    const count = this.items.length;
    const pending = this.items.notDone();
    this.finishedBefore = count - pending.length;
    this.sink.emit({
      type: 'swarm.start',
      swarmId: spec.swarmId,
      description: spec.description,
      role: spec.role,
      items: Array.from({ length: count }, (_, i) => this.items.label(i)),
      ...(spec.parentId !== undefined ? { parentId: spec.parentId } : {}),
      ...(spec.settings.controller.maxConcurrency !== undefined
        ? { maxConcurrency: spec.settings.controller.maxConcurrency }
        : {}),
    });
    for (let i = 0; i < count; i++) {
      const s = this.items.get(i);
      if (s.status === 'done') {
        this.emitItem(i, s.result.outcome, { reason: 'finished before the resume' });
        this.onItemDone?.(s.result);
      } else this.emitItem(i, 'queued');
      if (i % 1024 === 1023) await this.sink.writeRoom?.();
    }
    this.items.endedBefore();
    return pending;
  }

  private drive(pending: Int32Array, signal: AbortSignal): Promise<void> {
    const controller = new SwarmController(pending.length, this.spec.settings.controller);
    const { clock, launcher } = this;
    let timer: unknown;
    let inFlight = 0;
    /** Items whose attempt runs now, with what stops it: they are stopped when the swarm is. */
    const running = new Map<number, AbortController>();
    return new Promise<void>((resolve) => {
      const settleIfDone = () => {
        if (controller.done && inFlight === 0) {
          if (timer !== undefined) clock.clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve();
        }
      };
      // Launchers with a commit step end items in item order: `cursor` is the first item not done, and an
      // attempt that ended waits in `toCommit` until the cursor reaches it (counted in flight meanwhile).
      let cursor = 0;
      let committing = false;
      const toCommit = new Map<number, Ended>();
      const pump = () => {
        if (committing) return;
        while (cursor < this.items.length && this.items.isDone(cursor)) cursor++;
        const ended = toCommit.get(cursor);
        if (!ended) return;
        toCommit.delete(cursor);
        committing = true;
        const index = cursor;
        void commitEnded(this.launcher, index, ended).then((final) => {
          committing = false;
          inFlight--;
          end(index, final);
          settleIfDone();
        });
      };
      const end = (index: number, ended: Ended) => {
        this.finish(index, ended);
        pump();
      };
      /** Ends an item that is not in flight once its work is looked after; the swarm waits for it. */
      const finishKeepingWork = (index: number, result: ItemResult) => {
        inFlight++;
        void keepWork(this.launcher, index, { kind: 'done', result }).then((kept) => {
          inFlight--;
          end(index, kept);
          settleIfDone();
        });
      };
      const schedule = () => {
        if (timer !== undefined) clock.clearTimeout(timer);
        timer = undefined;
        const at = controller.nextWakeAt();
        if (at !== undefined)
          timer = clock.setTimeout(() => apply(controller.tick(clock.now())), Math.max(0, at - clock.now()));
      };
      const launch = (ctlIndex: number) => {
        const index = pending[ctlIndex]!;
        inFlight++;
        const stop = new AbortController();
        running.set(index, stop);
        // Reports count while this attempt runs; one that comes late changes nothing.
        const report = (change: ItemChange) => {
          if (running.get(index) === stop) this.transition(index, change);
        };
        void this.attempt(index, report, stop.signal)
          .then(async (outcome): Promise<Attempt> => {
            running.delete(index);
            if (outcome.kind === 'rate_limited' && !signal.aborted) return outcome;
            // Stopping: a limited item is not queued again, it ends like every other started item.
            const reason = 'the swarm was aborted while the item waited out a rate limit';
            const s = this.items.get(index);
            const ended: Ended =
              outcome.kind === 'done'
                ? outcome
                : {
                    kind: 'done',
                    result: {
                      ...endedResult(index, s, 'aborted', { reason, text: outcome.text ?? '' }),
                      ...(s.verdict ? { verdict: s.verdict } : {}),
                    },
                  };
            return keepWork(this.launcher, index, ended);
          })
          .then((outcome) => {
            if (outcome.kind === 'rate_limited') {
              inFlight--;
              this.transition(index, { kind: 'rate_limited' });
              apply(controller.rateLimited(ctlIndex, clock.now(), outcome.retryAfterMs));
            } else if (launcher.commit) {
              // Its capacity frees now; its end waits for every earlier item's (still counted in flight).
              toCommit.set(index, outcome);
              pump();
              apply(controller.finished(ctlIndex, clock.now()));
            } else {
              inFlight--;
              end(index, outcome);
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
            case 'give_up':
              finishKeepingWork(index, endedResult(index, this.items.get(index), 'failed', { reason: action.reason }));
              break;
            case 'capacity':
              launcher.capacity?.(action.capacity);
              this.sink.emit({
                type: 'swarm.capacity',
                swarmId: this.spec.swarmId,
                capacity: action.capacity,
                running: action.running,
                limited: action.limited,
              });
              break;
          }
        }
        schedule();
        settleIfDone();
      };
      const onAbort = () => {
        // Each running item stops with the swarm's reason (the caller's, when it gave one).
        for (const stop of running.values()) stop.abort(signal.reason);
        for (const ctlIndex of controller.abort()) {
          const index = pending[ctlIndex]!;
          const s = this.items.get(index);
          const reason = 'aborted before it started';
          // Waiting out a rate limit: it has worked already, maybe in a worktree.
          if (s.agentId) finishKeepingWork(index, endedResult(index, s, 'aborted', { reason }));
          else end(index, { kind: 'done', result: endedResult(index, s, 'aborted', { reason, notStarted: true }) });
        }
        schedule();
        settleIfDone();
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      apply(controller.start(clock.now()));
    });
  }

  /** One attempt on the launcher; a launcher that throws or rejects (a bug) fails the item instead of hanging the swarm. */
  private async attempt(index: number, report: (change: ItemChange) => void, signal: AbortSignal): Promise<Attempt> {
    try {
      const room = this.sink.writeRoom?.();
      if (room) await room;
      const s = this.items.get(index);
      if (s.status !== 'queued' && s.status !== 'rate_limited')
        throw new Error(`item ${index} cannot be launched while ${s.status}`);
      return await this.launcher.run(index, s, report, signal);
    } catch (error) {
      return {
        kind: 'done',
        result: endedResult(index, this.items.get(index), 'failed', {
          reason: `internal error: ${error instanceof Error ? error.message : String(error)}`,
        }),
      };
    }
  }

  private finish(index: number, ended: Ended): void {
    if (this.items.get(index).status !== 'done') this.finishedCount++;
    this.transition(index, ended);
    // The result as recorded: with the attempt it is of and the item's earlier ones.
    const s = this.items.get(index);
    const result = s.status === 'done' ? s.result : ended.result;
    this.launcher.settled?.(index, result);
    this.onItemDone?.(result);
    this.onProgress?.(
      `${this.finishedCount + this.finishedBefore}/${this.items.length} items done (last: ${result.item} ${result.outcome})`,
    );
    this.items.release();
  }
}
