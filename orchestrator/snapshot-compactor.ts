// What a snapshot (state.json) leaves out: the rows of agents that have settled and the records of items that have
// ended, each appended to the settled log once (settled-log.ts) and `null` / absent in every snapshot after. What
// was appended is known by identity (a row or record that changes is a new object), so each snapshot appends only
// what settled since the last one; an append that fails leaves them in the snapshot, as before.
import type { SavedAgent } from '../protocol/run-state.js';
import { isSettledRow } from './agent-directory.js';
import { readFromLog, type SettledLog } from './settled-log.js';

interface SwarmShape {
  swarmId: string;
  items: unknown[];
}

function isSwarm(value: unknown): value is SwarmShape {
  const swarm = value as Partial<SwarmShape> | null;
  return typeof swarm === 'object' && swarm !== null && typeof swarm.swarmId === 'string' && Array.isArray(swarm.items);
}

/** An item record that has ended (it has a result); undefined otherwise. */
function resultOf(record: unknown): object | undefined {
  const result = (record as { result?: unknown } | null)?.result;
  return typeof result === 'object' && result !== null ? result : undefined;
}

export class SnapshotCompactor {
  private readonly appendedRows = new WeakSet<object>();
  /** The record appended for each item index of `swarmId`'s swarm (the session's own swarm: one per session). */
  private appendedItems: unknown[] = [];
  private swarmId: string | undefined;

  constructor(private readonly log: SettledLog) {}

  /** The state with settled agents and ended items left out, after appending the new ones to the log. */
  compact<T extends { agents?: unknown; swarm?: unknown }>(state: T): T {
    const lines: Parameters<SettledLog['append']>[0][number][] = [];
    const rows: SavedAgent[] = [];
    const agents: SavedAgent[] = [];
    for (const row of Array.isArray(state.agents) ? (state.agents as SavedAgent[]) : []) {
      if (!isSettledRow(row)) agents.push(row);
      else if (!this.appendedRows.has(row) && !readFromLog(row)) {
        lines.push({ agent: row });
        rows.push(row);
      }
    }
    const swarm = state.swarm;
    const ended: { index: number; record: unknown }[] = [];
    let items: unknown[] | undefined;
    if (isSwarm(swarm)) {
      if (swarm.swarmId !== this.swarmId) {
        this.swarmId = swarm.swarmId;
        this.appendedItems = [];
      }
      items = new Array<unknown>(swarm.items.length);
      for (let index = 0; index < swarm.items.length; index++) {
        const record = swarm.items[index];
        const result = resultOf(record);
        if (result === undefined) items[index] = record;
        else if (this.appendedItems[index] === record || readFromLog(result)) items[index] = null;
        else {
          lines.push({ swarm: swarm.swarmId, index, record });
          ended.push({ index, record });
        }
      }
    }
    const appended = this.log.append(lines);
    for (const row of rows) appended ? this.appendedRows.add(row) : agents.push(row);
    for (const { index, record } of ended) {
      if (appended) this.appendedItems[index] = record;
      items![index] = appended ? null : record;
    }
    return {
      ...state,
      ...(Array.isArray(state.agents) ? { agents } : {}),
      ...(items && isSwarm(swarm) ? { swarm: { ...swarm, items } } : {}),
    };
  }
}
