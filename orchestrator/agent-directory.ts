// Every agent of a run by id — the agent tree's own record store: its record (the permission setup labels a
// request with the asking agent's parent chain; the shell bridge asks whether it runs) and its inbox (background
// task results and timers are delivered to it). Built before everything else and filled by the agent tree as it
// spawns agents, so those parts are handed plain functions and nothing reaches a tree that does not exist yet.
//
// A settled swarm item's agents leave it: what stays is their saved row (summary, usage, status: what the report,
// the saved state and the usage index read), so a swarm holds the conversations of the items in flight, not of
// every item it ran. Once the session's settled log holds a row, the row leaves too (released-rows.ts keeps the
// id taken and the usage); what needs it whole reads it back from the log.
import type { SavedAgent } from '../protocol/run-state.js';
import type { AgentRecord } from './agent-tree-types.js';
import { afterRecordLoss } from './record-loss.js';
import { ReleasedRows } from './released-rows.js';
import { SettleQueue } from './settle-queue.js';
import { inSettledLog, readSettled, spawnNumber } from './settled-log.js';
import type { Usage, UserMessage } from './types.js';

export type Deliver = (agentId: string, message: UserMessage) => boolean;

/** An agent that has left memory: its row as saved. */
interface Settled {
  settled: SavedAgent;
}

/** The rows of settled agents, by identity: a snapshot leaves them out (snapshot-compactor.ts). */
const settledRows = new WeakSet<SavedAgent>();

/** Whether `row` is a settled agent's row (it changes only by being replaced). */
export function isSettledRow(row: SavedAgent): boolean {
  return settledRows.has(row);
}

function isSettled(entry: AgentRecord | Settled): entry is Settled {
  return 'settled' in entry;
}

export class AgentDirectory {
  /** Every agent in spawn order: its record while live, its row once settled. */
  private readonly all = new Map<string, AgentRecord | Settled>();
  /** The live ones alone, so what walks live agents costs what is live, not what the run ever spawned. */
  private readonly live = new Map<string, AgentRecord>();
  /** Settled agents whose rows the session's settled log holds: out of memory, their ids and usage kept. */
  private readonly released = new ReleasedRows();
  /** Settled agents in the order they settled, let go of from the front once the log holds their rows. */
  private readonly settledOrder = new SettleQueue<string>();
  /** The log's rows, read back when one that left memory is needed whole (a record loss, the full list). */
  private fromLog: Map<string, SavedAgent> | undefined;

  /** `sessionDir`: the session whose settled log holds the rows of agents that leave memory (none without). */
  constructor(private sessionDir?: string) {}

  /** The session, once it exists (the directory is made first: approvals look up agents in it). */
  useSession(sessionDir: string): void {
    this.sessionDir ??= sessionDir;
  }

  /** Called by the agent tree once the agent exists. */
  register(record: AgentRecord): void {
    this.all.set(record.id, record);
    this.live.set(record.id, record);
  }

  /** A live agent (never a settled one). */
  readonly get = (agentId: string): AgentRecord | undefined => this.live.get(agentId);

  /** Whether the id is taken, by a live or a settled agent. */
  has(agentId: string): boolean {
    return this.all.has(agentId) || this.released.has(agentId);
  }

  /** The agent leaves memory, keeping `row` in its place (same order); false when it is not a live agent. */
  settle(agentId: string, row: SavedAgent): boolean {
    if (!this.live.delete(agentId)) return false;
    this.putRow(agentId, row);
    this.release();
    return true;
  }

  /** A settled agent of an earlier process (a resumed session), by its row: it takes its id and stays settled. */
  restoreSettled(row: SavedAgent): void {
    this.putRow(row.id, row);
    this.release();
  }

  /** A settled agent's transcript was lost: a new row that says so takes its place (and is saved again). */
  markRowLost(agentId: string, reason: string): void {
    const row = this.settledRow(agentId) ?? this.readBack(agentId);
    const after = row && afterRecordLoss(row.status, row.reason, reason);
    if (row && after) this.putRow(agentId, { ...row, ...after });
  }

  /** A settled agent's row. */
  settledRow(agentId: string): SavedAgent | undefined {
    const entry = this.all.get(agentId);
    return entry && isSettled(entry) ? entry.settled : undefined;
  }

  private putRow(agentId: string, row: SavedAgent): void {
    settledRows.add(row);
    this.all.set(agentId, { settled: row });
    this.released.delete(agentId);
    if (this.sessionDir !== undefined) this.settledOrder.push(agentId);
  }

  /** Lets go of the settled rows the log holds now (each is looked at once it is at the front). */
  private release(): void {
    this.settledOrder.drain((id) => {
      const entry = this.all.get(id);
      const row = entry && isSettled(entry) ? entry.settled : undefined;
      // Not yet appended: it and those after it wait for the next snapshot.
      if (row && !inSettledLog(row)) return false;
      // Verifiers stay: a row's usage counts its item's verifiers, found by their rows.
      if (row && row.role !== 'verifier') {
        this.all.delete(id);
        this.released.add(id, row.usage);
        this.fromLog?.set(id, row);
      }
      return true;
    });
  }

  /** A row that left memory, from the log (read once, when the first is needed). */
  private readBack(agentId: string): SavedAgent | undefined {
    if (!this.released.has(agentId) || this.sessionDir === undefined) return undefined;
    this.fromLog ??= new Map([...readSettled(this.sessionDir).agents].map(([id, line]) => [id, line.value]));
    return this.fromLog.get(agentId);
  }

  /** An agent's usage as it stands (live or settled; not a copy), or undefined for an unknown id. */
  usageOf(agentId: string): Usage | undefined {
    return (
      this.live.get(agentId)?.agent.state.usage ?? this.settledRow(agentId)?.usage ?? this.released.usageOf(agentId)
    );
  }

  /** Every agent in memory: its role, item and usage (not copies), in spawn order (every verifier is here). */
  *usages(): Generator<{ id: string; role: string; item?: string | undefined; usage: Usage }> {
    for (const entry of this.all.values()) {
      if (isSettled(entry)) yield entry.settled;
      else yield { id: entry.id, role: entry.profile.name, item: entry.item, usage: entry.agent.state.usage };
    }
  }

  /** Every live agent, in the order they were spawned. */
  values(): IterableIterator<AgentRecord> {
    return this.live.values();
  }

  /**
   * Every agent in memory, live (its record) or settled (its row), in the order they were spawned: what a snapshot
   * lists (those that left memory are in the settled log).
   */
  *entries(): IterableIterator<{ record: AgentRecord } | { row: SavedAgent }> {
    for (const entry of this.all.values()) yield isSettled(entry) ? { row: entry.settled } : { record: entry };
  }

  /** Every agent, those that left memory read back from the log, in spawn order. */
  everyEntry(): ({ record: AgentRecord } | { row: SavedAgent })[] {
    const inMemory = [...this.entries()];
    if (this.released.size === 0) return inMemory;
    const back = [...this.released.ids()].flatMap((id) => {
      const row = this.readBack(id);
      return row ? [{ row }] : [];
    });
    const spawn = (e: { record: AgentRecord } | { row: SavedAgent }) =>
      spawnNumber('row' in e ? e.row.id : e.record.id);
    return [...inMemory, ...back].sort((a, b) => spawn(a) - spawn(b));
  }

  /** Every agent's id, live, settled or out of memory. */
  *ids(): IterableIterator<string> {
    yield* this.all.keys();
    yield* this.released.ids();
  }

  /** How many agents are live (not settled). */
  get liveCount(): number {
    return this.live.size;
  }

  /** Delivers to an agent's inbox (it joins after the current batch, or wakes the agent); false for an unknown id. */
  readonly deliver: Deliver = (agentId, message) => {
    const record = this.live.get(agentId);
    if (!record) return false;
    record.agent.enqueue(message);
    return true;
  };
}
