// What a snapshot (state.json) leaves out: the rows of agents that have settled and the records of items that have
// ended, each appended to the settled log once (settled-log.ts) and `null` / absent in every snapshot after. What
// the log holds is known by identity (a row or record that changes is a new object), so each snapshot appends only
// what settled since the last one; an append that fails leaves them in the snapshot, as before.
import type { SavedAgent } from '../protocol/run-state.js';
import { isSettledRow } from './agent-directory.js';
import { inSettledLog, markInSettledLog, type SettledLog } from './settled-log.js';

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
  constructor(private readonly log: SettledLog) {}

  /** The state with settled agents and ended items left out, after appending the new ones to the log. */
  compact<T extends { agents?: unknown; swarm?: unknown }>(state: T): T {
    const lines: Parameters<SettledLog['append']>[0][number][] = [];
    const rows: SavedAgent[] = [];
    const agents: SavedAgent[] = [];
    for (const row of Array.isArray(state.agents) ? (state.agents as SavedAgent[]) : []) {
      if (!isSettledRow(row)) agents.push(row);
      else if (!inSettledLog(row)) {
        lines.push({ agent: row });
        rows.push(row);
      }
    }
    const swarm = state.swarm;
    const ended: { index: number; record: object }[] = [];
    let items: unknown[] | undefined;
    if (isSwarm(swarm)) {
      items = new Array<unknown>(swarm.items.length);
      for (let index = 0; index < swarm.items.length; index++) {
        const record = swarm.items[index];
        const result = resultOf(record);
        if (result === undefined) items[index] = record;
        else if (inSettledLog(record) || inSettledLog(result)) items[index] = null;
        else {
          lines.push({ swarm: swarm.swarmId, index, record });
          ended.push({ index, record: record as object });
        }
      }
    }
    // What the log could not take stays in the snapshot.
    const appended = this.log.append(lines);
    if (appended) markInSettledLog([...rows, ...ended.map((e) => e.record)]);
    else agents.push(...rows);
    for (const { index, record } of ended) items![index] = appended ? null : record;
    return {
      ...state,
      ...(Array.isArray(state.agents) ? { agents } : {}),
      ...(items && isSwarm(swarm) ? { swarm: { ...swarm, items } } : {}),
    };
  }
}
