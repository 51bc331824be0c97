// The swarm-wide limit on model requests: a Redis semaphore of expiring leases, shared by every worker.
import { describe, expect, it } from 'vitest';
import { LeaseGate } from '../../swarm/queue/leases.js';
import { privateRedis, redisAvailable } from './helpers.js';

const available = redisAvailable();

describe.runIf(available)('model request leases', () => {
  const fixture = privateRedis('murmur-leases-');
  const client = () => fixture.client();

  it('let at most the limit through across processes\' connections; a release hands the slot on', async () => {
    // Two gates on two connections stand for two workers sharing one swarm's limit.
    const one = new LeaseGate(client(), 'test:leases', 2, 60_000, 5);
    const two = new LeaseGate(client(), 'test:leases', 2, 60_000, 5);
    const signal = new AbortController().signal;
    const first = await one.acquire(signal);
    const second = await two.acquire(signal);
    let third: (() => void) | undefined;
    const waiting = two.acquire(signal).then((release) => (third = release));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(third).toBeUndefined();
    first!();
    await waiting;
    expect(third).toBeDefined();
    second!();
    third!();
  });

  it('expire: a worker killed while holding a lease gives its slot back after the lease time', async () => {
    const dead = new LeaseGate(client(), 'test:expiring', 1, 300, 5);
    const alive = new LeaseGate(client(), 'test:expiring', 1, 300, 5);
    const signal = new AbortController().signal;
    await dead.acquire(signal); // never released, as by a killed process (its renewals stop with it)
    // The renewal timer of `dead` runs only every second at the earliest; the lease lapses before that.
    // Without expiry this would wait for ever (and the test time out).
    const release = await alive.acquire(signal);
    expect(release).toBeDefined();
    release!();
  });

  it('a waiter gives up when its request is aborted', async () => {
    const gate = new LeaseGate(client(), 'test:abort', 1, 60_000, 5);
    const held = await gate.acquire(new AbortController().signal);
    const stop = new AbortController();
    const waiting = gate.acquire(stop.signal);
    stop.abort();
    expect(await waiting).toBeUndefined();
    held!();
  });
});

describe.runIf(available)('model request leases held through one long request', () => {
  const fixture = privateRedis('murmur-leases-long-');

  it('keep their set alive past the key\'s first expiry while renewed, so the slot stays counted', async () => {
    const redis = fixture.client();
    // Lease 150 ms, renewed every 50 ms: the key's first expiry (2 x 150 ms) passes while the one request runs.
    const gate = new LeaseGate(redis, 'test:long', 1, 150, 5, 50);
    const release = await gate.acquire(new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await redis.zcard('test:long')).toBe(1);
    // The limit still holds: a second request waits.
    const other = new LeaseGate(redis, 'test:long', 1, 150, 5, 50);
    const stop = new AbortController();
    const waiting = other.acquire(stop.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    stop.abort();
    expect(await waiting).toBeUndefined();
    release!();
  });
});
