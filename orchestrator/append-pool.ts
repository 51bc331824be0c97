// The append pool: every file a run keeps appending to (each agent's transcript, the session's events.jsonl, each
// background task's output.log) is written through it, so murmur holds at most `maxOpen` of them open at once however
// many agents run. (One stream per agent let a 3,000-item swarm under `ulimit -n 1024` open a transcript each and
// lose two thirds of them to EMFILE, and still report "completed".) A file with text to write waits for a handle,
// is opened, takes everything appended until then and meanwhile in one write after another, in order, and is closed
// when nothing is left; text appended later opens it again. A failure for lack of handles (EMFILE, ENFILE, EAGAIN)
// is retried with backoff; one that lasts, or any other, is a loss: the file takes no more text (a hole in a
// transcript would be worse than an end), whoever waits for it is told, and so are those watching its folder.
import { dirname, sep } from 'node:path';
import {
  DEFAULT_TRANSIENT_RETRY,
  fsErrorText,
  nodeAppendFs,
  retryTransient,
  type AppendFs,
  type TransientRetry,
} from './append-fs.js';
import { Semaphore } from './model-gate.js';

/** A file that could not be written to the end: what was appended after `error` is not in it. */
export interface WriteLoss {
  path: string;
  /** The system's message, naming the call and the file ("EMFILE: too many open files, open '…'"). */
  error: string;
}

/** Files open at once for appending, across every run of the process (a process may have 1,024 handles in all). */
export const DEFAULT_MAX_OPEN_APPENDS = 64;

/**
 * Text appended and not yet written (in UTF-16 units, across the pool) beyond which `room()` makes producers wait.
 * Appending never blocks, so a swarm on a zero-latency model outran the disk: 20,000 items left 320,000 lines
 * queued (most of its memory). Waiting here bounds that by the disk's pace, not the item count.
 */
export const DEFAULT_BACKLOG_LIMIT = 4 * 1024 * 1024;

export interface AppendPoolOptions {
  fs?: AppendFs;
  maxOpen?: number;
  retry?: TransientRetry;
  /** See DEFAULT_BACKLOG_LIMIT. */
  backlogLimit?: number;
}

interface FileQueue {
  chunks: string[];
  /** Text appended to this writer, and how much of it is written (in UTF-16 units). */
  appended: number;
  done: number;
  /** Who waits for the text appended up to `upTo` to be written, in that order. */
  waiters: { upTo: number; wake: (loss: WriteLoss | undefined) => void }[];
}

export class AppendPool {
  private readonly fs: AppendFs;
  private readonly retry: TransientRetry;
  private readonly slots: Semaphore;
  /** Files with text still to write (their writer runs); a file leaves when everything appended is written. */
  private readonly queues = new Map<string, FileQueue>();
  private readonly losses = new Map<string, WriteLoss>();
  private readonly lossWatchers = new Set<{ under: string; tell: (loss: WriteLoss) => void }>();
  private openNow = 0;
  private openPeak = 0;
  /** Text appended and not yet written, and who waits for it to shrink under the limit. */
  private backlog = 0;
  private readonly backlogLimit: number;
  private roomWaiters: (() => void)[] = [];

  constructor(options: AppendPoolOptions = {}) {
    this.fs = options.fs ?? nodeAppendFs;
    this.retry = options.retry ?? DEFAULT_TRANSIENT_RETRY;
    this.slots = new Semaphore(options.maxOpen ?? DEFAULT_MAX_OPEN_APPENDS);
    this.backlogLimit = options.backlogLimit ?? DEFAULT_BACKLOG_LIMIT;
  }

  /**
   * Undefined while the text waiting to be written is under the limit; else a promise that resolves once it is.
   * What starts new work (a swarm launching an item) waits on it, so the backlog cannot grow with the work done.
   */
  room(): Promise<void> | undefined {
    if (this.backlog <= this.backlogLimit) return undefined;
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** `chars` of the backlog are written (or lost): producers waiting for room go on once it is under the limit. */
  private drained(chars: number): void {
    this.backlog -= chars;
    if (this.backlog > this.backlogLimit || this.roomWaiters.length === 0) return;
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const wake of waiters) wake();
  }

  /** The most files this pool had open at once (tests and benchmarks read it). */
  get peakOpen(): number {
    return this.openPeak;
  }

  /** Appends text to a file (made, with its folder, when missing), after everything appended to it before. */
  append(path: string, text: string): void {
    if (this.losses.has(path)) return;
    this.backlog += text.length;
    const queue = this.queues.get(path);
    if (queue) {
      queue.chunks.push(text);
      queue.appended += text.length;
      return;
    }
    const started: FileQueue = { chunks: [text], appended: text.length, done: 0, waiters: [] };
    this.queues.set(path, started);
    void this.drain(path, started);
  }

  /** Whether text appended to the file is still being written. */
  busy(path: string): boolean {
    return this.queues.has(path);
  }

  /** Why the file is incomplete, if it is. */
  lossOf(path: string): WriteLoss | undefined {
    return this.losses.get(path);
  }

  /**
   * Resolves once everything appended to the file so far is written: undefined, or the loss that stopped it. Text
   * appended later does not hold it back (a file appended to without a pause would never be idle).
   */
  written(path: string): Promise<WriteLoss | undefined> {
    const queue = this.queues.get(path);
    if (!queue) return Promise.resolve(this.losses.get(path));
    return new Promise((wake) => queue.waiters.push({ upTo: queue.appended, wake }));
  }

  /** The losses of files under a folder (a session's), oldest first. */
  lossesUnder(dir: string): WriteLoss[] {
    const under = folderPrefix(dir);
    return [...this.losses.values()].filter((loss) => loss.path.startsWith(under));
  }

  /** Forgets the losses of files under a folder (its run is closed; a long-lived process keeps no list of them). */
  forgetUnder(dir: string): void {
    const under = folderPrefix(dir);
    for (const path of this.losses.keys()) if (path.startsWith(under)) this.losses.delete(path);
  }

  /** Calls `tell` with each loss of a file under a folder as it happens; the returned function stops it. */
  watchLosses(dir: string, tell: (loss: WriteLoss) => void): () => void {
    const watcher = { under: folderPrefix(dir), tell };
    this.lossWatchers.add(watcher);
    return () => this.lossWatchers.delete(watcher);
  }

  /** Resolves once every file under a folder that has text to write has written it (or lost it). */
  async settledUnder(dir: string): Promise<void> {
    const under = folderPrefix(dir);
    for (;;) {
      const pending = [...this.queues.keys()].filter((path) => path.startsWith(under));
      if (pending.length === 0) return;
      await Promise.all(pending.map((path) => this.written(path)));
    }
  }

  /**
   * Writes the file's queue with one handle until it is empty, then tells the waiters and closes the handle (its
   * slot is free once it is closed): text appended meanwhile starts a new writer, after everything before it.
   */
  private async drain(path: string, queue: FileQueue): Promise<void> {
    const granted = this.slots.acquire();
    if (granted !== true) await granted;
    let fd: number | undefined;
    let inWrite = 0;
    try {
      fd = await retryTransient(() => this.openMakingFolder(path), this.retry);
      this.openNow++;
      this.openPeak = Math.max(this.openPeak, this.openNow);
      while (queue.chunks.length > 0) {
        const text = queue.chunks.length === 1 ? queue.chunks[0]! : queue.chunks.join('');
        const bytes = Buffer.from(text, 'utf8');
        queue.chunks.length = 0;
        inWrite = text.length;
        // A short write is continued from where it stopped, never repeated.
        let done = 0;
        while (done < bytes.length)
          done += await retryTransient(() => this.fs.write(fd!, bytes, done, bytes.length - done), this.retry);
        this.drained(inWrite);
        queue.done += inWrite;
        inWrite = 0;
        let woken = 0;
        while (woken < queue.waiters.length && queue.waiters[woken]!.upTo <= queue.done) woken++;
        for (const waiter of queue.waiters.splice(0, woken)) waiter.wake(undefined);
      }
    } catch (error) {
      const loss = { path, error: fsErrorText(error) };
      this.losses.set(path, loss);
      for (const watcher of this.lossWatchers) if (path.startsWith(watcher.under)) watcher.tell(loss);
    }
    // Checked and left in one step (no wait between): what is appended from now on starts a new writer.
    this.queues.delete(path);
    // What a loss left unwritten will never be: it leaves the backlog too.
    const unwritten = inWrite + queue.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    if (unwritten > 0) this.drained(unwritten);
    queue.chunks.length = 0;
    const loss = this.losses.get(path);
    for (const waiter of queue.waiters) waiter.wake(loss);
    if (fd !== undefined) {
      await this.fs.close(fd).catch(() => undefined);
      this.openNow--;
    }
    this.slots.release();
  }

  private async openMakingFolder(path: string): Promise<number> {
    try {
      return await this.fs.open(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await this.fs.mkdir(dirname(path));
      return this.fs.open(path);
    }
  }
}

function folderPrefix(dir: string): string {
  return dir.endsWith(sep) ? dir : `${dir}${sep}`;
}

let shared: AppendPool | undefined;

/** The process's pool: every engine appends through it unless given its own, so the bound holds across runs. */
export function sharedAppendPool(): AppendPool {
  return (shared ??= new AppendPool());
}
