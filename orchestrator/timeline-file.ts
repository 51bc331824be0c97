// A big swarm's timeline on disk (issue 31): `timeline-<swarmId>.bin` in the session folder, written as the run goes
// (timeline-recorder.ts) so that the console and `murmur report` show a swarm of a million items without reading its
// events.jsonl (a gigabyte at that size). A header of HEADER_BYTES (a first line naming the format, then the swarm as
// JSON, padded with NULs), then one fixed record of RECORD_BYTES per item in index order: item i's record is at
// HEADER_BYTES + i × RECORD_BYTES, so a range of items is one read. Why items failed sit beside it, one JSON line
// each, in `timeline-<swarmId>.reasons.jsonl` (the last line for an item wins).
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { readRange } from './read-range.js';
import type { SwarmItemState } from './events.js';

export const TIMELINE_MAGIC = 'murmur-timeline 1\n';
export const HEADER_BYTES = 4096;
export const RECORD_BYTES = 20;
/** Swarms of at least this many items get a timeline file, and the console shows them by buckets of items. */
export const TIMELINE_FROM_ITEMS = 5_000;

/** Item states by index: a record's `state`, and the console's numbers for them (it colours them in this order). */
export const ITEM_STATES: readonly SwarmItemState[] = [
  'queued',
  'launched',
  'rate_limited',
  'verifying',
  'completed',
  'failed',
  'aborted',
  'conflict',
  'waiting',
];

/** What the header says of the swarm. Times are epoch ms; a record's are ms after `t0`. */
export interface TimelineHeader {
  swarmId: string;
  count: number;
  /** The swarm's first start (a resume keeps it). */
  t0: number;
  description: string;
  role: string;
  parentId?: string;
  maxConcurrency?: number;
  endedAt?: number;
}

/**
 * One item as recorded. start/end: ms after t0 (-1 none): its first launch, and its last change. state: the index in
 * ITEM_STATES (0 queued). agent: N of its worker `a-N` (0 none). verdict: 0 none, 1 pass, 2 fail.
 */
export interface TimelineRecord {
  start: number;
  end: number;
  tokens: number;
  agent: number;
  state: number;
  verdict: number;
  rounds: number;
  retries: number;
}

const SAFE_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const FILE_NAME = /^timeline-([A-Za-z0-9_.-]{1,64})\.bin$/;

/** The file's name for a swarm, or undefined when its id cannot name a file. */
export function timelineFileName(swarmId: string): string | undefined {
  return SAFE_ID.test(swarmId) ? `timeline-${swarmId}.bin` : undefined;
}

export function reasonsFileName(swarmId: string): string {
  return `timeline-${swarmId}.reasons.jsonl`;
}

/** The swarm ids of a session folder's timeline files, given the folder's names. */
export function timelineSwarmIds(names: readonly string[]): string[] {
  return names.flatMap((name) => FILE_NAME.exec(name)?.[1] ?? []);
}

/** The header as bytes (the JSON cut to fit: a description is shortened, never the numbers). */
export function encodeHeader(header: TimelineHeader): Buffer {
  let json = JSON.stringify(header);
  const room = HEADER_BYTES - TIMELINE_MAGIC.length - 2;
  if (Buffer.byteLength(json) > room) {
    const cut = Math.max(0, header.description.length - (Buffer.byteLength(json) - room) - 1);
    json = JSON.stringify({ ...header, description: `${header.description.slice(0, cut)}…` });
  }
  const bytes = Buffer.alloc(HEADER_BYTES);
  bytes.write(`${TIMELINE_MAGIC}${json}\n`, 0, 'utf8');
  return bytes;
}

/** The header of a file's first bytes, or why they are not one. */
export function decodeHeader(bytes: Buffer): TimelineHeader | string {
  const text = bytes.toString('utf8', 0, Math.min(bytes.length, HEADER_BYTES));
  if (!text.startsWith(TIMELINE_MAGIC)) return `does not start with "${TIMELINE_MAGIC.trim()}"`;
  const line = text.slice(TIMELINE_MAGIC.length, text.indexOf('\n', TIMELINE_MAGIC.length));
  try {
    const header = JSON.parse(line) as TimelineHeader;
    if (typeof header.swarmId !== 'string' || !Number.isInteger(header.count) || typeof header.t0 !== 'number')
      return 'has a header without swarmId, count and t0';
    return header;
  } catch {
    return 'has a header that is not JSON';
  }
}

// Times are stored plus one, so a record never written (zeros) reads as "none".
const U32_MAX = 0xffffffff;
const clampU32 = (n: number) => (n <= 0 ? 0 : n >= U32_MAX ? U32_MAX : Math.floor(n));

export function writeRecord(bytes: Buffer, at: number, r: TimelineRecord): void {
  bytes.writeUInt32LE(r.start < 0 ? 0 : clampU32(r.start + 1), at);
  bytes.writeUInt32LE(r.end < 0 ? 0 : clampU32(r.end + 1), at + 4);
  bytes.writeUInt32LE(clampU32(r.tokens), at + 8);
  bytes.writeUInt32LE(clampU32(r.agent), at + 12);
  bytes[at + 16] = r.state;
  bytes[at + 17] = r.verdict;
  bytes[at + 18] = Math.min(255, r.rounds);
  bytes[at + 19] = Math.min(255, r.retries);
}

export function readRecord(bytes: Buffer, at: number): TimelineRecord {
  return {
    start: bytes.readUInt32LE(at) - 1,
    end: bytes.readUInt32LE(at + 4) - 1,
    tokens: bytes.readUInt32LE(at + 8),
    agent: bytes.readUInt32LE(at + 12),
    state: bytes[at + 16]!,
    verdict: bytes[at + 17]!,
    rounds: bytes[at + 18]!,
    retries: bytes[at + 19]!,
  };
}

/** A timeline file opened for reading: its header, and its records a range at a time. */
export class TimelineReader {
  private constructor(
    private readonly fd: number,
    readonly header: TimelineHeader,
  ) {}

  /** The swarm's file in `dir`, or why it cannot be read (an error naming the file). */
  static open(dir: string, swarmId: string): TimelineReader | string {
    const name = timelineFileName(swarmId);
    if (!name) return `swarm id ${JSON.stringify(swarmId)} names no timeline file`;
    const path = join(dir, name);
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (error) {
      return `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
    }
    const header = decodeHeader(readRange(fd, 0, HEADER_BYTES));
    if (typeof header === 'string' || header.swarmId !== swarmId) {
      closeSync(fd);
      return `${path} ${typeof header === 'string' ? header : `is swarm ${header.swarmId}'s`}`;
    }
    return new TimelineReader(fd, header);
  }

  /** Calls `each` with every record from `from` to `to` (exclusive), read a block at a time. */
  forEach(from: number, to: number, each: (index: number, bytes: Buffer, at: number) => void): void {
    const end = Math.min(to, this.header.count);
    const block = 1 << 16;
    const bytes = Buffer.allocUnsafe(block * RECORD_BYTES);
    for (let first = Math.max(0, from); first < end; first += block) {
      const n = Math.min(block, end - first);
      const want = n * RECORD_BYTES;
      let read = 0;
      while (read < want) {
        const got = readSync(this.fd, bytes, read, want - read, HEADER_BYTES + first * RECORD_BYTES + read);
        if (got === 0) break;
        read += got;
      }
      // A file cut short (a disk that filled) reads as records never written.
      if (read < want) bytes.fill(0, read, want);
      for (let k = 0; k < n; k++) each(first + k, bytes, k * RECORD_BYTES);
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Why items of `from`..`to` (exclusive) ended as they did, from the reasons file (none: an empty map). */
export function readReasons(dir: string, swarmId: string, from: number, to: number): Map<number, string> {
  const reasons = new Map<number, string>();
  let text: string;
  try {
    text = readFileSync(join(dir, reasonsFileName(swarmId)), 'utf8');
  } catch {
    return reasons;
  }
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const { i, r } = JSON.parse(line) as { i: number; r: string };
      if (i >= from && i < to) {
        if (r) reasons.set(i, r);
        else reasons.delete(i);
      }
    } catch {
      // A line cut by a killed process.
    }
  }
  return reasons;
}

/**
 * What a list of sessions says of a big swarm, from its timeline alone (its settled log is hundreds of megabytes at
 * a million items): its items, how many completed, and its agents (a worker per item that started, a verifier per
 * verify round). Undefined when the swarm has no readable timeline.
 */
export function tallyTimeline(
  dir: string,
  swarmId: string,
): { count: number; completed: number; agents: number } | undefined {
  const reader = TimelineReader.open(dir, swarmId);
  if (typeof reader === 'string') return undefined;
  const completed = ITEM_STATES.indexOf('completed');
  const tally = { count: reader.header.count, completed: 0, agents: 0 };
  try {
    reader.forEach(0, reader.header.count, (_index, bytes, at) => {
      if (bytes[at + 16] === completed) tally.completed++;
      if (bytes.readUInt32LE(at + 12) > 0) tally.agents++;
      tally.agents += bytes[at + 18]!;
    });
  } finally {
    reader.close();
  }
  return tally;
}

/**
 * The items of a big swarm that `--retry-failed` would run again (failed, conflicted, aborted, or failed by their
 * verifier), from its timeline: how many, and the first `limit` of them by index with their outcome and worker.
 */
export function badlyEnded(
  dir: string,
  swarmId: string,
  limit: number,
): { count: number; first: { index: number; outcome: string; agent: number }[] } | undefined {
  const reader = TimelineReader.open(dir, swarmId);
  if (typeof reader === 'string') return undefined;
  const bad = new Set(['failed', 'conflict', 'aborted'].map((s) => ITEM_STATES.indexOf(s as SwarmItemState)));
  const ended = ITEM_STATES.indexOf('completed');
  const found = { count: 0, first: [] as { index: number; outcome: string; agent: number }[] };
  try {
    reader.forEach(0, reader.header.count, (index, bytes, at) => {
      const state = bytes[at + 16]!;
      if (!bad.has(state) && !(state === ended && bytes[at + 17] === 2)) return;
      found.count++;
      if (found.first.length < limit)
        found.first.push({ index, outcome: ITEM_STATES[state]!, agent: bytes.readUInt32LE(at + 12) });
    });
  } finally {
    reader.close();
  }
  return found;
}
