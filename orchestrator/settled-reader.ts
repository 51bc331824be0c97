// One swarm's ended items read back from the session's settled log (settled-log.ts) one at a time, by index: what
// a swarm whose ended items left memory reads its results from. The log is scanned once, as it grows, for where
// each item's last line is (8 bytes a place, 4 a length: no line is kept); a line is then read from a window of
// its segment, so reading every item in index order reads the log about once (items settle nearly in order).
import { statSync } from 'node:fs';
import { fileNumbers, numberedFile } from './numbered-files.js';
import { readRange } from './read-range.js';
import { readFromLog, SETTLED_STEM as STEM } from './settled-log.js';

const WINDOW = 1 << 20;
/** A segment's place in a line's position: positions are `segment * SEGMENT_SPAN + offset`. */
const SEGMENT_SPAN = 2 ** 32;
const HEAD = /^\{\s*"swarm"\s*:\s*("(?:[^"\\]|\\.)*")\s*,\s*"index"\s*:\s*(\d+)/;
const AGENT = /^\{\s*"agent"/;

export class SettledItemReader {
  private places = new Float64Array(0);
  private lengths = new Uint32Array(0);
  /** How far each segment has been scanned (a newer process's lines come in a newer segment). */
  private readonly scanned = new Map<number, number>();
  private window: { segment: number; start: number; bytes: Buffer } | undefined;
  /** Lines were appended since the last scan (an item that left memory again may have a newer one). */
  private stale = true;

  constructor(
    private readonly dir: string,
    private readonly swarmId: string,
  ) {}

  /** The log has new lines: the next read scans them first. */
  grown(): void {
    this.stale = true;
  }

  /**
   * Item `index`'s record as the log last holds it, or undefined when no line holds it. `looking`: it is only looked
   * at (a report's row), never kept, so it is not marked as the log's (a million marks are a table of a million).
   */
  get(index: number, looking = false): unknown {
    if (this.stale || !(this.places[index]! >= 0)) this.scan();
    const place = this.places[index];
    if (place === undefined || !(place >= 0)) return undefined;
    const segment = Math.floor(place / SEGMENT_SPAN);
    const text = this.read(segment, place - segment * SEGMENT_SPAN, this.lengths[index]!);
    try {
      const record = (JSON.parse(text) as { record?: unknown }).record;
      if (!looking) readFromLog(record);
      return record;
    } catch {
      return undefined;
    }
  }

  /** Finds the lines appended since the last scan: each of this swarm's items' last one wins. */
  private scan(): void {
    this.stale = false;
    for (const segment of fileNumbers(this.dir, STEM)) {
      const path = numberedFile(this.dir, STEM, segment);
      const from = this.scanned.get(segment) ?? 0;
      let size: number;
      try {
        size = statSync(path).size;
      } catch {
        continue;
      }
      if (size <= from) continue;
      const bytes = readRange(path, from, size - from);
      let start = 0;
      for (let end = bytes.indexOf(10); end >= 0; start = end + 1, end = bytes.indexOf(10, start))
        this.place(bytes, start, end, segment, from);
      // A line without its end is one a killed process cut (or one being written): it is read again next time.
      this.scanned.set(segment, from + start);
    }
  }

  private place(bytes: Buffer, start: number, end: number, segment: number, base: number): void {
    const head = bytes.toString('utf8', start, Math.min(end, start + 200));
    if (AGENT.test(head)) return;
    let swarm: unknown;
    let index: unknown;
    const match = HEAD.exec(head);
    if (match) [swarm, index] = [JSON.parse(match[1]!), Number(match[2])];
    else {
      try {
        ({ swarm, index } = JSON.parse(bytes.toString('utf8', start, end)) as { swarm?: unknown; index?: unknown });
      } catch {
        return;
      }
    }
    if (swarm !== this.swarmId || typeof index !== 'number' || !Number.isInteger(index) || index < 0) return;
    this.grow(index + 1);
    this.places[index] = segment * SEGMENT_SPAN + base + start;
    this.lengths[index] = end - start;
  }

  private grow(size: number): void {
    if (size <= this.places.length) return;
    const capacity = Math.max(size, this.places.length * 2, 1024);
    const places = new Float64Array(capacity).fill(-1);
    places.set(this.places);
    const lengths = new Uint32Array(capacity);
    lengths.set(this.lengths);
    this.places = places;
    this.lengths = lengths;
  }

  /** A line's text, from the window of its segment that holds it (read anew when it does not). */
  private read(segment: number, offset: number, length: number): string {
    const w = this.window;
    if (!w || w.segment !== segment || offset < w.start || offset + length > w.start + w.bytes.length) {
      const path = numberedFile(this.dir, STEM, segment);
      this.window = { segment, start: offset, bytes: readRange(path, offset, Math.max(WINDOW, length)) };
    }
    const { start, bytes } = this.window!;
    return bytes.toString('utf8', offset - start, offset - start + length);
  }
}
