// Every agent of a run by id — the agent tree's own record store: its record (the permission setup labels a
// request with the asking agent's parent chain; the shell bridge asks whether it runs) and its inbox (background
// task results and timers are delivered to it). Built before everything else and filled by the agent tree as it
// spawns agents, so those parts are handed plain functions and nothing reaches a tree that does not exist yet.
//
// A settled swarm item's agents leave it: what stays is their saved row (summary, usage, status: what the report,
// the saved state and the usage index read), so a swarm holds the conversations of the items in flight, not of
// every item it ran.
import type { SavedAgent } from '../protocol/run-state.js';
import type { AgentRecord } from './agent-tree-types.js';
import { afterRecordLoss } from './record-loss.js';
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

  /** Called by the agent tree once the agent exists. */
  register(record: AgentRecord): void {
    this.all.set(record.id, record);
    this.live.set(record.id, record);
  }

  /** A live agent (never a settled one). */
  readonly get = (agentId: string): AgentRecord | undefined => this.live.get(agentId);

  /** Whether the id is taken, by a live or a settled agent. */
  has(agentId: string): boolean {
    return this.all.has(agentId);
  }

  /** The agent leaves memory, keeping `row` in its place (same order); false when it is not a live agent. */
  settle(agentId: string, row: SavedAgent): boolean {
    if (!this.live.delete(agentId)) return false;
    this.putRow(agentId, row);
    return true;
  }

  /** A settled agent of an earlier process (a resumed session), by its row: it takes its id and stays settled. */
  restoreSettled(row: SavedAgent): void {
    this.putRow(row.id, row);
  }

  /** A settled agent's transcript was lost: a new row that says so takes its place (and is saved again). */
  markRowLost(agentId: string, reason: string): void {
    const row = this.settledRow(agentId);
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
  }

  /** An agent's usage as it stands (live or settled; not a copy), or undefined for an unknown id. */
  usageOf(agentId: string): Usage | undefined {
    return this.live.get(agentId)?.agent.state.usage ?? this.settledRow(agentId)?.usage;
  }

  /** Every agent's role, item and usage (live or settled; not copies), in spawn order. */
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

  /** Every agent, live (its record) or settled (its row), in the order they were spawned. */
  *entries(): IterableIterator<{ record: AgentRecord } | { row: SavedAgent }> {
    for (const entry of this.all.values()) yield isSettled(entry) ? { row: entry.settled } : { record: entry };
  }

  /** Every agent's id, live or settled, in spawn order. */
  ids(): IterableIterator<string> {
    return this.all.keys();
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
