// The runner's items and their saved records, by index. An ended item of the session's own swarm leaves memory once
// the session's settled log holds its record (the snapshot compactor appends it, settled-log.ts): its slot keeps
// `null` (what a v3 snapshot writes for it anyway) and nothing else, so a swarm holds what is in flight, not every
// item it ran. What needs an ended item whole (the results, a record loss found after the run) reads it back.
// An item that has not moved since it was queued new is held as its record alone (a slot of `undefined` beside a
// record). The session's own swarm keeps its items as queued in a file of the session (the sink's queueItems,
// orchestrator/queued-items.ts): from the first item that never moved on, they are read from there as they launch,
// and a snapshot lists only the items before it, so a million items waiting cost a window of a file, not memory.
import { SettleQueue } from '../orchestrator/settle-queue.js';
import { inSettledLog } from '../orchestrator/settled-log.js';
import { endedResult, queuedItem, type ItemList, type SwarmItem } from './item-state.js';
import type { ItemOutcome, ItemResult, ItemResults } from './report.js';
import { itemRecord, restoredItem, type SwarmItemRecord } from './saved-swarm.js';
import type { QueuedItemsSource, SettledItems } from './swarm-engine.js';

/** Writes a swarm's items as queued (records in index order) and reads them back; undefined: keep them listed. */
export type QueueItems = (records: Iterable<SwarmItemRecord>, count: number) => QueuedItemsSource | undefined;

export class ItemStore {
  /** The items before the queued tail (those after it have never moved: `queued` has them). */
  private readonly items: (SwarmItem | undefined)[];
  /** Each listed item as saved (the runner's saved list): `null` once the settled log holds it. */
  readonly records: (SwarmItemRecord | null)[];
  /** The items as queued, from `records.length` on (the session's own swarm); absent: every item is listed. */
  readonly queued: QueuedItemsSource | undefined;
  private readonly total: number;
  /** Ended items that may still be in memory, oldest end first: let go of from the front as the log takes them. */
  private readonly ended = new SettleQueue<number>();
  /** How the items ended so far, kept as they change (reading every item back to count them costs a pass). */
  private readonly outcomes = new Map<ItemOutcome, number>();
  /** Ended items whose last verdict failed. */
  private failedVerdicts = 0;

  constructor(
    items: ItemList,
    private readonly settled: SettledItems | undefined,
    private readonly restore: { verify: boolean; maxRounds: number },
    queueItems?: QueueItems,
  ) {
    this.items = [];
    this.records = [];
    this.total = items.length;
    // Listed: every item up to the last one that is not fresh; the rest go to the file, when there is one.
    let listed = items.length;
    while (listed > 0 && isFresh(items.at(listed - 1)!)) listed--;
    this.queued = listed < items.length ? keptQueued(items, queueItems) : undefined;
    if (!this.queued) listed = items.length;
    for (let index = 0; index < listed; index++) {
      const s = items.at(index)!;
      this.records.push(itemRecord(s));
      this.items.push(isFresh(s) ? undefined : s);
      this.count(s, 1);
    }
  }

  get length(): number {
    return this.total;
  }

  /**
   * Item `index` as it stands (one that left memory is read back from the log). `looking`: only looked at, never
   * kept (a report's row).
   */
  get(index: number, looking = false): SwarmItem {
    if (index >= this.records.length) return freshItem(this.queuedRecord(index));
    const s = this.items[index];
    if (s !== undefined) return s;
    const record = this.records[index];
    return record ? freshItem(record) : this.readBack(index, looking);
  }

  /** Item `index`'s label, without making a fresh item's object. */
  label(index: number): string {
    if (index >= this.records.length) return this.queuedRecord(index).item;
    return this.items[index]?.item ?? this.records[index]?.item ?? this.readBack(index, true).item;
  }

  /** Whether item `index` has ended (in memory or not). */
  isDone(index: number): boolean {
    if (index >= this.records.length) return false;
    const s = this.items[index];
    return s === undefined ? this.records[index] === null : s.status === 'done';
  }

  /** The indices of the items that have not ended, in order (4 bytes each). */
  notDone(): Int32Array {
    let left = 0;
    for (let i = 0; i < this.total; i++) if (!this.isDone(i)) left++;
    const pending = new Int32Array(left);
    for (let i = 0, at = 0; i < this.total; i++) if (!this.isDone(i)) pending[at++] = i;
    return pending;
  }

  /** Item `index` moves from `before` (as get gave it) to `s`: its record is made again (a snapshot takes it). */
  set(index: number, before: SwarmItem, s: SwarmItem): SwarmItemRecord {
    // A queued item that moves is listed from now on, with every queued one before it (as queued).
    while (this.records.length < index) {
      this.records.push(this.queuedRecord(this.records.length));
      this.items.push(undefined);
    }
    this.count(before, -1);
    this.count(s, 1);
    this.items[index] = s;
    const record = itemRecord(s);
    this.records[index] = record;
    if (s.status === 'done' && this.settled) this.ended.push(index);
    return record;
  }

  /** Items that ended before this run (a resume's) leave memory too, once the log is known to hold them. */
  endedBefore(): void {
    if (!this.settled) return;
    for (let i = 0; i < this.items.length; i++) if (this.items[i]?.status === 'done') this.ended.push(i);
    this.release();
  }

  /** How many items ended each way (by outcome), and whether every item completed with no failed verdict. */
  tally(): { counts: Partial<Record<ItemOutcome, number>>; allCompleted: boolean } {
    const counts: Partial<Record<ItemOutcome, number>> = {};
    let done = 0;
    for (const [outcome, n] of this.outcomes) {
      if (n > 0) counts[outcome] = n;
      done += n;
    }
    // An item that never ended reads as aborted (never started), as results() gives it.
    if (done < this.total) counts.aborted = (counts.aborted ?? 0) + this.total - done;
    const allCompleted = (counts.completed ?? 0) === this.total && this.failedVerdicts === 0;
    return { counts, allCompleted };
  }

  private count(s: SwarmItem, by: 1 | -1): void {
    if (s.status !== 'done') return;
    this.outcomes.set(s.result.outcome, (this.outcomes.get(s.result.outcome) ?? 0) + by);
    if (s.result.verdict === 'fail') this.failedVerdicts += by;
  }

  /** Each item's result, in index order, read as iterated (one that never started is `aborted`, not started). */
  results(): ItemResults {
    const tally = () => this.tally().counts;
    return {
      length: this.total,
      get counts() {
        return tally();
      },
      [Symbol.iterator]: () => this.eachResult(),
    };
  }

  private *eachResult(): Generator<ItemResult> {
    for (let index = 0; index < this.total; index++) {
      const s = this.get(index, true);
      yield s.status === 'done' ? s.result : endedResult(index, s, 'aborted', { notStarted: true });
    }
  }

  /** Lets go of the ended items the settled log holds now (each is looked at once it is at the front). */
  release(): void {
    let released = false;
    this.ended.drain((index) => {
      const record = this.records[index];
      // Not yet appended: it and those after it wait for the next snapshot.
      if (record !== null && !inSettledLog(record) && !inSettledLog(record?.result)) return false;
      if (this.items[index]?.status === 'done') {
        this.records[index] = null;
        this.items[index] = undefined;
        released = true;
      }
      return true;
    });
    if (released) this.settled?.grown();
  }

  /** A queued item's record, as the file holds it. */
  private queuedRecord(index: number): SwarmItemRecord {
    if (!this.queued || index >= this.total) throw new RangeError(`item ${index} is not one of ${this.total}`);
    return this.queued.record(index);
  }

  /** An item that left memory, as it ended (it stays out of memory: reading every one costs one at a time). */
  private readBack(index: number, looking = false): SwarmItem {
    const record = this.settled?.get(index, looking) as SwarmItemRecord | undefined;
    return record ? restoredItem(record, this.restore.verify, this.restore.maxRounds, true) : lostItem(index);
  }
}

/** The items' file, written with every item as it stands (the lines before the tail are what a resume's older
 * snapshot may still read past its own list: the same items, as they stood then or later). */
function keptQueued(items: ItemList, queueItems: QueueItems | undefined): QueuedItemsSource | undefined {
  if (!queueItems) return undefined;
  function* records(): Generator<SwarmItemRecord> {
    for (let index = 0; index < items.length; index++) yield itemRecord(items.at(index)!);
  }
  return queueItems(records(), items.length);
}

/** A new item that has not moved since it was queued: its record says all of it (see freshItem). */
function isFresh(s: SwarmItem): boolean {
  if (s.status !== 'queued' || s.prompt === undefined || s.rounds !== 0) return false;
  for (const key in s) if (key !== 'status' && key !== 'item' && key !== 'prompt' && key !== 'rounds') return false;
  return true;
}

/** The queued item a fresh item's record stands for, made when asked for (the runner replaces it as it moves). */
function freshItem(record: SwarmItemRecord): SwarmItem {
  return queuedItem(record.item, { prompt: record.prompt! });
}

/** An item that left memory for a settled log that no longer holds it (a file removed while the swarm ran). */
function lostItem(index: number): SwarmItem {
  const item = `item ${index + 1}`;
  const reason = "its record left memory for the session's settled log (settled-*.jsonl), which no longer holds it";
  return {
    status: 'done',
    item,
    rounds: 0,
    result: { index, item, outcome: 'failed', rounds: 0, text: '', reason },
  };
}
