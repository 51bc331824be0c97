// The one fake clock of the test suites: time moves only when a test says so.
import type { Clock } from '../../orchestrator/clock.js';

/**
 * A clock whose time moves only through `advance`. Like a process that was asleep, the whole step is taken at
 * once and then every callback that has come due runs (so checks that were missed collapse into one).
 */
export class FakeClock implements Clock {
  private time: number;
  private nextHandle = 1;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  constructor(start = Date.UTC(2025, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const handle = this.nextHandle++;
    this.pending.set(handle, { at: this.time + Math.max(0, ms), fn });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Callbacks waiting, soonest first (for assertions). */
  get scheduled(): number[] {
    return [...this.pending.values()].map((p) => p.at - this.time).sort((a, b) => a - b);
  }

  /** Moves time forward by `ms`, then runs every callback now due (including ones they schedule that are due). */
  advance(ms: number): void {
    this.time += ms;
    for (;;) {
      const due = [...this.pending.entries()].filter(([, p]) => p.at <= this.time).sort((a, b) => a[1].at - b[1].at);
      if (due.length === 0) return;
      for (const [handle, p] of due) {
        if (!this.pending.delete(handle)) continue;
        p.fn();
      }
    }
  }
}
