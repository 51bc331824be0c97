// Writes each big swarm's timeline file (timeline-file.ts) from the run's events: item changes, its agents' tokens
// and retries. Memory stays bounded by what runs: a record lives here from the item's launch to its end (and until
// the next flush), an item never moved costs one bit, and changes reach the file four times a second, a run of
// neighbouring records in one write. A resumed swarm goes on in the file it had. The file is a view for people: a
// process killed between two flushes leaves its last quarter second's changes out, and the resume's own events set
// them right (an item that ended in that moment keeps its outcome, not its times).
import { closeSync, ftruncateSync, openSync, appendFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { EventBus, EventOf } from './events.js';
import { totalTokens } from './types.js';
import { readRange } from './read-range.js';
import { writeItemLabels } from './timeline-labels.js';
import {
  decodeHeader,
  encodeHeader,
  HEADER_BYTES,
  ITEM_STATES,
  readRecord,
  reasonsFileName,
  RECORD_BYTES,
  TIMELINE_FROM_ITEMS,
  timelineFileName,
  writeRecord,
  type TimelineHeader,
  type TimelineRecord,
} from './timeline-file.js';

/** A resume restating an item that ended before it (the file holds it, unless its killed process had not). */
const RESTATED = 'finished before the resume';
const FLUSH_MS = 250;
/** Changed records held at most before they are written (a flush's worth, unless a resume restates them all). */
const MAX_DIRTY = 1 << 16;
/** Records read at once from a resumed swarm's file (its start reads every item in order). */
const READ_WINDOW = 4096;
const LIVE = new Set([1, 2, 3]); // launched, rate_limited, verifying
const ENDED = new Set(['completed', 'failed', 'aborted', 'conflict', 'waiting']);

export interface TimelineRecorder {
  /** Writes what changed since the last flush. */
  flush(): void;
  /** Stops listening, writes what is left and closes the files. */
  close(): void;
}

const empty = (): TimelineRecord => ({
  start: -1,
  end: -1,
  tokens: 0,
  agent: 0,
  state: 0,
  verdict: 0,
  rounds: 0,
  retries: 0,
});

class SwarmTimelineWriter {
  private readonly cache = new Map<number, TimelineRecord>();
  private readonly dirty = new Set<number>();
  private reasons = '';
  /** A new file: items not yet touched are zeros, read without reading. */
  private readonly touched: Uint8Array | undefined;
  private window: { first: number; bytes: Buffer } | undefined;
  /** An item's agents (worker, verifiers) while they run: their tokens and retries land on its record. */
  readonly agents = new Map<string, number>();

  constructor(
    private readonly fd: number,
    readonly header: TimelineHeader,
    private readonly reasonsPath: string,
    fresh: boolean,
  ) {
    this.touched = fresh ? new Uint8Array(Math.ceil(header.count / 8)) : undefined;
  }

  untouched(index: number): boolean {
    return this.touched !== undefined && (this.touched[index >> 3]! & (1 << (index & 7))) === 0;
  }

  get(index: number): TimelineRecord {
    const known = this.cache.get(index);
    if (known) return known;
    let record: TimelineRecord;
    if (this.untouched(index)) record = empty();
    else {
      let w = this.window;
      if (!w || index < w.first || index >= w.first + w.bytes.length / RECORD_BYTES) {
        const bytes = readRange(this.fd, HEADER_BYTES + index * RECORD_BYTES, READ_WINDOW * RECORD_BYTES);
        w = this.window = { first: index, bytes: bytes.subarray(0, bytes.length - (bytes.length % RECORD_BYTES)) };
      }
      const at = (index - w.first) * RECORD_BYTES;
      record = at + RECORD_BYTES <= w.bytes.length ? readRecord(w.bytes, at) : empty();
    }
    return record;
  }

  /**
   * Item `index` is now `record` (from `get`): kept until it is written, and while it runs. True once so many wait
   * that they should be written now (a resume restates every item in one turn of the loop: never all held).
   */
  changed(index: number, record: TimelineRecord): boolean {
    this.cache.set(index, record);
    this.dirty.add(index);
    if (this.touched) this.touched[index >> 3]! |= 1 << (index & 7);
    return this.dirty.size >= MAX_DIRTY;
  }

  reason(index: number, reason: string): void {
    this.reasons += `${JSON.stringify({ i: index, r: reason })}\n`;
  }

  ended(at: number): void {
    this.header.endedAt = at;
    writeSync(this.fd, encodeHeader(this.header), 0, HEADER_BYTES, 0);
  }

  /** Neighbouring changed records in one write each; then only running items' records stay. */
  flush(): void {
    if (this.reasons) {
      appendFileSync(this.reasonsPath, this.reasons);
      this.reasons = '';
    }
    if (this.dirty.size === 0) return;
    const indices = Int32Array.from(this.dirty).sort();
    this.dirty.clear();
    this.window = undefined;
    for (let k = 0; k < indices.length;) {
      let last = k;
      while (last + 1 < indices.length && indices[last + 1] === indices[last]! + 1) last++;
      const bytes = Buffer.allocUnsafe((last - k + 1) * RECORD_BYTES);
      for (let j = k; j <= last; j++) writeRecord(bytes, (j - k) * RECORD_BYTES, this.cache.get(indices[j]!)!);
      writeSync(this.fd, bytes, 0, bytes.length, HEADER_BYTES + indices[k]! * RECORD_BYTES);
      k = last + 1;
    }
    for (const [index, record] of this.cache) if (!LIVE.has(record.state)) this.cache.delete(index);
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  /** Lets go of the file and of what waits to be written (after a write failed). */
  abandon(): void {
    this.cache.clear();
    this.dirty.clear();
    this.agents.clear();
    try {
      closeSync(this.fd);
    } catch {
      // Already closed.
    }
  }
}

/** The swarm's writer: its file as a resume left it (same swarm, same count), or a new one. */
function openWriter(dir: string, event: EventOf<'swarm.start'>): SwarmTimelineWriter | undefined {
  const name = timelineFileName(event.swarmId);
  if (!name) return undefined;
  const path = join(dir, name);
  const count = event.items.length;
  let fd: number;
  try {
    fd = openSync(path, 'r+');
    const header = decodeHeader(readRange(fd, 0, HEADER_BYTES));
    if (typeof header !== 'string' && header.swarmId === event.swarmId && header.count === count) {
      delete header.endedAt;
      if (event.maxConcurrency !== undefined) header.maxConcurrency = event.maxConcurrency;
      writeSync(fd, encodeHeader(header), 0, HEADER_BYTES, 0);
      return new SwarmTimelineWriter(fd, header, join(dir, reasonsFileName(event.swarmId)), false);
    }
    closeSync(fd);
  } catch {
    // No file yet.
  }
  const header: TimelineHeader = {
    swarmId: event.swarmId,
    count,
    t0: event.ts,
    description: event.description,
    role: event.role,
    ...(event.parentId !== undefined ? { parentId: event.parentId } : {}),
    ...(event.maxConcurrency !== undefined ? { maxConcurrency: event.maxConcurrency } : {}),
  };
  fd = openSync(path, 'w+', 0o644);
  writeSync(fd, encodeHeader(header), 0, HEADER_BYTES, 0);
  ftruncateSync(fd, HEADER_BYTES + count * RECORD_BYTES);
  appendFileSync(join(dir, reasonsFileName(event.swarmId)), '');
  writeItemLabels(dir, event.swarmId, event.items);
  return new SwarmTimelineWriter(fd, header, join(dir, reasonsFileName(event.swarmId)), true);
}

const agentNumber = (id: string | undefined) => (id && /^a-\d+$/.test(id) ? Number(id.slice(2)) : 0);

/** Subscribes to the bus and keeps a timeline file for every swarm of TIMELINE_FROM_ITEMS items or more. */
export function recordSwarmTimelines(bus: EventBus, dir: string, flushMs = FLUSH_MS): TimelineRecorder {
  const writers = new Map<string, SwarmTimelineWriter>();
  let timer: NodeJS.Timeout | undefined;
  let failed = false;
  const flush = () => {
    timer = undefined;
    for (const writer of writers.values()) guard(() => writer.flush());
  };
  const soon = () => (timer ??= setTimeout(flush, flushMs).unref());
  // A file that cannot be written costs the console its picture, never the run: said once, then left alone.
  const guard = (work: () => void) => {
    if (failed) return;
    try {
      work();
    } catch (error) {
      failed = true;
      // Nothing more is kept for the files: a swarm that goes on must not hold its changes in memory instead.
      for (const writer of writers.values()) writer.abandon();
      writers.clear();
      bus.emit({
        type: 'log',
        level: 'warn',
        message: `the swarm timeline in ${dir} could not be written (${(error as Error).message}); the console will show less of this swarm`,
      });
    }
  };
  const changed = (w: SwarmTimelineWriter, index: number, record: TimelineRecord) => {
    if (w.changed(index, record)) guard(() => w.flush());
    else soon();
  };
  /** An event of an item's agent (its worker or a verifier, while it runs) changes that item's record. */
  const onItemOf = (
    e: { swarmId?: string; agentId: string },
    change: (record: TimelineRecord, w: SwarmTimelineWriter) => void,
  ) => {
    const w = e.swarmId === undefined ? undefined : writers.get(e.swarmId);
    const i = w?.agents.get(e.agentId);
    if (!w || i === undefined) return;
    const record = w.get(i);
    change(record, w);
    changed(w, i, record);
  };
  const offs = [
    bus.on('swarm.start', (e) => {
      if (e.items.length < TIMELINE_FROM_ITEMS || writers.has(e.swarmId)) return;
      guard(() => {
        const writer = openWriter(dir, e);
        if (writer) writers.set(e.swarmId, writer);
      });
    }),
    bus.on('swarm.item', (e) => {
      const w = writers.get(e.swarmId);
      if (!w || e.index < 0 || e.index >= w.header.count) return;
      const i = e.index;
      const state = ITEM_STATES.indexOf(e.state);
      if (state === 0 && e.reason === undefined && w.untouched(i)) return;
      const r = w.get(i);
      // Restated as it already is: a resume's item that never ran, or one that ended before it and was written.
      if (r.state === state && (state === 0 || e.reason === RESTATED)) return;
      r.state = state;
      // An item that ended before the resume, in the moment its killed process had not written yet: its outcome
      // now (its times were not kept).
      if (e.reason === RESTATED && e.verdict !== undefined) r.verdict = e.verdict === 'pass' ? 1 : 2;
      if (e.reason !== RESTATED) {
        const t = e.ts - w.header.t0;
        if (e.state === 'launched') {
          if (r.start < 0) r.start = t;
          r.agent = agentNumber(e.agentId) || r.agent;
          if (e.agentId !== undefined) w.agents.set(e.agentId, i);
        }
        if (e.verifierId !== undefined && e.state === 'verifying') w.agents.set(e.verifierId, i);
        if (e.state !== 'queued') r.end = t;
        if (e.verdict !== undefined) {
          r.verdict = e.verdict === 'pass' ? 1 : 2;
          r.rounds = e.rounds ?? r.rounds + 1;
        }
        if (ENDED.has(e.state) && e.reason !== undefined) w.reason(i, e.reason);
        else if (e.state === 'completed' && e.attempts) w.reason(i, '');
      }
      changed(w, i, r);
    }),
    bus.on('agent.end', (e) =>
      onItemOf(e, (record, w) => {
        w.agents.delete(e.agentId);
        record.tokens += totalTokens(e.usage);
      }),
    ),
    bus.on('model.retry', (e) => onItemOf(e, (record) => record.retries++)),
    bus.on('swarm.end', (e) => {
      const w = writers.get(e.swarmId);
      if (w) guard(() => (w.flush(), w.ended(e.ts)));
    }),
  ];
  return {
    flush,
    close() {
      for (const off of offs) off();
      if (timer) clearTimeout(timer);
      timer = undefined;
      for (const writer of writers.values()) guard(() => writer.close());
      writers.clear();
    },
  };
}
