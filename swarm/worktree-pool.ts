// The worktree pool's bookkeeping (no git here): which worktrees are free, which items work in one and since when,
// and whether a new item should make a worktree or wait for one. A new worktree is a checkout as costly as the
// repository is big; it is made only when the items waiting in line would otherwise wait longer than it takes, so
// short items in a big repository share a few worktrees instead of paying a checkout each.

/** A worktree no item holds; `clean`: at the base already (its last item put back the files it changed). */
export interface FreeWorktree {
  path: string;
  clean: boolean;
}

/** What a new item gets: a free worktree, or the go-ahead to make one (then `made` or `notMade` when done). */
export type Turn = { kind: 'free'; worktree: FreeWorktree } | { kind: 'make' };

export class WorktreePool {
  private readonly free: FreeWorktree[] = [];
  private making = 0;
  private readonly waiting: (() => void)[] = [];
  /** Items working in a worktree now, since when (ms). */
  private readonly working = new Map<number, number>();
  /** How long an item holds its worktree, and how long a new worktree takes to make (moving averages, ms). */
  private holdMs = 0;
  private makeMs = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Item `index`'s turn: a free worktree as soon as there is one, or leave to make one; rejects when `signal` stops. */
  async turn(index: number, signal?: AbortSignal): Promise<Turn> {
    for (;;) {
      const worktree = this.free.pop();
      if (worktree !== undefined) {
        this.working.set(index, this.now());
        return { kind: 'free', worktree };
      }
      if (this.making === 0 && this.worthMaking()) {
        this.making++;
        return { kind: 'make' };
      }
      await this.nextChange(signal);
    }
  }

  /** The worktree `turn` said to make is ready (`startedAt`: when making it began): item `index` works in it. */
  made(index: number, startedAt: number): void {
    this.making--;
    this.makeMs = average(this.makeMs, this.now() - startedAt);
    this.working.set(index, this.now());
    this.wake();
  }

  /** Making it failed: another item may try. */
  notMade(): void {
    this.making--;
    this.wake();
  }

  /** Item `index` works in a worktree it already had (a resumed item, a retry after a rate limit). */
  startWorking(index: number): void {
    if (!this.working.has(index)) this.working.set(index, this.now());
  }

  /** Item `index` ended: its time in its worktree counts toward the average. */
  stopWorking(index: number): void {
    const since = this.working.get(index);
    if (since === undefined) return;
    this.working.delete(index);
    this.holdMs = average(this.holdMs, this.now() - since);
    this.wake();
  }

  /** A worktree no item holds now. */
  give(worktree: FreeWorktree): void {
    this.free.push(worktree);
    this.wake();
  }

  /** Takes every free worktree out of the pool (to remove them). */
  drain(): string[] {
    return this.free.splice(0).map((worktree) => worktree.path);
  }

  /**
   * Whether a new item should make a worktree rather than wait: when nothing it waits for will end (no item works
   * in one), or when the line before it would wait longer for the working ones to end than a checkout takes.
   */
  private worthMaking(): boolean {
    if (this.working.size === 0 || this.holdMs === 0 || this.makeMs === 0) return true;
    return ((this.waiting.length + 1) * this.holdMs) / this.working.size > this.makeMs;
  }

  private nextChange(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /** Whoever waits looks again: a worktree may be free now, or they may make one. */
  private wake(): void {
    for (const wake of this.waiting.splice(0)) wake();
  }
}

/** A moving average that starts at its first sample. */
function average(current: number, sample: number): number {
  return current === 0 ? Math.max(1, sample) : current * 0.8 + sample * 0.2;
}
