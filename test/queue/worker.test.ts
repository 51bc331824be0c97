// `murmur worker`'s service on its own against a real Redis: --concurrency caps items across every queue it
// serves, queues of coordinators gone quiet stop being served, and worktrees of killed workers are swept.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { ModelProvider } from '../../orchestrator/models/provider.js';
import { builtinProfile } from '../../roles/profile.js';
import { JOB_FORMAT, type ItemJob } from '../../swarm/queue/job.js';
import { heartbeat, LIVE_QUEUES_KEY, liveQueues } from '../../swarm/queue/listing.js';
import { QueueWorker, sweepStaleItemTrees } from '../../swarm/queue/worker.js';
import { git, gitRepo } from '../swarm/helpers.js';
import { privateRedis, redisAvailable, until } from './helpers.js';

const available = redisAvailable();

describe.runIf(available)('the queue worker', () => {
  const fixture = privateRedis('murmur-qworker-');

  it('runs at most --concurrency items at once across all the queues it serves', { timeout: 30_000 }, async () => {
    const repo = path.join(fixture.dir, 'repo-cap');
    mkdirSync(repo);
    gitRepo(repo, { 'a.txt': 'a\n' });
    const base = git(repo, 'rev-parse', 'HEAD').trim();
    let active = 0;
    let most = 0;
    const worker = new QueueWorker({
      open: () => fixture.client(),
      root: repo,
      concurrency: 1,
      provider: async () => ({ name: 'none', capabilities: {} }) as unknown as ModelProvider,
      // Each item holds its slot for a while, then fails (no real engine needed to count what runs at once).
      engineFor: async () => {
        active++;
        most = Math.max(most, active);
        await new Promise((resolve) => setTimeout(resolve, 200));
        active--;
        throw new Error('not a real engine');
      },
      machine: 'w1',
      stalledMs: 5_000,
      discoverMs: 50,
      log: () => undefined,
    });
    const names = ['murmur-test-cap-1', 'murmur-test-cap-2'];
    const queues = names.map((name) => new Queue(name, { connection: fixture.client() }));
    try {
      for (const [i, queue] of queues.entries()) {
        await heartbeat(fixture.client(), names[i]!);
        for (const index of [0, 1]) {
          const job: ItemJob = {
            format: JOB_FORMAT,
            swarmId: 's-1',
            index,
            item: `i${index}`,
            prompt: 'Fix',
            profile: builtinProfile('worker'),
            verify: false,
            maxRounds: 1,
            itemTimeoutMs: 60_000,
            model: 'scripted:x',
            base,
            subdir: '',
            maxModelRequests: 4,
          };
          await queue.add('item', job, { jobId: `item-${index + 1}-1` });
        }
      }
      await worker.start();
      await until(
        async () => (await Promise.all(queues.map((q) => q.getJobCountByTypes('failed')))).every((n) => n === 2),
        'every job to end',
      );
      expect(most).toBe(1);
    } finally {
      await worker.close();
      for (const queue of queues) await queue.obliterate({ force: true }).finally(() => queue.close());
    }
  });

  it('lists only queues whose coordinator beat recently, and drops the others', async () => {
    const redis = fixture.client();
    await heartbeat(redis, 'murmur-test-quiet');
    expect(await liveQueues(redis, 60_000)).toContain('murmur-test-quiet');
    // Quiet for longer than the window (a slow machine only makes it quieter)…
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await liveQueues(redis, 1_000)).not.toContain('murmur-test-quiet');
    expect(await redis.zscore(LIVE_QUEUES_KEY, 'murmur-test-quiet')).toBeNull();
    // A resumed coordinator beats again and is served again (the window is wide enough for a loaded machine).
    await heartbeat(redis, 'murmur-test-quiet');
    expect(await liveQueues(redis, 1_000)).toContain('murmur-test-quiet');
  });
});

describe('item worktrees of killed workers', () => {
  it('are removed and pruned at start; those of live workers stay', async () => {
    const { tempDir, removeDir } = await import('../swarm/helpers.js');
    const dir = await tempDir('murmur-sweep-');
    try {
      const repo = path.join(dir, 'repo');
      mkdirSync(repo);
      gitRepo(repo, { 'a.txt': 'a\n' });
      const trees = path.join(dir, 'tmp');
      mkdirSync(trees);
      // A pid that has ended: its worker was killed (kill -9) with its worktree registered.
      const dead = spawnSync('true').pid!;
      const stale = path.join(trees, `murmur-item-${dead}-abc`);
      const live = path.join(trees, `murmur-item-${process.ppid}-def`);
      git(repo, 'worktree', 'add', '-q', '--detach', stale);
      git(repo, 'worktree', 'add', '-q', '--detach', live);
      await sweepStaleItemTrees(repo, trees);
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(live)).toBe(true);
      const listed = git(repo, 'worktree', 'list', '--porcelain');
      expect(listed).not.toContain(stale);
      expect(listed).toContain(live);
    } finally {
      await removeDir(dir);
    }
  });
});
