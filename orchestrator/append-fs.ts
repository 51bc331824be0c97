// The disk as the append pool (append-pool.ts) and the session's state writer see it: a port of four calls, Node's
// file system behind it by default, so a test hands in a disk that fails instead of mocking node:fs. Also what a
// passing shortage looks like (out of file handles, try again) and the retry with backoff that waits it out.
import { close, mkdir, open, write } from 'node:fs';

export interface AppendFs {
  /** Opens a file for appending (created when missing); rejects with the system's error (its `code`, say ENOENT). */
  open(path: string): Promise<number>;
  /** Writes bytes at the end of the file; resolves to how many were written (possibly fewer than asked). */
  write(fd: number, data: Uint8Array, offset: number, length: number): Promise<number>;
  close(fd: number): Promise<void>;
  /** Makes a folder and its parents (nothing when it exists). */
  mkdir(dir: string): Promise<void>;
}

export const nodeAppendFs: AppendFs = {
  open: (path) =>
    new Promise((resolve, reject) => open(path, 'a', (error, fd) => (error ? reject(error) : resolve(fd)))),
  write: (fd, data, offset, length) =>
    new Promise((resolve, reject) =>
      write(fd, data, offset, length, null, (error, written) => (error ? reject(error) : resolve(written))),
    ),
  close: (fd) => new Promise((resolve, reject) => close(fd, (error) => (error ? reject(error) : resolve()))),
  mkdir: (dir) =>
    new Promise((resolve, reject) => mkdir(dir, { recursive: true }, (error) => (error ? reject(error) : resolve()))),
};

/** Errors that say "not now" rather than "never": the process or the system is out of file handles, or busy. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE', 'EAGAIN']);

export function isTransient(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && TRANSIENT_CODES.has(code);
}

export interface TransientRetry {
  /** Tries in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** How a delay is waited (tests pass one that does not wait). */
  wait?: (ms: number) => Promise<void>;
}

/** About 7 s of waiting in all (25 ms doubling, at most 2 s apart): long enough for a burst of handles to close. */
export const DEFAULT_TRANSIENT_RETRY: TransientRetry = { attempts: 10, baseDelayMs: 25, maxDelayMs: 2000 };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `op`, again after a growing pause while it fails for a passing shortage; any other failure is thrown at once. */
export async function retryTransient<T>(op: () => Promise<T>, policy: TransientRetry): Promise<T> {
  const wait = policy.wait ?? sleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (error) {
      if (!isTransient(error) || attempt >= policy.attempts) throw error;
      await wait(Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)));
    }
  }
}

/** The system's message (it names the call and the file, as "EMFILE: too many open files, open '…'"). */
export function fsErrorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
