// The list of live swarm queues that workers serve: a Redis sorted set scored by each coordinator's heartbeat
// (the server's clock, so machines' clocks may differ). A swarm that was stopped or crashed and never resumed
// stops being served once its heartbeat is old; `murmur resume` beats again and workers come back to it.
import type { Redis as RedisClient } from 'ioredis';

/** Sorted set: queue name -> the server time (ms) of its coordinator's last heartbeat. */
export const LIVE_QUEUES_KEY = 'murmur:live-queues';
/** How often a running coordinator beats. */
export const HEARTBEAT_MS = 15_000;
/** A queue whose coordinator has not beaten for this long is no longer served. */
export const STALE_QUEUE_MS = 120_000;

const BEAT = `
local t = redis.call('TIME')
redis.call('ZADD', KEYS[1], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), ARGV[1])
return 1`;

// Drops queues not beaten for ARGV[1] ms, returns the others.
const LIVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - tonumber(ARGV[1])))
return redis.call('ZRANGE', KEYS[1], 0, -1)`;

export async function heartbeat(redis: RedisClient, name: string): Promise<void> {
  await redis.eval(BEAT, 1, LIVE_QUEUES_KEY, name);
}

export async function unlist(redis: RedisClient, name: string): Promise<void> {
  await redis.zrem(LIVE_QUEUES_KEY, name);
}

export async function liveQueues(redis: RedisClient, staleMs = STALE_QUEUE_MS): Promise<string[]> {
  return (await redis.eval(LIVE, 1, LIVE_QUEUES_KEY, staleMs)) as string[];
}

// A worker's stalled check may run once more after a finished swarm removed its queue, and it writes the queue's
// meta (the events' length) and its own lock again: those two go when nothing else of the queue is there.
const SWEEP = `
for i = 3, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then return 0 end
end
redis.call('DEL', KEYS[1], KEYS[2])
return 1`;

/** After a worker stopped serving a queue that is no longer listed: what it left of a removed queue goes. */
export async function sweepRemovedQueue(redis: RedisClient, keys: Record<string, string>): Promise<void> {
  const rest = ['events', 'wait', 'active', 'completed', 'failed', 'delayed', 'paused', 'prioritized'];
  const named = [keys.meta, keys['stalled-check'], ...rest.map((key) => keys[key])];
  if (named.some((key) => key === undefined)) return;
  await redis.eval(SWEEP, named.length, ...(named as string[]));
}
