// Reading a session's events.jsonl in pieces that leave the event loop free: the file is read in 1 MB blocks
// (asynchronous I/O) and its lines are handed out in slices of at most SLICE_MS, with a turn of the event loop
// between slices, so a 168 MB log folds while every other request of the console still answers at once. Also the
// raw event list, one page at a time from a byte cursor.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';

const BLOCK_BYTES = 1 << 20;
/** How long one slice of work on a log may hold the event loop before other requests get their turn. */
export const SLICE_MS = 20;
const NEWLINE = 0x0a;

/** A clock for slices: `due()` is true once the current slice has used its time; `pause()` yields and restarts it. */
export class Slicer {
  private started = performance.now();
  due(): boolean {
    return performance.now() - this.started >= SLICE_MS;
  }
  async pause(): Promise<void> {
    await nextTurn();
    this.started = performance.now();
  }
}

/**
 * Calls `each` with every complete line of `file` that starts at or after byte `from` and ends before byte `to`
 * (without its newline), in order, until `each` returns false. Returns the byte offset just after the last line
 * handed out: a line still being written (no newline yet) is left for the next call. `from` must be 0 or the start
 * of a line.
 */
export async function forEachLine(
  file: string,
  from: number,
  to: number,
  each: (line: string) => boolean | void,
): Promise<number> {
  if (to <= from) return from;
  const handle = await open(file, 'r');
  const slicer = new Slicer();
  let offset = from;
  try {
    // The bytes of a line not finished in the blocks read so far (kept as parts: a long line is copied once).
    let carry: Buffer[] = [];
    for (let position = from; position < to;) {
      const block = Buffer.allocUnsafe(Math.min(BLOCK_BYTES, to - position));
      const { bytesRead } = await handle.read(block, 0, block.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const read = block.subarray(0, bytesRead);
      if (read.lastIndexOf(NEWLINE) < 0) {
        carry.push(read);
        continue;
      }
      const bytes = carry.length > 0 ? Buffer.concat([...carry, read]) : read;
      const end = bytes.lastIndexOf(NEWLINE);
      carry = end + 1 < bytes.length ? [Buffer.from(bytes.subarray(end + 1))] : [];
      // Split on bytes, not on the decoded text: offsets stay byte offsets whatever the characters.
      let start = 0;
      while (start <= end) {
        const stop = bytes.indexOf(NEWLINE, start);
        if (each(bytes.toString('utf8', start, stop)) === false) return offset;
        offset += stop + 1 - start;
        start = stop + 1;
        if (slicer.due()) await slicer.pause();
      }
    }
    return offset;
  } finally {
    await handle.close();
  }
}

/** Whether `cursor` is a place a page of events.jsonl may start: 0, or just after a newline within the file. */
export async function isLineStart(file: string, cursor: number, size: number): Promise<boolean> {
  if (cursor === 0) return true;
  if (cursor > size) return false;
  const handle = await open(file, 'r');
  try {
    const byte = Buffer.alloc(1);
    await handle.read(byte, 0, 1, cursor - 1);
    return byte[0] === NEWLINE;
  } finally {
    await handle.close();
  }
}

export interface EventPage {
  /** The events of this page, parsed; a line that is not JSON is left out (it still counts for the cursor). */
  events: unknown[];
  /** Where the next page starts (a byte offset into events.jsonl): give it back as `cursor`. */
  next: number;
  /** Whether the file held more complete lines after this page when it was read. */
  more: boolean;
}

/** Up to `limit` lines of `file` from byte `cursor` (a line start), stopping early once `maxBytes` were read. */
export async function readEventPage(
  file: string,
  cursor: number,
  size: number,
  limit: number,
  maxBytes: number,
): Promise<EventPage> {
  const events: unknown[] = [];
  let lines = 0;
  let bytes = 0;
  let more = false;
  const next = await forEachLine(file, cursor, size, (line) => {
    if (lines >= limit || (lines > 0 && bytes >= maxBytes)) {
      more = true;
      return false;
    }
    lines++;
    bytes += Buffer.byteLength(line) + 1;
    if (!line.trim()) return;
    try {
      events.push(JSON.parse(line));
    } catch {
      // A line cut by a killed process, or not an event.
    }
  });
  return { events, next, more };
}

/** The last `bytes` bytes of a file as text (all of a shorter one), or undefined when it cannot be read. */
export function readTail(file: string, bytes: number): string | undefined {
  let fd: number | undefined;
  try {
    const size = statSync(file).size;
    const length = Math.min(size, bytes);
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
