// The swarm-wide limit on model requests: a Redis semaphore of expiring leases, shared by every worker.
import { describe, expect, it } from 'vitest';
import { LeaseGate } from '../../swarm/queue/leases.js';
import { privateRedis, redisAvailable } from './helpers.js';

const available = redisAvailable();

describe.runIf(available)('model request leases', () => {
  const fixture = privateRedis('murmur-leases-');
  const client = () => fixture.client();

  it("let at most the limit through across processes' connections; a release hands the slot on", async () => {
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
    // `dead` never renews (its renewal is an hour away), as a killed process: however slowly this machine
    // runs, its lease is not renewed before `alive` finds it lapsed.
    const dead = new LeaseGate(client(), 'test:expiring', 1, 300, 5, 3_600_000);
    const alive = new LeaseGate(client(), 'test:expiring', 1, 300, 5);
    const signal = new AbortController().signal;
    await dead.acquire(signal); // never released, as by a killed process (its renewals stop with it)
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

  it("keep their set alive past the key's first expiry while renewed, so the slot stays counted", async () => {
    const redis = fixture.client();
    // Lease 1 s, renewed every 100 ms: the key's first expiry (2 x 1 s) passes while the one request runs. The
    // renewals leave 900 ms to spare, so a loaded machine that runs a timer late does not lose the lease.
    const gate = new LeaseGate(redis, 'test:long', 1, 1_000, 5, 100);
    const release = await gate.acquire(new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await redis.zcard('test:long')).toBe(1);
    // The limit still holds: a second request waits.
    const other = new LeaseGate(redis, 'test:long', 1, 1_000, 5, 100);
    const stop = new AbortController();
    const waiting = other.acquire(stop.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    stop.abort();
    expect(await waiting).toBeUndefined();
    release!();
  });
});
