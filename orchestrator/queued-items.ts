// A swarm's items as they were queued (saved-state version 4): `queued-<swarmId>.jsonl` in the session folder, one
// JSON record per line, line i for item i, written once as the swarm starts. A snapshot lists only the items up to
// the last one that has moved (`swarm.items`) and names this file for the rest (`swarm.queuedItems`), so a million
// waiting items cost neither memory nor a snapshot's text. Items are read back by index a window at a time
// (8 bytes a place in memory): the swarm reads them in index order, as it launches them.
import { closeSync, fsyncSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { readRange } from './read-range.js';

/** What a snapshot says of the file: its name in the session folder and how many items the swarm has in all. */
export interface QueuedItemsRef {
  file: string;
  count: number;
}

const WINDOW = 1 << 18;
const SAFE_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const FILE_NAME = /^queued-[A-Za-z0-9_.-]{1,64}\.jsonl$/;

/** Whether a session folder's file is a swarm's queued items. */
export function isQueuedFile(name: string): boolean {
  return FILE_NAME.test(name);
}

/** The file's name for a swarm, or undefined when its id cannot name a file (such a swarm keeps its items listed). */
export function queuedFileName(swarmId: string): string | undefined {
  return SAFE_ID.test(swarmId) ? `queued-${swarmId}.jsonl` : undefined;
}

/** `T`: what each line holds (the swarm's item record; orchestrator/ does not look inside). */
export class QueuedItems<T = Record<string, unknown>> {
  private window: { start: number; bytes: Buffer } | undefined;
  /** Held while reading, so a file written again meanwhile (a resume's) is not read at the old one's places. */
  private fd: number | undefined;

  private constructor(
    private readonly path: string,
    readonly ref: QueuedItemsRef,
    /** Where each line starts, and (at `count`) where the last one ends. */
    private readonly places: Float64Array,
  ) {}

  get count(): number {
    return this.ref.count;
  }

  /**
   * Writes `records` (one per item, in index order) to the swarm's file in `dir`: to a temporary file first, synced,
   * then renamed over any older one (a resume writes it again; the lines the older snapshot reads are the same).
   * An error (a full disk) is thrown: the caller keeps its items listed instead.
   */
  static write<T>(dir: string, file: string, records: Iterable<T>, count: number): QueuedItems<T> {
    const path = join(dir, file);
    // One name: a session has one owner at a time, and a temporary file a killed process left is written over.
    const temp = `${path}.tmp`;
    const places = new Float64Array(count + 1);
    const fd = openSync(temp, 'w+', 0o600);
    let written = 0;
    let index = 0;
    let chunk: string[] = [];
    let chunkLength = 0;
    const flush = () => {
      const bytes = Buffer.from(chunk.join(''), 'utf8');
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
      chunk = [];
      chunkLength = 0;
    };
    try {
      for (const record of records) {
        if (index >= count) break;
        const line = `${JSON.stringify(record)}\n`;
        places[index++] = written;
        written += Buffer.byteLength(line, 'utf8');
        chunk.push(line);
        chunkLength += line.length;
        if (chunkLength >= WINDOW) flush();
      }
      if (index !== count) throw new Error(`${count} items were to be queued, ${index} were given`);
      places[count] = written;
      flush();
      fsyncSync(fd);
      renameSync(temp, path);
    } catch (error) {
      closeSync(fd);
      try {
        unlinkSync(temp);
      } catch {
        // Already gone.
      }
      throw error;
    }
    const items = new QueuedItems<T>(path, { file, count }, places);
    items.fd = fd;
    return items;
  }

  /** The file a snapshot names in `dir`, indexed; an error (as a value) names the file and what is wrong. */
  static open<T = Record<string, unknown>>(dir: string, ref: unknown): QueuedItems<T> | string {
    const r = ref as Partial<QueuedItemsRef> | null;
    if (typeof r !== 'object' || r === null || typeof r.file !== 'string' || !FILE_NAME.test(r.file))
      return `"queuedItems" names no queued-<swarm>.jsonl file (got ${JSON.stringify(ref)?.slice(0, 120)})`;
    if (!Number.isInteger(r.count) || r.count! < 0)
      return `"queuedItems" has no valid "count" (got ${JSON.stringify(r.count)})`;
    const count = r.count!;
    const path = join(dir, r.file);
    const places = new Float64Array(count + 1);
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (error) {
      return `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
    }
    let lines = 0;
    let offset = 0;
    const buffer = Buffer.alloc(WINDOW);
    try {
      for (let read = readSync(fd, buffer, 0, WINDOW, 0); read > 0 && lines < count;) {
        for (let at = buffer.indexOf(10); at >= 0 && at < read && lines < count; at = buffer.indexOf(10, at + 1))
          places[++lines] = offset + at + 1;
        offset += read;
        read = readSync(fd, buffer, 0, WINDOW, offset);
      }
    } catch (error) {
      closeSync(fd);
      return `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
    }
    if (lines < count) {
      closeSync(fd);
      return `${path} holds ${lines} whole lines, and the swarm's state needs ${count}`;
    }
    const items = new QueuedItems<T>(path, { file: r.file, count }, places);
    items.fd = fd;
    return items;
  }

  /** Lets go of the file (a later read opens it again). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.window = undefined;
  }

  /** Item `index`'s record as queued (parsed anew each time: the caller owns it). */
  record(index: number): T {
    if (!(index >= 0 && index < this.count)) throw new RangeError(`item ${index} is not one of ${this.count}`);
    const start = this.places[index]!;
    const end = this.places[index + 1]! - 1;
    return JSON.parse(this.read(start, end)) as T;
  }

  /** Every record from `from` on, in order. */
  *records(from = 0): Generator<T> {
    for (let index = from; index < this.count; index++) yield this.record(index);
  }

  private read(start: number, end: number): string {
    let w = this.window;
    if (!w || start < w.start || end > w.start + w.bytes.length) {
      this.fd ??= openSync(this.path, 'r');
      w = this.window = { start, bytes: readRange(this.fd, start, Math.max(WINDOW, end - start)) };
      if (end > w.start + w.bytes.length) throw new Error(`${this.path} ends before item line at ${start}`);
    }
    return w.bytes.toString('utf8', start - w.start, end - w.start);
  }
}

/**
 * A snapshot with its swarm's queued items listed again (`swarm.queuedItems` gone): what every reader works from.
 * A state without them is returned as it is; a file missing or short is an error that names it.
 */
export function listQueued(
  dir: string,
  state: Record<string, unknown>,
): { ok: true; state: Record<string, unknown> } | { ok: false; error: string } {
  const swarm = state.swarm as { items?: unknown; queuedItems?: unknown } | null | undefined;
  if (typeof swarm !== 'object' || swarm === null || swarm.queuedItems === undefined || !Array.isArray(swarm.items))
    return { ok: true, state };
  const queued = QueuedItems.open(dir, swarm.queuedItems);
  if (typeof queued === 'string') return { ok: false, error: queued };
  try {
    const listed = swarm.items as unknown[];
    if (listed.length > queued.count)
      return { ok: false, error: `"queuedItems" counts ${queued.count} items, and ${listed.length} are listed` };
    const items = listed.slice();
    for (const record of queued.records(listed.length)) items.push(record);
    const { queuedItems: _queued, ...rest } = swarm;
    return { ok: true, state: { ...state, swarm: { ...rest, items } } };
  } finally {
    queued.close();
  }
}
