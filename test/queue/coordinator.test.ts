// The coordinator's launcher against a real Redis: BullMQ's global concurrency follows the swarm's capacity, the
// queue is listed for workers while the swarm runs, and a finished swarm removes it.
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { builtinProfile } from '../../roles/profile.js';
import { QueueLauncher } from '../../swarm/queue/coordinator.js';
import { LIVE_QUEUES_KEY } from '../../swarm/queue/listing.js';
import { privateRedis, redisAvailable } from './helpers.js';

const available = redisAvailable();

/** The queue's global concurrency once it is `wanted` (the launcher sets it without waiting), or the last seen. */
async function concurrencyBecomes(queue: Queue, wanted: number): Promise<number | null> {
  let seen: number | null = null;
  for (let i = 0; i < 200 && seen !== wanted; i++) {
    seen = await queue.getGlobalConcurrency();
    if (seen !== wanted) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return seen;
}

describe.runIf(available)('the queue launcher', () => {
  const fixture = privateRedis('murmur-coordinator-');
  const open = () => fixture.client();

  it("sets the queue's global concurrency from the swarm's capacity as it ramps, and lists the queue while it runs", async () => {
    const name = 'murmur-test-capacity';
    const launcher = await QueueLauncher.open(
      {
        swarmId: 's-1',
        profile: builtinProfile('worker'),
        verify: false,
        maxRounds: 2,
        itemTimeoutMs: 60_000,
        maxModelRequests: 16,
        queue: { name, base: 'a'.repeat(40), subdir: '', model: 'scripted:x' },
        initialCapacity: 5,
      },
      { open, root: fixture.dir, patchesHome: fixture.dir, addUsage: () => undefined },
    );
    const queue = new Queue(name, { connection: open() });
    const redis = open();
    expect(await queue.getGlobalConcurrency()).toBe(5);
    expect(await redis.zscore(LIVE_QUEUES_KEY, name)).not.toBeNull();
    launcher.capacity(9);
    expect(await concurrencyBecomes(queue, 9)).toBe(9);
    // A rate limit lowers it for every worker at once.
    launcher.capacity(3);
    expect(await concurrencyBecomes(queue, 3)).toBe(3);
    // Nothing out on the queue: the finished swarm takes its queue off the list.
    await launcher.finish();
    expect(await redis.zscore(LIVE_QUEUES_KEY, name)).toBeNull();
    await queue.close();
  });

  it('closes its connections when opening fails (a user that may not run scripts): nothing keeps the process up', async () => {
    const admin = open();
    await admin.call('ACL', 'SETUSER', 'noscripts', 'on', '>pw', '~*', '&*', '+@all', '-eval');
    const url = `redis://noscripts:pw@127.0.0.1:${fixture.redis.port}`;
    const { Redis } = await import('ioredis');
    const opened = QueueLauncher.open(
      {
        swarmId: 's-1',
        profile: builtinProfile('worker'),
        verify: false,
        maxRounds: 1,
        itemTimeoutMs: 60_000,
        maxModelRequests: 4,
        queue: { name: 'murmur-test-refused', base: 'a'.repeat(40), subdir: '', model: 'scripted:x' },
        initialCapacity: 1,
      },
      {
        open: () => new Redis(url, { maxRetriesPerRequest: null }).on('error', () => undefined),
        root: fixture.dir,
        patchesHome: fixture.dir,
        addUsage: () => undefined,
      },
    );
    await expect(opened).rejects.toThrow(/NOPERM/);
    const clientsOf = async () =>
      String(await admin.call('CLIENT', 'LIST'))
        .split('\n')
        .filter((line) => line.includes('user=noscripts')).length;
    for (let i = 0; i < 100 && (await clientsOf()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await clientsOf()).toBe(0);
  });
});
