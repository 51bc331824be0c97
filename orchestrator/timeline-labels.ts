// The labels of a big swarm's items by index, for the console's drill-down into a bucket: from the session swarm's
// queued file (queued-items.ts: line i holds item i's record), or, for a swarm without one (an agent's swarm inside a
// run), from `timeline-<swarmId>.items.jsonl`, one JSON string a line, written by the timeline recorder as it starts.
import { closeSync, existsSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { queuedFileName } from './queued-items.js';

const CHUNK = 1 << 20;

export function itemsFileName(swarmId: string): string {
  return `timeline-${swarmId}.items.jsonl`;
}

/** Writes the labels file unless the session keeps the swarm's items in its queued file. */
export function writeItemLabels(dir: string, swarmId: string, labels: readonly string[]): void {
  const queued = queuedFileName(swarmId);
  if (queued && existsSync(join(dir, queued))) return;
  writeFileSync(join(dir, itemsFileName(swarmId)), labels.map((label) => `${JSON.stringify(label)}\n`).join(''));
}

/**
 * Lines `from`..`to` (exclusive) of a file, read forward a megabyte at a time (none when it is missing); with
 * `wanted`, only the lines it names (in order, within the range).
 */
function readLines(path: string, from: number, to: number, wanted?: ReadonlySet<number>): string[] {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return [];
  }
  const lines: string[] = [];
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    let line = 0;
    let carry: Buffer | undefined;
    for (let offset = 0; line < to;) {
      const read = readSync(fd, buffer, 0, CHUNK, offset);
      if (read === 0) break;
      offset += read;
      let start = 0;
      for (let at = buffer.indexOf(10, 0); at >= 0 && at < read && line < to; at = buffer.indexOf(10, start)) {
        if (line >= from && (!wanted || wanted.has(line))) {
          const part = buffer.subarray(start, at);
          lines.push((carry ? Buffer.concat([carry, part]) : part).toString('utf8'));
        }
        carry = undefined;
        start = at + 1;
        line++;
      }
      if (line >= to) break;
      // A line that runs on into the next chunk (kept only when it is one we want).
      if (line >= from && (!wanted || wanted.has(line)) && start < read) {
        const rest = Buffer.from(buffer.subarray(start, read));
        carry = carry ? Buffer.concat([carry, rest]) : rest;
      } else carry = undefined;
    }
  } finally {
    closeSync(fd);
  }
  return lines;
}

/**
 * The labels of items `from`..`to` (exclusive), or of the items `at` (sorted indices); a label that cannot be read is
 * left out (undefined).
 */
export function readItemLabels(
  dir: string,
  swarmId: string,
  from: number,
  to: number,
  at?: readonly number[],
): (string | undefined)[] {
  const queued = queuedFileName(swarmId);
  const fromQueued = queued !== undefined && existsSync(join(dir, queued));
  const path = join(dir, fromQueued ? queued : itemsFileName(swarmId));
  const lines = at ? readLines(path, at[0] ?? 0, (at.at(-1) ?? -1) + 1, new Set(at)) : readLines(path, from, to);
  return lines.map((line) => {
    try {
      const value = JSON.parse(line) as unknown;
      if (fromQueued) {
        const item = (value as { item?: unknown } | null)?.item;
        return typeof item === 'string' ? item : undefined;
      }
      return typeof value === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  });
}
