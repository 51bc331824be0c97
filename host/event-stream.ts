// One run's events as an async iterator, safe against a slow reader: the bus never waits for it (events are
// emitted synchronously on the hot path), and what it has not read yet is bounded. The policy, when `maxBuffered`
// events wait unread: a new streamed piece (`message.delta`, `tool.update`, whose whole also arrives as `message`
// or in the tool's result) is dropped; any other new event takes the place of the oldest waiting streamed piece, or
// else of the oldest waiting event. Every dropped event is counted in `dropped`. The iterator ends when the run ends
// (after its last event), or when the reader stops (`break` in `for await`).
import type { EventBus, EventType, MurmurEvent } from '../orchestrator/events.js';

export const DEFAULT_MAX_BUFFERED = 10_000;

const STREAMED: ReadonlySet<EventType> = new Set<EventType>(['message.delta', 'tool.update']);

export interface EventStreamOptions {
  /** How many unread events are kept (default 10,000); beyond that some are dropped (see `dropped`). */
  maxBuffered?: number;
}

/** A first-in first-out list with absolute positions, so an entry can be cleared where it waits. */
class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  private base = 0;

  /** The position of the first entry still waiting. */
  get start(): number {
    return this.base + this.head;
  }

  get size(): number {
    return this.items.length - this.head;
  }

  push(value: T): number {
    this.items.push(value);
    return this.base + this.items.length - 1;
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  /** The first entry (undefined when it was cleared), removed. */
  shift(): T | undefined {
    const value = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.base += this.head;
      this.head = 0;
    }
    return value;
  }

  /** Clears the entry at `position`; whether it was there. */
  clear(position: number): boolean {
    const index = position - this.base;
    if (index < this.head || index >= this.items.length || this.items[index] === undefined) return false;
    this.items[index] = undefined;
    return true;
  }
}

export class EventStream implements AsyncIterableIterator<MurmurEvent> {
  /** Events dropped because the reader fell more than `maxBuffered` events behind. */
  dropped = 0;
  private readonly waiting = new Fifo<MurmurEvent>();
  /** Positions (in `waiting`) of the streamed pieces, the first to go when the buffer is full. */
  private readonly streamed = new Fifo<number>();
  private unread = 0;
  private readonly readers: ((result: IteratorResult<MurmurEvent>) => void)[] = [];
  private ended = false;
  private readonly off: () => void;
  private readonly max: number;

  constructor(bus: EventBus, options: EventStreamOptions = {}) {
    const max = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
    this.max = Number.isFinite(max) && max >= 1 ? Math.floor(max) : DEFAULT_MAX_BUFFERED;
    this.off = bus.on('*', (event) => this.push(event));
  }

  private push(event: MurmurEvent): void {
    if (this.ended) return;
    const reader = this.readers.shift();
    if (reader) return reader({ value: event, done: false });
    const isStreamed = STREAMED.has(event.type);
    if (this.unread >= this.max) {
      this.dropped++;
      if (isStreamed) return;
      this.makeRoom();
    }
    const position = this.waiting.push(event);
    this.unread++;
    if (isStreamed) this.streamed.push(position);
  }

  /** Drops the oldest waiting streamed piece, else the oldest waiting event. */
  private makeRoom(): void {
    while (this.streamed.size > 0) {
      if (this.waiting.clear(this.streamed.shift()!)) {
        this.unread--;
        return;
      }
    }
    while (this.waiting.size > 0) {
      if (this.waiting.shift() !== undefined) {
        this.unread--;
        return;
      }
    }
  }

  next(): Promise<IteratorResult<MurmurEvent>> {
    while (this.waiting.size > 0) {
      const event = this.waiting.shift();
      // Positions of streamed pieces already read are of no use any more.
      while (this.streamed.size > 0 && this.streamed.peek()! < this.waiting.start) this.streamed.shift();
      if (event !== undefined) {
        this.unread--;
        return Promise.resolve({ value: event, done: false });
      }
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.readers.push(resolve));
  }

  /** The run ended: the reader gets what is waiting, then the end. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.off();
    for (const reader of this.readers.splice(0)) reader({ value: undefined, done: true });
  }

  /** The reader stopped (`break`): nothing more is kept. */
  return(): Promise<IteratorResult<MurmurEvent>> {
    this.end();
    while (this.waiting.size > 0) this.waiting.shift();
    while (this.streamed.size > 0) this.streamed.shift();
    this.unread = 0;
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
