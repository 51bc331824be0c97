// Reading part of a file by offset: what the readers of the session's line files (the settled log, the queued items)
// use to fill a window, continuing a short read where it stopped.
import { closeSync, openSync, readSync } from 'node:fs';

/** Up to `length` bytes of `file` (a path, or an open descriptor the caller keeps) from `offset`; fewer at its end. */
export function readRange(file: string | number, offset: number, length: number): Buffer {
  const fd = typeof file === 'number' ? file : openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, offset + read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    if (typeof file !== 'number') closeSync(fd);
  }
}
