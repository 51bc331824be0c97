// The swarm's launcher port: the one thing the runner needs to get an item done. The local launcher runs items
// as agents of this process (local-launcher.ts); the queue launcher hands them to `murmur worker`s over Redis
// (queue/). The runner decides when (the controller), the launcher decides how.
import type { EventInput, SwarmItemState } from '../orchestrator/events.js';
import type { Attempt, SavedSwarm } from './item-state.js';
import type { ItemResult } from './report.js';

/** What an attempt tells the swarm while it runs. */
export interface ItemHooks {
  /** The item moved (launched, verifying…): the runner emits its swarm.item event. */
  emit(state: SwarmItemState, extra?: Record<string, unknown>): void;
  /** The item's record changed (an agent id, a verdict): the swarm's state is saved. */
  changed(): void;
}

export interface ItemLauncher {
  /** Starts one attempt of item `index` (`items[index]` of the swarm's state, which the attempt updates). */
  start(index: number, hooks: ItemHooks): void;
  /** How the attempt ended: a result, or a rate limit that puts the item back in the queue. Never rejects. */
  settle(index: number): Promise<Attempt>;
  /** The swarm is stopping: the attempt ends as soon as it can, and its settle says `aborted`. */
  stop(index: number): void;
  /** An item that ended without completing keeps its work (a branch, a worktree, a patch), named in its result. */
  keep(index: number, result: ItemResult): Promise<ItemResult>;
  /** The swarm's state changed: save it. */
  save(state: SavedSwarm): void;
  /** Where the swarm's events go (the engine's bus). */
  emit(event: EventInput): void;
  /**
   * The last step of an attempt that ended, run in item order: an item's commit waits until every earlier item
   * has ended (its own attempt holds no capacity meanwhile). The queue launcher applies returned diffs here.
   */
  commit?(index: number, result: ItemResult): Promise<ItemResult>;
  /** The item's record just got its result; called in the same synchronous step, before the state is saved. */
  ended?(index: number, result: ItemResult): void;
  /** The swarm ended with these results: release what the launcher holds (connections, a finished queue). */
  finish?(results: readonly ItemResult[]): Promise<void>;
}
