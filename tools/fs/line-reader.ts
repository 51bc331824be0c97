// Reads a window of lines from a file without loading the file: forward from a byte position, and a tail
// read that scans backwards from the end. Memory stays bounded by the window, whatever the file's size.
import type { FileHandle } from 'node:fs/promises';

const CHUNK_BYTES = 256 * 1024;
/** Above this many bytes before a tail window, lines are numbered from the end instead of counted. */
export const COUNT_LINES_LIMIT_BYTES = 64 * 1024 * 1024;

export interface LineWindowLimits {
  maxLines: number;
  /** Budget for content bytes plus `lineOverhead` per line. */
  maxBytes: number;
  lineOverhead: number;
}

export interface LineWindow {
  lines: string[];
  /** Number of the first line: 1-based, or negative (counting back from the end) when `fromEnd`. */
  firstLine: number;
  fromEnd: boolean;
  /** Lines follow the window. */
  more: boolean;
  /** The window stopped at the byte budget (not at the line count). */
  cutByBytes: boolean;
  /** The first line alone was over the budget and is shown cut. */
  longLineCut: boolean;
  /** The window starts past the end of the file: the file's line count. */
  pastEndTotal?: number;
}

interface ForwardResult {
  lines: string[];
  more: boolean;
  cutByBytes: boolean;
  longLineCut: boolean;
  /** Lines seen in all, when the end of the file was reached before the window started. */
  linesSeen: number;
  reachedStart: boolean;
}

function decodeLine(parts: Buffer[]): string {
  const text = parts.length === 1 ? parts[0]!.toString('utf8') : Buffer.concat(parts).toString('utf8');
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}

/** Scans forward from `startByte`, skips `skipLines` lines, then collects a window. */
async function readForward(
  handle: FileHandle,
  size: number,
  endsWithNewline: boolean,
  startByte: number,
  skipLines: number,
  limits: LineWindowLimits,
): Promise<ForwardResult> {
  const lines: string[] = [];
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let budget = limits.maxBytes;
  let parts: Buffer[] = [];
  let partBytes = 0;
  let lineIndex = 0;
  let position = startByte;
  const done = (more: boolean, cutByBytes: boolean, longLineCut = false): ForwardResult => ({
    lines,
    more,
    cutByBytes,
    longLineCut,
    linesSeen: lineIndex,
    reachedStart: lineIndex >= skipLines,
  });
  while (position < size) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK_BYTES, size - position), position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    let from = 0;
    while (from < bytesRead) {
      const newline = chunk.indexOf(10, from);
      const end = newline === -1 ? bytesRead : newline;
      if (lineIndex >= skipLines) {
        const room = budget - limits.lineOverhead - partBytes;
        const segment = end - from;
        if (segment > room) {
          // This line does not fit in what is left of the budget.
          if (lines.length > 0) return done(true, true);
          if (room > 0) parts.push(Buffer.from(chunk.subarray(from, from + room)));
          lines.push(decodeLine(parts));
          return done(true, true, true);
        }
        if (segment > 0) {
          parts.push(Buffer.from(chunk.subarray(from, end)));
          partBytes += segment;
        }
      }
      if (newline === -1) break;
      if (lineIndex >= skipLines) {
        lines.push(decodeLine(parts));
        budget -= partBytes + limits.lineOverhead;
        parts = [];
        partBytes = 0;
        if (lines.length >= limits.maxLines) {
          const nextByte = position + newline + 1;
          return done(nextByte < size, false);
        }
      }
      lineIndex++;
      from = newline + 1;
    }
    position += bytesRead;
  }
  // A last line without a final newline.
  if (!endsWithNewline && size > startByte) {
    if (lineIndex >= skipLines) lines.push(decodeLine(parts));
    lineIndex++;
  }
  return done(false, false);
}

async function lastByteIsNewline(handle: FileHandle, size: number): Promise<boolean> {
  if (size === 0) return true;
  const one = Buffer.alloc(1);
  await handle.read(one, 0, 1, size - 1);
  return one[0] === 10;
}

/** Byte offset where the k-th line from the end starts, and how many lines were found (< k when the file is shorter). */
async function findTailStart(
  handle: FileHandle,
  size: number,
  endsWithNewline: boolean,
  k: number,
): Promise<{ startByte: number; found: number }> {
  if (size === 0) return { startByte: 0, found: 0 };
  // A final newline ends the last line; it does not start another one.
  let end = endsWithNewline ? size - 1 : size;
  let newlines = 0;
  const buffer = Buffer.alloc(CHUNK_BYTES);
  while (end > 0) {
    const start = Math.max(0, end - CHUNK_BYTES);
    const length = end - start;
    await handle.read(buffer, 0, length, start);
    let at = length;
    while (at > 0) {
      const newline = buffer.lastIndexOf(10, at - 1);
      if (newline === -1) break;
      newlines++;
      if (newlines === k) return { startByte: start + newline + 1, found: k };
      at = newline;
    }
    end = start;
  }
  return { startByte: 0, found: newlines + 1 };
}

async function countNewlines(handle: FileHandle, endByte: number): Promise<number> {
  const buffer = Buffer.alloc(1024 * 1024);
  let count = 0;
  let position = 0;
  while (position < endByte) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, endByte - position), position);
    if (bytesRead === 0) break;
    let at = buffer.indexOf(10, 0);
    while (at !== -1 && at < bytesRead) {
      count++;
      at = buffer.indexOf(10, at + 1);
    }
    position += bytesRead;
  }
  return count;
}

/**
 * A window of lines. `lineOffset` is 1-based; a negative one counts from the end (-50 = the last 50 lines).
 */
export async function readLineWindow(
  handle: FileHandle,
  size: number,
  lineOffset: number,
  limits: LineWindowLimits,
): Promise<LineWindow> {
  const endsWithNewline = await lastByteIsNewline(handle, size);
  if (lineOffset >= 1) {
    const result = await readForward(handle, size, endsWithNewline, 0, lineOffset - 1, limits);
    const window: LineWindow = {
      lines: result.lines,
      firstLine: lineOffset,
      fromEnd: false,
      more: result.more,
      cutByBytes: result.cutByBytes,
      longLineCut: result.longLineCut,
    };
    if (!result.reachedStart || (result.lines.length === 0 && lineOffset > 1)) window.pastEndTotal = result.linesSeen;
    return window;
  }
  const wanted = -lineOffset;
  const { startByte, found } = await findTailStart(handle, size, endsWithNewline, wanted);
  const result = await readForward(handle, size, endsWithNewline, startByte, 0, limits);
  let firstLine: number;
  let fromEnd = false;
  if (startByte === 0) firstLine = 1;
  else if (startByte <= COUNT_LINES_LIMIT_BYTES) firstLine = (await countNewlines(handle, startByte)) + 1;
  else {
    firstLine = -found;
    fromEnd = true;
  }
  return {
    lines: result.lines,
    firstLine,
    fromEnd,
    more: result.more,
    cutByBytes: result.cutByBytes,
    longLineCut: result.longLineCut,
  };
}
