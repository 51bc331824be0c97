// Timers set by agents (set_timer): checked every 30 s; a due timer's message goes to its agent's inbox once.
// Several timers of one agent found due at the same check collapse into one message (missed firings too).
import { type Clock, systemClock } from './clock.js';
import type { UserMessage } from './types.js';

export const TIMER_CHECK_INTERVAL_MS = 30_000;

export interface PendingTimer {
  timerId: string;
  agentId: string;
  dueAt: number;
  message: string;
}

export class TimerService {
  private readonly pending = new Map<string, PendingTimer>();
  private counter = 0;
  private handle: unknown;

  constructor(
    private readonly deliver: (agentId: string, message: UserMessage) => void,
    private readonly clock: Clock = systemClock,
    private readonly intervalMs = TIMER_CHECK_INTERVAL_MS,
  ) {}

  set(agentId: string, delayMinutes: number, message: string): PendingTimer {
    const timer: PendingTimer = {
      timerId: `timer-${++this.counter}`,
      agentId,
      dueAt: this.clock.now() + delayMinutes * 60_000,
      message,
    };
    this.pending.set(timer.timerId, timer);
    this.schedule();
    return timer;
  }

  /** Timers not yet delivered; with an agent id, only that agent's. */
  count(agentId?: string): number {
    if (agentId === undefined) return this.pending.size;
    let n = 0;
    for (const t of this.pending.values()) if (t.agentId === agentId) n++;
    return n;
  }

  /** Drops the timers of an agent (it was aborted) or all of them. */
  cancel(agentId?: string): void {
    for (const [id, t] of this.pending) if (agentId === undefined || t.agentId === agentId) this.pending.delete(id);
    if (this.pending.size === 0) this.stop();
  }

  /** Delivers every due timer now; called by the periodic check. */
  check(): void {
    const now = this.clock.now();
    const due = new Map<string, PendingTimer[]>();
    for (const timer of this.pending.values()) {
      if (timer.dueAt > now) continue;
      this.pending.delete(timer.timerId);
      const list = due.get(timer.agentId) ?? [];
      list.push(timer);
      due.set(timer.agentId, list);
    }
    for (const [agentId, timers] of due) {
      const body = timers.map((t) => `<timer id="${t.timerId}">${t.message.replace(/</g, '&lt;')}</timer>`).join('\n');
      this.deliver(agentId, {
        role: 'user',
        content: `<timer-fired>\n${body}\n</timer-fired>`,
        synthetic: { kind: 'timer' },
      });
    }
  }

  private schedule(): void {
    if (this.handle !== undefined) return;
    this.handle = this.clock.setTimeout(() => {
      this.handle = undefined;
      this.check();
      if (this.pending.size > 0) this.schedule();
    }, this.intervalMs);
  }

  stop(): void {
    if (this.handle !== undefined) this.clock.clearTimeout(this.handle);
    this.handle = undefined;
  }
}
