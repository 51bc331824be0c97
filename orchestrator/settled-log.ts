// The session's settled log (`sessions/<id>/settled-<n>.jsonl`): the rows of settled swarm agents and the final
// records of ended items, appended once and never rewritten. A snapshot (state.json, version 3) leaves them out — an
// ended item is `null` in `swarm.items`, a settled agent is not in `agents` — so a snapshot costs what is in flight,
// not what the swarm ever ran, and the journal behind it can still be pruned. Readers put the two back together
// (mergeSettled). Each snapshot says where the log ended when it was written (`settled: {segment, offset}`): what
// the snapshot lists is newer than the lines before that place (an item retried, an agent a resume brought back),
// and older than the lines after it (those of a process killed before its next snapshot).
//
// Lines are appended just before the snapshot that leaves them out is written, with one write(2) and one fsync per
// batch: that snapshot is written with fsync too, so no crash leaves a snapshot pointing past lines that are lost.
import { readFileSync } from 'node:fs';
import { NumberedAppender } from './numbered-appender.js';
import type { SavedAgent, SettledPosition } from '../protocol/run-state.js';
import { fileNumbers, numberedFile } from './numbered-files.js';

/** The log's files: `settled-<n>.jsonl`. */
export const SETTLED_STEM = 'settled';
const STEM = SETTLED_STEM;
/** A segment past this size is closed and the next batch starts a new one (readers read a segment at a time). */
const SEGMENT_BYTES = 64 * 1024 * 1024;

type SettledLine = { agent: SavedAgent } | { swarm: string; index: number; record: unknown };

/**
 * What the log holds, by identity: rows and records appended to it, and rows and results a reader took from it. A
 * snapshot leaves them out without appending them again (rows and records are replaced when they change, never
 * changed in place), and a resume brings a settled agent back as its row alone.
 */
const onDisk = new WeakSet<object>();

/** Whether `value` (a row, an item's record or result) is in the settled log as it is now. */
export function inSettledLog(value: unknown): boolean {
  return typeof value === 'object' && value !== null && onDisk.has(value);
}

/** `values` are in the settled log from now on. */
export function markInSettledLog(values: readonly object[]): void {
  for (const value of values) onDisk.add(value);
}

export class SettledLog {
  private readonly file: NumberedAppender;

  /** A reopened session goes on in a segment after its newest. */
  constructor(dir: string) {
    this.file = new NumberedAppender(dir, STEM);
  }

  /** Appends the lines in one write and fsync; false (and nothing left out of the snapshot) when it fails. */
  append(lines: readonly SettledLine[]): boolean {
    if (lines.length === 0) return true;
    let text = '';
    for (const line of lines) text += `${JSON.stringify(line)}\n`;
    if (this.file.size >= SEGMENT_BYTES) this.file.next();
    return this.file.append(text, true);
  }

  /** Where the log ends now: a snapshot written next lists what is newer than every line before this place. */
  position(): SettledPosition {
    return { segment: this.file.number, offset: this.file.size };
  }

  close(): void {
    this.file.close();
  }
}

/** A line's place in the log, with what it holds. */
interface Placed<T> {
  value: T;
  segment: number;
  offset: number;
}

/** What the settled log holds: each agent's last row, and each swarm's items' last records by index. */
export interface Settled {
  agents: Map<string, Placed<SavedAgent>>;
  items: Map<string, Map<number, Placed<unknown>>>;
}

/** Reads every segment in `dir`, oldest first; a line cut by a killed process is skipped. */
export function readSettled(dir: string): Settled {
  const settled: Settled = { agents: new Map(), items: new Map() };
  for (const n of fileNumbers(dir, STEM)) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(numberedFile(dir, STEM, n));
    } catch {
      continue;
    }
    // Offsets in bytes, as a snapshot's position is.
    for (let start = 0; start < bytes.length;) {
      let end = bytes.indexOf(10, start);
      if (end < 0) end = bytes.length;
      if (end > start) addLine(settled, bytes.toString('utf8', start, end), n, start);
      start = end + 1;
    }
  }
  return settled;
}

function addLine(settled: Settled, raw: string, segment: number, offset: number): void {
  let line: Partial<{ agent: SavedAgent; swarm: string; index: number; record: unknown }>;
  try {
    line = JSON.parse(raw) as typeof line;
  } catch {
    // Only a batch's last line can be cut (one write each): what came before it is whole.
    return;
  }
  if (line.agent && typeof line.agent.id === 'string') {
    onDisk.add(line.agent);
    settled.agents.set(line.agent.id, { value: line.agent, segment, offset });
  } else if (typeof line.swarm === 'string' && Number.isInteger(line.index) && line.record !== undefined) {
    let items = settled.items.get(line.swarm);
    if (!items) settled.items.set(line.swarm, (items = new Map()));
    items.set(line.index!, { value: line.record, segment, offset });
    readFromLog(line.record);
  }
}

/** An item's record read from the log: its result is in the log as it is (a snapshot leaves it out). */
export function readFromLog(record: unknown): void {
  const result = (record as { result?: unknown } | null)?.result;
  if (typeof result === 'object' && result !== null) onDisk.add(result);
}

/** `a-12` → 12, for putting settled agents back in spawn order; other ids (the main agent) sort first, as listed. */
export function spawnNumber(id: string): number {
  const match = /^a-(\d+)$/.exec(id);
  return match ? Number(match[1]) : -1;
}

export type MergeResult = { ok: true; state: Record<string, unknown> } | { ok: false; error: string };

/** The snapshot's `settled` field as a position, or undefined (every line is then newer than the snapshot). */
function positionOf(value: unknown): SettledPosition | undefined {
  const p = value as Partial<SettledPosition> | undefined;
  return p && Number.isInteger(p.segment) && Number.isInteger(p.offset) ? (p as SettledPosition) : undefined;
}

/**
 * A version-3 snapshot with its settled agents and ended items put back: the state every reader works from. A
 * listed agent or item stays as listed unless the log has a line for it written after the snapshot. An item the
 * snapshot marks settled (`null`) that the log does not hold is an error naming it (a settled file lost).
 */
export function mergeSettled(state: Record<string, unknown>, settled: Settled): MergeResult {
  const next = { ...state };
  const at = positionOf(state.settled);
  const newer = (line: Placed<unknown>) =>
    !at || line.segment > at.segment || (line.segment === at.segment && line.offset >= at.offset);
  if (settled.agents.size > 0 && Array.isArray(state.agents)) {
    const listed = (state.agents as SavedAgent[]).map((agent) => {
      const line = settled.agents.get(agent?.id);
      return line && newer(line) ? line.value : agent;
    });
    const ids = new Set(listed.map((agent) => agent?.id));
    const unlisted = [...settled.agents.values()].filter((line) => !ids.has(line.value.id)).map((l) => l.value);
    // The agents not numbered `a-N` (the main agent) first, as listed; then every `a-N` in spawn order.
    const keyed = [...listed, ...unlisted].map((agent) => ({ agent, n: spawnNumber(agent.id) }));
    keyed.sort((a, b) => a.n - b.n);
    next.agents = keyed.map((k) => k.agent);
  }
  const swarm = state.swarm as { swarmId?: unknown; items?: unknown } | undefined;
  if (!swarm || typeof swarm.swarmId !== 'string' || !Array.isArray(swarm.items)) return { ok: true, state: next };
  const records = settled.items.get(swarm.swarmId);
  const items = swarm.items as unknown[];
  if (!records && !items.includes(null)) return { ok: true, state: next };
  const filled = new Array<unknown>(items.length);
  for (let i = 0; i < items.length; i++) {
    const line = records?.get(i);
    const record = items[i] === null || (line && newer(line)) ? line?.value : items[i];
    if (record === undefined || record === null)
      return { ok: false, error: `item ${i} of swarm ${swarm.swarmId} is settled but no settled-*.jsonl holds it` };
    filled[i] = record;
  }
  next.swarm = { ...swarm, items: filled };
  return { ok: true, state: next };
}

/** `state` (a parsed state.json of the session in `dir`) with what its settled log holds put back. */
export function withSettled(dir: string, state: Record<string, unknown>): MergeResult {
  return mergeSettled(state, readSettled(dir));
}
