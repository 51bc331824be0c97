// A scheduled run's log (`cron/runs/<runId>.log`: the run's stderr, and that of each resume the console started):
// the first lines of what a run wrote from a byte offset on, as the reason a failed run gives in its history.
import { closeSync, openSync, readSync, statSync } from 'node:fs';

const EXCERPT_BYTES = 16 << 10;

/** The size of a file now (0 when it does not exist): where the next writer's lines will start. */
export function logSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The first `lines` non-empty lines written at or after byte `from`, joined with " · " and cut to `chars`. */
export function logExcerpt(file: string, from = 0, lines = 3, chars = 300): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(EXCERPT_BYTES);
    const read = readSync(fd, buffer, 0, EXCERPT_BYTES, from);
    const text = buffer
      .subarray(0, read)
      .toString('utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('---'))
      .slice(0, lines)
      .join(' · ');
    if (!text) return undefined;
    return text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
