// The swarm-wide limit on model requests in flight, across every worker: a Redis semaphore of expiring leases
// (BullMQ counts jobs, not the model calls inside them). A killed worker's leases expire, so its slots come back.
import { randomUUID } from 'node:crypto';
import type { Redis as RedisClient } from 'ioredis';
import {
  describedAs,
  type ModelProvider,
  type ModelRequest,
  type ModelResult,
} from '../../orchestrator/models/provider.js';

// Drops expired leases, then takes one if there is room. Time is the server's, so machines' clocks may differ.
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
  return 1
end
return 0`;

const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local renewed = redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[1]), ARGV[2])
-- The key's own expiry moves too: one long request with no other acquire would otherwise lose the whole set.
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) * 2)
return renewed`;

export class LeaseGate {
  constructor(
    private readonly redis: RedisClient,
    readonly key: string,
    private readonly limit: number,
    private readonly leaseMs = 60_000,
    private readonly pollMs = 20,
    /** How often a held lease is renewed (a third of its time, at least a second). */
    private readonly renewMs = Math.max(1000, leaseMs / 3),
  ) {}

  /** Waits for a lease; returns a release function, or undefined when the signal aborted first. */
  async acquire(signal: AbortSignal): Promise<(() => void) | undefined> {
    const token = randomUUID();
    for (;;) {
      if (signal.aborted) return undefined;
      let got = 0;
      try {
        got = Number(await this.redis.eval(ACQUIRE, 1, this.key, this.limit, this.leaseMs, token));
      } catch {
        // Redis away (a restart): wait and try again; the request is not lost.
      }
      if (got === 1) break;
      await new Promise((resolve) => setTimeout(resolve, this.pollMs + Math.random() * this.pollMs));
    }
    // A long request keeps its lease alive; a dead process stops renewing and the lease expires.
    const renew = setInterval(
      () => void this.redis.eval(RENEW, 1, this.key, this.leaseMs, token).catch(() => undefined),
      this.renewMs,
    );
    renew.unref();
    return () => {
      clearInterval(renew);
      void this.redis.zrem(this.key, token).catch(() => undefined);
    };
  }
}

/** The provider, with every request holding a swarm-wide lease. */
export function leasedProvider(provider: ModelProvider, gate: LeaseGate): ModelProvider {
  return {
    ...describedAs(provider),
    async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResult> {
      const release = await gate.acquire(signal);
      if (!release)
        return {
          ok: false,
          error: { kind: 'aborted', message: 'aborted while waiting for a model request slot', retryable: false },
        };
      try {
        return await provider.complete(request, signal);
      } finally {
        release();
      }
    },
  };
}
