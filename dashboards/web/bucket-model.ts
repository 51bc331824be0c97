// A big swarm on the session page, from its timeline file (orchestrator/timeline-file.ts), never from events.jsonl:
// rows per bucket of items (at most BUCKET_ROWS, each a span of neighbouring items, with how many are in each state),
// and a bucket's items one by one when a person drills down. Both come in the shape of the console's per-item
// timeline (SwarmTimeline), so the page draws, hovers, zooms and filters them with the same code.
import {
  ITEM_STATES,
  readReasons,
  readRecord,
  TimelineReader,
  type TimelineHeader,
} from '../../orchestrator/timeline-file.js';
import { readItemLabels } from '../../orchestrator/timeline-labels.js';
import type { SwarmTimeline } from './session-model.js';
import { cutReason } from './fold-errors.js';

/** Rows of a bucketed swarm at most. */
export const BUCKET_ROWS = 1000;
/** Items one drill-down may ask for at most. */
export const DRILL_MAX = 10_000;

const STATES = ITEM_STATES.length;
const RUNNING = [1, 2, 3];
// The state a bucket that ended shows: its worst item's, in this order.
const WORST_FIRST = ['failed', 'conflict', 'aborted', 'waiting', 'completed'].map((s) =>
  ITEM_STATES.indexOf(s as (typeof ITEM_STATES)[number]),
);

/** Items per bucket: 1, 2 or 5 × a power of ten, the smallest that keeps the rows within BUCKET_ROWS. */
export function bucketSize(count: number): number {
  for (let scale = 1; ; scale *= 10)
    for (const step of [1, 2, 5]) if (Math.ceil(count / (step * scale)) <= BUCKET_ROWS) return step * scale;
}

/** What a bucketed swarm adds to its timeline: the items per row, the swarm's item count and per-row state counts. */
export interface SwarmBuckets {
  size: number;
  count: number;
  /** Flat: row r's count of items in state k at r × 9 + k (ITEM_STATES' order). */
  states: number[];
  /** Per row: its items whose last verdict failed. */
  verdictFails: number[];
}

/** Where a swarm's record times sit on the page's clock (ms after the session's t0). */
const shift = (header: TimelineHeader, t0: number) => header.t0 - t0;

function timelineBase(header: TimelineHeader): Omit<SwarmTimeline, 'items' | 'agentIds'> {
  const base: Omit<SwarmTimeline, 'items' | 'agentIds'> = {
    id: header.swarmId,
    description: header.description,
    role: header.role,
    startedAt: header.t0,
    changes: [],
    marks: [],
    capacity: [],
    counts: {},
    rounds: [],
    verdicts: [],
    tokens: [],
    reasons: [],
    verifiers: [],
    verifierIds: [],
  };
  if (header.parentId !== undefined) base.parentId = header.parentId;
  if (header.maxConcurrency !== undefined) base.maxConcurrency = header.maxConcurrency;
  if (header.endedAt !== undefined) base.endedAt = header.endedAt;
  return base;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** The swarm as rows of buckets, read in one pass over its records (a million items: 20 MB, about 50 ms). */
export function bucketTimeline(reader: TimelineReader, t0: number): SwarmTimeline & { buckets: SwarmBuckets } {
  const { header } = reader;
  const size = bucketSize(header.count);
  const rows = Math.ceil(header.count / size);
  const states = new Array<number>(rows * STATES).fill(0);
  const first = new Array<number>(rows).fill(-1);
  const last = new Array<number>(rows).fill(-1);
  const tokens = new Array<number>(rows).fill(0);
  const failedVerdicts = new Array<number>(rows).fill(0);
  reader.forEach(0, header.count, (index, bytes, at) => {
    const row = Math.floor(index / size);
    const start = bytes.readUInt32LE(at) - 1;
    const end = bytes.readUInt32LE(at + 4) - 1;
    states[row * STATES + (bytes[at + 16]! < STATES ? bytes[at + 16]! : 0)]!++;
    if (start >= 0 && (first[row]! < 0 || start < first[row]!)) first[row] = start;
    if (end > last[row]!) last[row] = end;
    tokens[row]! += bytes.readUInt32LE(at + 8);
    if (bytes[at + 17] === 2) failedVerdicts[row]!++;
  });
  const moved = shift(header, t0);
  const view: SwarmTimeline & { buckets: SwarmBuckets } = {
    ...timelineBase(header),
    items: [],
    agentIds: [],
    buckets: { size, count: header.count, states, verdictFails: failedVerdicts },
  };
  const counts: Record<string, number> = {};
  for (let row = 0; row < rows; row++) {
    const from = row * size;
    const to = Math.min(header.count, from + size);
    view.items.push(to - from === 1 ? `item ${fmt(from + 1)}` : `items ${fmt(from + 1)}–${fmt(to)}`);
    view.agentIds.push('');
    const mix: string[] = [];
    let running = 0;
    let queued = 0;
    for (let k = 0; k < STATES; k++) {
      const n = states[row * STATES + k]!;
      if (n === 0) continue;
      counts[ITEM_STATES[k]!] = (counts[ITEM_STATES[k]!] ?? 0) + n;
      mix.push(`${fmt(n)} ${ITEM_STATES[k]!.replace('_', ' ')}`);
      if (RUNNING.includes(k)) running += n;
      if (k === 0) queued += n;
    }
    // A bucket that ended is drawn in its worst state over its whole span (a run of items, not one item's life);
    // one with an item running is drawn running; one with items still to start, running until it stopped.
    const worst = WORST_FIRST.find((k) => states[row * STATES + k]! > 0);
    const ended = running === 0 && queued === 0 && worst !== undefined;
    if (first[row]! >= 0) view.changes.push(row, first[row]! + moved, ended ? worst : 1);
    if (running === 0 && queued > 0 && first[row]! >= 0) view.changes.push(row, last[row]! + moved, 0);
    else if (ended) view.changes.push(row, last[row]! + moved, worst);
    view.tokens.push(tokens[row]!);
    view.rounds.push(0);
    view.verdicts.push(failedVerdicts[row]! > 0 ? 2 : 0);
    view.reasons.push(
      mix.join(' · ') + (failedVerdicts[row]! > 0 ? ` · ${fmt(failedVerdicts[row]!)} with a failing verdict` : ''),
    );
  }
  view.counts = counts;
  return view;
}

/** Items `from`..`to` (exclusive) one by one, with their labels, workers, tokens, verdicts and reasons. */
export function itemSlice(
  dir: string,
  reader: TimelineReader,
  from: number,
  to: number,
  t0: number,
): SwarmTimeline & { offset: number } {
  const { header } = reader;
  const end = Math.min(to, header.count);
  const labels = readItemLabels(dir, header.swarmId, from, end);
  const reasons = readReasons(dir, header.swarmId, from, end);
  const moved = shift(header, t0);
  const view: SwarmTimeline & { offset: number } = {
    ...timelineBase(header),
    items: [],
    agentIds: [],
    offset: from,
  };
  const counts: Record<string, number> = {};
  reader.forEach(from, end, (index, bytes, at) => {
    const k = index - from;
    const r = readRecord(bytes, at);
    const state = ITEM_STATES[r.state] ?? 'queued';
    counts[state] = (counts[state] ?? 0) + 1;
    view.items.push(labels[k] ?? `item ${index + 1}`);
    view.agentIds.push(r.agent > 0 ? `a-${r.agent}` : '');
    if (r.start >= 0) view.changes.push(k, r.start + moved, 1);
    if (r.state !== 1 && (r.state !== 0 || r.start >= 0) && r.end >= 0) view.changes.push(k, r.end + moved, r.state);
    view.tokens.push(r.tokens);
    view.rounds.push(r.rounds);
    view.verdicts.push(r.verdict);
    view.reasons.push(cutReason(reasons.get(index) ?? ''));
  });
  view.counts = counts;
  return view;
}

/** The swarm ids whose timeline file is in `dir` and readable, with their readers (the caller closes them). */
export function openTimelines(dir: string, swarmIds: readonly string[]): TimelineReader[] {
  const readers: TimelineReader[] = [];
  for (const id of swarmIds) {
    const reader = TimelineReader.open(dir, id);
    if (typeof reader !== 'string') readers.push(reader);
  }
  return readers;
}
