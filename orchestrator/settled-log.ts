// The session's settled log (`sessions/<id>/settled-<n>.jsonl`): the rows of settled swarm agents and the final
// records of ended items, appended once and never rewritten. A snapshot (state.json, version 3) leaves them out — an
// ended item is `null` in `swarm.items`, a settled agent is not in `agents` — so a snapshot costs what is in flight,
// not what the swarm ever ran, and the journal behind it can still be pruned. Readers put the two back together
// (mergeSettled): for an item, the snapshot's own entry is newer than a settled line (an item that changes after it
// settled is listed again until it settles again); for an agent, the settled row is its last word.
//
// Lines are appended just before the snapshot that leaves them out is taken, with one write(2) per batch and no
// fsync, like the journal: a process killed in between leaves lines for items the older snapshot still lists, which
// the rules above resolve.
import { readFileSync } from 'node:fs';
import { NumberedAppender } from './numbered-appender.js';
import type { SavedAgent } from '../protocol/run-state.js';
import { fileNumbers, numberedFile } from './numbered-files.js';

const STEM = 'settled';
/** A segment past this size is closed and the next batch starts a new one (readers read a segment at a time). */
const SEGMENT_BYTES = 64 * 1024 * 1024;

type SettledLine = { agent: SavedAgent } | { swarm: string; index: number; record: unknown };

/**
 * What a reader took from the log (an agent's row, an item's result), by identity: a resumed session does not
 * append again what it read, and a restored settled agent stays out of memory.
 */
const fromLog = new WeakSet<object>();

/** Whether `value` (a row, an item's result) was read from the settled log and not changed since. */
export function readFromLog(value: unknown): boolean {
  return typeof value === 'object' && value !== null && fromLog.has(value);
}

export class SettledLog {
  private readonly file: NumberedAppender;

  /** A reopened session goes on in a segment after its newest. */
  constructor(dir: string) {
    this.file = new NumberedAppender(dir, STEM);
  }

  /** Why the last append failed (the snapshot then keeps what it would have left out). */
  get failure(): string | undefined {
    return this.file.failure;
  }

  /** Appends the lines in one write; false (and nothing left out of the snapshot) when it fails. Never throws. */
  append(lines: readonly SettledLine[]): boolean {
    if (lines.length === 0) return true;
    let text = '';
    for (const line of lines) text += `${JSON.stringify(line)}\n`;
    if (this.file.size >= SEGMENT_BYTES) this.file.next();
    return this.file.append(text);
  }

  close(): void {
    this.file.close();
  }
}

/** What the settled log holds: each agent's last row, and each swarm's items' last records by index. */
export interface Settled {
  agents: Map<string, SavedAgent>;
  items: Map<string, Map<number, unknown>>;
}

/** Reads every segment in `dir`, oldest first; a line cut by a killed process is skipped. */
export function readSettled(dir: string): Settled {
  const settled: Settled = { agents: new Map(), items: new Map() };
  for (const n of fileNumbers(dir, STEM)) {
    let text: string;
    try {
      text = readFileSync(numberedFile(dir, STEM, n), 'utf8');
    } catch {
      continue;
    }
    for (let start = 0; start < text.length;) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const raw = text.slice(start, end);
      start = end + 1;
      if (raw) addLine(settled, raw);
    }
  }
  return settled;
}

function addLine(settled: Settled, raw: string): void {
  let line: Partial<{ agent: SavedAgent; swarm: string; index: number; record: unknown }>;
  try {
    line = JSON.parse(raw) as typeof line;
  } catch {
    // Only a batch's last line can be cut (one write each): what came before it is whole.
    return;
  }
  if (line.agent && typeof line.agent.id === 'string') {
    fromLog.add(line.agent);
    settled.agents.set(line.agent.id, line.agent);
  } else if (typeof line.swarm === 'string' && Number.isInteger(line.index) && line.record !== undefined) {
    let items = settled.items.get(line.swarm);
    if (!items) settled.items.set(line.swarm, (items = new Map()));
    items.set(line.index!, line.record);
    const result = (line.record as { result?: unknown } | null)?.result;
    if (typeof result === 'object' && result !== null) fromLog.add(result);
  }
}

/** `a-12` → 12, for putting settled agents back in spawn order; other ids (the main agent) sort first, as listed. */
function spawnNumber(id: string): number {
  const match = /^a-(\d+)$/.exec(id);
  return match ? Number(match[1]) : -1;
}

export type MergeResult = { ok: true; state: Record<string, unknown> } | { ok: false; error: string };

/**
 * A version-3 snapshot with its settled agents and ended items put back: the state every reader works from. An
 * item the snapshot marks settled (`null`) that the log does not hold is an error naming it (a settled file lost).
 */
export function mergeSettled(state: Record<string, unknown>, settled: Settled): MergeResult {
  const next = { ...state };
  if (settled.agents.size > 0 && Array.isArray(state.agents)) {
    // The agents not numbered `a-N` (the main agent) first, as listed; then every `a-N` in spawn order.
    const listed = (state.agents as SavedAgent[]).filter((a) => !settled.agents.has(a?.id));
    const keyed = [...listed, ...settled.agents.values()].map((agent) => ({ agent, n: spawnNumber(agent.id) }));
    keyed.sort((a, b) => a.n - b.n);
    next.agents = keyed.map((k) => k.agent);
  }
  const swarm = state.swarm as { swarmId?: unknown; items?: unknown } | undefined;
  if (!swarm || typeof swarm.swarmId !== 'string' || !Array.isArray(swarm.items)) return { ok: true, state: next };
  const records = settled.items.get(swarm.swarmId);
  const items = swarm.items as unknown[];
  if (!items.includes(null)) return { ok: true, state: next };
  const filled = new Array<unknown>(items.length);
  for (let i = 0; i < items.length; i++) {
    const record = items[i] ?? records?.get(i);
    if (record === undefined || record === null)
      return { ok: false, error: `item ${i} of swarm ${swarm.swarmId} is settled but no settled-*.jsonl holds it` };
    filled[i] = record;
  }
  next.swarm = { ...swarm, items: filled };
  return { ok: true, state: next };
}

/** `state` (a parsed state.json of the session in `dir`) with what its settled log holds put back. */
export function withSettled(dir: string, state: Record<string, unknown>): MergeResult {
  if (fileNumbers(dir, STEM).length === 0) return mergeSettled(state, { agents: new Map(), items: new Map() });
  return mergeSettled(state, readSettled(dir));
}
