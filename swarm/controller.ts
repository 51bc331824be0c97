// The swarm controller: a pure state machine that decides which item launches when. It knows nothing of
// agents or timers: the runner feeds it what happened (with the time) and carries out the actions it returns.
//
// Normal ramp: `initialBurst` slots at once, then one more slot every `rampIntervalMs`, up to `maxConcurrency`.
// A rate limit (a 429 that outlived the provider's retries) stops the ramp: the item goes back to the front
// of the queue after a backoff, capacity drops to what was running minus one, and then one slot is added
// after each quiet window without a 429 until the capacity before the limit is reached; then the normal ramp
// resumes from there.

export interface ControllerOptions {
  initialBurst: number;
  rampIntervalMs: number;
  /** Upper bound on items running at once; undefined = none. */
  maxConcurrency?: number;
  quietWindowMs: number;
  /** Rate-limit requeues allowed per item before it fails. */
  maxRateLimitRetries: number;
  /** Backoff before a rate-limited item is queued again; `retryAfterMs` wins when the provider gave one. */
  backoffMs: (attempt: number, retryAfterMs: number | undefined) => number;
  /**
   * false keeps ramping through rate limits (items are still requeued, never lost): the baseline the rate-limit
   * benchmark compares adaptation against. Default true.
   */
  adaptive?: boolean;
}

export const DEFAULT_CONTROLLER_OPTIONS: ControllerOptions = {
  initialBurst: 5,
  rampIntervalMs: 700,
  quietWindowMs: 30_000,
  maxRateLimitRetries: 5,
  backoffMs: (attempt, retryAfterMs) => retryAfterMs ?? Math.min(30_000, 1000 * 2 ** (attempt - 1)),
};

export type ItemPhase = 'queued' | 'backoff' | 'running' | 'finished';

export type ControllerAction =
  | { type: 'launch'; index: number }
  | { type: 'rate_limited'; index: number; attempt: number; retryAt: number; capacity: number; running: number }
  | { type: 'give_up'; index: number; reason: string }
  | { type: 'capacity'; capacity: number; running: number; limited: boolean };

export interface ControllerSnapshot {
  capacity: number;
  running: number;
  queued: number;
  backoff: number;
  finished: number;
  limited: boolean;
}

const PHASES: readonly ItemPhase[] = ['queued', 'backoff', 'running', 'finished'];
const [QUEUED, BACKOFF, RUNNING, FINISHED] = [0, 1, 2, 3];

export class SwarmController {
  /** Each item's phase, as its index in PHASES (a byte an item: a million items are a megabyte). */
  private readonly phase: Uint8Array;
  /** The queue: items back from a backoff (the last is the front), then the new ones from `next` on, in order. */
  private readonly front: number[] = [];
  private next = 0;
  /** Items waiting out a backoff: index -> time they rejoin the front of the queue. */
  private readonly backoff = new Map<number, number>();
  private readonly attempts = new Map<number, number>();
  private running = 0;
  private finishedCount = 0;
  private capacity: number;
  private rampBase: number;
  private rampStart = 0;
  /** Set while recovering from a rate limit. */
  private recovery: { target: number; lastChange: number } | undefined;
  private stopped = false;

  constructor(
    readonly size: number,
    private readonly options: ControllerOptions = DEFAULT_CONTROLLER_OPTIONS,
  ) {
    this.phase = new Uint8Array(size);
    this.rampBase = Math.max(1, options.initialBurst);
    this.capacity = this.bounded(this.rampBase);
  }

  private bounded(n: number): number {
    return this.options.maxConcurrency === undefined ? n : Math.min(n, this.options.maxConcurrency);
  }

  snapshot(): ControllerSnapshot {
    return {
      capacity: this.capacity,
      running: this.running,
      queued: this.front.length + this.size - this.next,
      backoff: this.backoff.size,
      finished: this.finishedCount,
      limited: this.recovery !== undefined,
    };
  }

  phaseOf(index: number): ItemPhase {
    return PHASES[this.phase[index]!]!;
  }

  get done(): boolean {
    return this.finishedCount === this.size;
  }

  /** Starts the ramp: the initial burst launches at once. */
  start(now: number): ControllerAction[] {
    this.rampStart = now;
    return this.fill(now, []);
  }

  /** The clock moved: the ramp may grow, backoffs may end, a quiet window may pass. */
  tick(now: number): ControllerAction[] {
    return this.fill(now, []);
  }

  /** An item ended for good (completed, failed, aborted). */
  finished(index: number, now: number): ControllerAction[] {
    if (this.phase[index] === RUNNING) this.running--;
    this.backoff.delete(index);
    this.markFinished(index);
    return this.fill(now, []);
  }

  private markFinished(index: number): void {
    if (this.phase[index] === FINISHED) return;
    this.phase[index] = FINISHED;
    this.finishedCount++;
  }

  /** An item's model request still failed with a 429 after the provider's retries. */
  rateLimited(index: number, now: number, retryAfterMs?: number): ControllerAction[] {
    const actions: ControllerAction[] = [];
    const runningBefore = this.running;
    if (this.phase[index] === RUNNING) this.running--;
    const attempt = (this.attempts.get(index) ?? 0) + 1;
    this.attempts.set(index, attempt);
    if (this.stopped) {
      // After an abort nothing is queued again: a backoff would never end and the swarm would never finish.
      this.markFinished(index);
      actions.push({ type: 'give_up', index, reason: 'rate limited while the swarm was stopping' });
      return actions;
    }
    if (this.options.adaptive !== false) {
      const previousCapacity = this.capacity;
      this.capacity = Math.max(1, runningBefore - 1);
      this.recovery = { target: Math.max(this.recovery?.target ?? 0, previousCapacity), lastChange: now };
    }
    if (attempt > this.options.maxRateLimitRetries) {
      this.markFinished(index);
      actions.push({
        type: 'give_up',
        index,
        reason: `rate limited ${attempt} times (the swarm retries an item at most ${this.options.maxRateLimitRetries} times)`,
      });
    } else {
      const retryAt = now + this.options.backoffMs(attempt, retryAfterMs);
      this.phase[index] = BACKOFF;
      this.backoff.set(index, retryAt);
      actions.push({ type: 'rate_limited', index, attempt, retryAt, capacity: this.capacity, running: this.running });
    }
    return this.fill(now, actions);
  }

  /** Stops launching; every item not yet running is returned so the runner can mark it. */
  abort(): number[] {
    this.stopped = true;
    const notStarted: number[] = [];
    for (let i = 0; i < this.size; i++) {
      if (this.phase[i] === QUEUED || this.phase[i] === BACKOFF) {
        this.phase[i] = FINISHED;
        this.finishedCount++;
        notStarted.push(i);
      }
    }
    this.backoff.clear();
    this.front.length = 0;
    this.next = this.size;
    return notStarted;
  }

  /** When the runner should call tick next; undefined when nothing is time-driven. */
  nextWakeAt(): number | undefined {
    if (this.stopped || this.done) return undefined;
    let next: number | undefined;
    for (const at of this.backoff.values()) next = next === undefined ? at : Math.min(next, at);
    const waiting = this.front.length > 0 || this.next < this.size || this.backoff.size > 0;
    if (waiting && this.running >= this.capacity) {
      const growth = this.nextGrowthAt();
      if (growth !== undefined) next = next === undefined ? growth : Math.min(next, growth);
    }
    return next;
  }

  private nextGrowthAt(): number | undefined {
    if (this.options.maxConcurrency !== undefined && this.capacity >= this.options.maxConcurrency) return undefined;
    if (this.recovery) return this.recovery.lastChange + this.options.quietWindowMs;
    const steps = this.capacity - this.rampBase + 1;
    return this.rampStart + steps * this.options.rampIntervalMs;
  }

  private grow(now: number, actions: ControllerAction[]): void {
    const before = this.capacity;
    if (this.recovery && this.options.quietWindowMs <= 0) {
      // No quiet window: recover at once.
      this.capacity = Math.max(this.capacity, this.bounded(this.recovery.target));
      this.rampBase = this.capacity;
      this.rampStart = now;
      this.recovery = undefined;
    }
    if (this.recovery) {
      while (now - this.recovery.lastChange >= this.options.quietWindowMs) {
        this.recovery.lastChange += this.options.quietWindowMs;
        this.capacity = this.bounded(this.capacity + 1);
        if (this.capacity >= this.recovery.target) {
          // Recovered: the normal ramp continues from here.
          this.rampBase = this.capacity;
          this.rampStart = this.recovery.lastChange;
          this.recovery = undefined;
          break;
        }
      }
    }
    if (!this.recovery) {
      const interval = this.options.rampIntervalMs;
      const steps = interval > 0 ? Math.floor((now - this.rampStart) / interval) : Number.POSITIVE_INFINITY;
      this.capacity = Math.max(this.capacity, this.bounded(this.rampBase + Math.max(0, steps)));
    }
    if (this.capacity !== before)
      actions.push({
        type: 'capacity',
        capacity: this.capacity,
        running: this.running,
        limited: this.recovery !== undefined,
      });
  }

  private fill(now: number, actions: ControllerAction[]): ControllerAction[] {
    if (this.stopped) return actions;
    const due: number[] = [];
    for (const [index, at] of this.backoff) if (at <= now) due.push(index);
    // Back at the front of the queue, in the order they were limited (map order): pushed front last-first.
    for (let i = due.length - 1; i >= 0; i--) {
      const index = due[i]!;
      this.backoff.delete(index);
      this.phase[index] = QUEUED;
      this.front.push(index);
    }
    this.grow(now, actions);
    while (this.running < this.capacity && (this.front.length > 0 || this.next < this.size)) {
      const index = this.front.length > 0 ? this.front.pop()! : this.next++;
      if (this.phase[index] !== QUEUED) continue;
      this.phase[index] = RUNNING;
      this.running++;
      actions.push({ type: 'launch', index });
    }
    return actions;
  }
}
