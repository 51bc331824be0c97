// The coordinator's diffs waiting for their turn: each completed item's diff is applied once every earlier item
// has ended (the runner calls commit in item order). When the items right after it have ended with diffs too,
// they go in with it in one `git apply` (all or nothing): two git processes for a run of items instead of two for
// each, which is what held a swarm on many workers to one machine's pace of spawning git.
import type { ItemResult } from '../report.js';
import { plainCheckout } from '../plain-checkout.js';
import { applyDiff, applyTogether, keepPatch } from './apply.js';
import type { ItemOutcomeData } from './job.js';

/** At most this many diffs go in one `git apply`. */
const MAX_BATCH = 64;

export class WaitingDiffs {
  private readonly diffs = new Map<number, ItemOutcomeData>();
  /** Items whose job an earlier coordinator made: their diff may have been applied before that one died. */
  private readonly carried = new Set<number>();
  /** Items whose diff went in with an earlier item's: their commit has nothing left to apply. */
  private readonly appliedAhead = new Set<number>();
  /** A batch up to here did not apply: these items go one by one (the conflict is found and kept). */
  private singlesUntil = -1;
  /** Whether the working tree is a plain checkout (asked once): then diffs may be written without git. */
  private plain: Promise<boolean> | undefined;

  constructor(
    private readonly root: string,
    private readonly patchesHome: string,
  ) {}

  /** Item `index` collects a job an earlier coordinator made. */
  carry(index: number): void {
    this.carried.add(index);
  }

  /** A completed job's diff, held for its item's commit. */
  hold(index: number, data: ItemOutcomeData): void {
    this.diffs.set(index, data);
  }

  /** Item `index` has ended (every earlier one too): its diff is applied, or kept when it did not complete. */
  async commit(index: number, result: ItemResult): Promise<ItemResult> {
    const data = this.diffs.get(index);
    const carried = this.carried.delete(index);
    if (!data) return result;
    this.diffs.delete(index);
    if (data.outcome !== 'completed') {
      // Work of an item that did not complete is kept, as a local worktree keeps its branch.
      return { ...result, patch: keepPatch(this.patchesHome, index, data.diff) };
    }
    if (this.appliedAhead.delete(index)) return result;
    const batch = carried ? [] : this.followers(index);
    if (batch.length > 0) {
      const diffs = [data.diff, ...batch.map((i) => this.diffs.get(i)!.diff)];
      if (await applyTogether(this.root, diffs, await this.plainTree())) {
        for (const i of batch) this.appliedAhead.add(i);
        return result;
      }
      this.singlesUntil = batch.at(-1)!;
    }
    const applied = await applyDiff(this.root, data.diff, index, this.patchesHome, carried, await this.plainTree());
    if (applied.kind !== 'conflict') return result;
    return { ...result, outcome: 'conflict', reason: applied.reason, patch: applied.patch };
  }

  private plainTree(): Promise<boolean> {
    return (this.plain ??= plainCheckout(this.root));
  }

  /**
   * The items right after `index` that completed with a diff of their own making (this coordinator's jobs), in a
   * row: every item before each of them has ended, so applying theirs now keeps the item order.
   */
  private followers(index: number): number[] {
    const batch: number[] = [];
    if (index <= this.singlesUntil) return batch;
    for (let i = index + 1; batch.length < MAX_BATCH - 1; i++) {
      const next = this.diffs.get(i);
      if (!next || next.outcome !== 'completed' || this.carried.has(i)) break;
      batch.push(i);
    }
    return batch;
  }
}
