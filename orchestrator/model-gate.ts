// A process-wide limit on model requests in flight, so a big fan-out queues instead of flooding the provider.
import { describedAs, type ModelProvider, type ModelRequest, type ModelResult } from './models/provider.js';

export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private head = 0;

  constructor(private readonly limit: number) {}

  get inUse(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length - this.head;
  }

  /** Resolves to false when the signal aborts before a slot was free. */
  acquire(signal?: AbortSignal): Promise<boolean> | boolean {
    if (this.active < this.limit) {
      this.active++;
      return true;
    }
    return new Promise((resolve) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(grant, this.head);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(false);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  release(): void {
    if (this.head < this.waiting.length) {
      const next = this.waiting[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.waiting.length) {
        this.waiting.splice(0, this.head);
        this.head = 0;
      }
      next(); // the slot passes straight to the next waiter
      return;
    }
    this.active--;
  }
}

/** Wraps a provider so at most `limit` of its requests are in flight across all agents. */
export function gateProvider(provider: ModelProvider, gate: Semaphore): ModelProvider {
  return {
    ...describedAs(provider),
    async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResult> {
      const granted = gate.acquire(signal);
      if (!(granted === true || (await granted)))
        return {
          ok: false,
          error: { kind: 'aborted', message: 'aborted while queued for the model', retryable: false },
        };
      try {
        return await provider.complete(request, signal);
      } finally {
        gate.release();
      }
    },
  };
}
