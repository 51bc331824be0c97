// One numbered append-only file of a session (`<stem>-<n>.jsonl`: the item journal, the settled log): each append
// is one write(2), so a killed process loses none of what was appended and cuts at most the last line (an fsync on
// request, for what a snapshot will point past). A reopened session goes on in a file one past the newest, so what
// it appends always follows what it read.
import { closeSync, existsSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { fileNumbers, numberedFile } from './numbered-files.js';

export class NumberedAppender {
  private fd: number | undefined;
  private n: number;
  private bytes = 0;
  /** Why the last append failed (cleared by one that succeeds). */
  failure: string | undefined;

  constructor(
    private readonly dir: string,
    private readonly stem: string,
  ) {
    this.n = (fileNumbers(dir, stem).at(-1) ?? 0) + 1;
  }

  /** The number of the file appended to now. */
  get number(): number {
    return this.n;
  }

  /** Bytes appended to the current file. */
  get size(): number {
    return this.bytes;
  }

  /**
   * Appends `text` with one write; false (and `failure` says why) when it fails. A short write (a full disk) is a
   * failure too, and the next append starts the next file, so a cut line never runs into a whole one. `sync`:
   * fsync the file (and, for a new file, its folder) before returning, for lines a snapshot will point past.
   * Never throws.
   */
  append(text: string, sync = false): boolean {
    const file = numberedFile(this.dir, this.stem, this.n);
    try {
      const created = this.fd === undefined && !existsSync(file);
      this.fd ??= openSync(file, 'a');
      const expected = Buffer.byteLength(text);
      const written = writeSync(this.fd, text);
      this.bytes += written;
      if (written < expected) {
        this.next();
        throw Object.assign(new Error(`short write: ${written} of ${expected} bytes`), { code: 'ENOSPC' });
      }
      if (sync) {
        fsyncSync(this.fd);
        if (created) syncFolder(this.dir);
      }
      this.failure = undefined;
      return true;
    } catch (error) {
      this.failure = `${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
      return false;
    }
  }

  /** Closes the current file; the next append starts the next one. */
  next(): void {
    this.close();
    this.n++;
    this.bytes = 0;
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // Closing cannot lose a line: each was written whole when appended.
    }
    this.fd = undefined;
  }
}

/** Makes a new file's name durable (its folder's entry), where the platform allows it. */
function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Not every platform can fsync a folder (Windows); the file's own fsync still holds its bytes.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
