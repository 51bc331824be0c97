// A session's life across processes: each stretch one process ran it (a segment: when it started, when and how it
// ended). A resumed session keeps its earlier segments, so its start and its duration are its whole life's, not the
// last resume's; a segment a killed process left open ends at the session's last save.
import type { SessionStatus } from '../protocol/run-status.js';
import type { RunSegment } from './saved-state.js';

/**
 * How long segments ran in all (ms): each from its start to its end, an open one up to `openUntil` (now, or the
 * session's last save). Entries that are not segments (a hand-edited state) count nothing.
 */
export function segmentsMs(
  segments: readonly { startedAt?: unknown; endedAt?: unknown }[],
  openUntil?: number,
): number {
  let ms = 0;
  for (const s of segments) {
    const end = typeof s.endedAt === 'number' ? s.endedAt : openUntil;
    if (typeof s.startedAt === 'number' && end !== undefined) ms += Math.max(0, end - s.startedAt);
  }
  return ms;
}

export class RunSegments {
  private list: RunSegment[] = [];

  constructor(private readonly now: () => number) {}

  /** The saved segments of a resumed session (an open one, a killed process's, closed at `lastSave`). */
  restore(saved: readonly RunSegment[] | undefined, lastSave: number): void {
    this.list = (saved ?? []).map((s) =>
      s.endedAt !== undefined ? { ...s } : { ...s, endedAt: lastSave, ended: 'interrupted' },
    );
  }

  /** This process starts running the session. */
  start(): void {
    this.list.push({ startedAt: this.now() });
  }

  /** This process's segment ends with `status` (said again, the last word counts). */
  end(status: SessionStatus): void {
    const last = this.list.at(-1);
    if (!last) return;
    last.endedAt = this.now();
    last.ended = status;
  }

  /** Whether this process's segment is still open. */
  get open(): boolean {
    const last = this.list.at(-1);
    return last !== undefined && last.endedAt === undefined;
  }

  /** How long the segments ran in all, the open one up to now (ms). */
  durationMs(): number {
    return segmentsMs(this.list, this.now());
  }

  saved(): RunSegment[] {
    return this.list.map((s) => ({ ...s }));
  }

  get size(): number {
    return this.list.length;
  }
}
