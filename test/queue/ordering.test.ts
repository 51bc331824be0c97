// The coordinator takes in returned diffs in item order, and an item's job stays recorded until its result is:
// a real Redis, a real repository, and a BullMQ worker in the test standing in for `murmur worker` (it answers
// with hand-written diffs, later items first).
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { queuedItem } from '../../swarm/item-state.js';
import { QueueLauncher } from '../../swarm/queue/coordinator.js';
import { JOB_FORMAT, type ItemJob, type ItemOutcomeData } from '../../swarm/queue/job.js';
import { LIVE_QUEUES_KEY } from '../../swarm/queue/listing.js';
import { plainSpec } from '../swarm/plain-spec.js';
import { SwarmRun } from '../../swarm/runner.js';
import type { SwarmItemRecord } from '../../swarm/saved-swarm.js';
import { builtinProfile } from '../../roles/profile.js';
import { git, gitRepo } from '../swarm/helpers.js';
import { privateRedis, redisAvailable, until } from './helpers.js';

const available = redisAvailable();

/** A diff that turns the first line `1` of f.txt into `line`. */
function firstLineDiff(line: string): string {
  return [
    'diff --git a/f.txt b/f.txt',
    '--- a/f.txt',
    '+++ b/f.txt',
    '@@ -1,3 +1,3 @@',
    '-1',
    `+${line}`,
    ' 2',
    ' 3',
    '',
  ].join('\n');
}

describe.runIf(available)('the queue coordinator', () => {
  const fixture = privateRedis('murmur-ordering-');

  it(
    'applies diffs in item order (a later item waits for earlier ones), keeping each job id until its result is recorded',
    { timeout: 30_000 },
    async () => {
      const repo = path.join(fixture.dir, 'repo');
      mkdirSync(repo);
      gitRepo(repo, { 'f.txt': '1\n2\n3\n' });
      const name = 'murmur-test-order';
      const items = [0, 1].map((i) => queuedItem(`item-${i}`, { prompt: `Fix item-${i}` }));
      // No settled log here: no record is ever `null`.
      const saves: (SwarmItemRecord | null)[][] = [];
      const launcher = await QueueLauncher.open(
        {
          swarmId: 's-1',
          profile: builtinProfile('worker'),
          verify: false,
          maxRounds: 1,
          itemTimeoutMs: 60_000,
          maxModelRequests: 4,
          queue: { name, base: git(repo, 'rev-parse', 'HEAD').trim(), subdir: '', model: 'scripted:x' },
          initialCapacity: 2,
        },
        { open: () => fixture.client(), root: repo, patchesHome: fixture.dir, addUsage: () => undefined, pollMs: 100 },
      );
      // Both items edit the same line: whichever is applied first wins, the other is a conflict.
      let releaseFirst!: () => void;
      const firstMayEnd = new Promise<void>((resolve) => (releaseFirst = resolve));
      const worker = new Worker(
        name,
        async (job): Promise<ItemOutcomeData> => {
          const data = job.data as ItemJob;
          if (data.index === 0) await firstMayEnd;
          return {
            format: JOB_FORMAT,
            kind: 'done',
            outcome: 'completed',
            text: `fixed ${data.item}`,
            rounds: 0,
            diff: firstLineDiff(`from-${data.index}`),
            host: 'test',
            model: 'm',
          };
        },
        { connection: fixture.client(), concurrency: 2 },
      );
      const run = new SwarmRun(plainSpec('order', items, 2), launcher, {
        emit: () => undefined,
        persist: (state) => saves.push(structuredClone(state.items)),
      });
      try {
        const done = run.run(new AbortController().signal);
        // The second item's job completes first; its diff waits for the first item.
        const queue = (launcher as unknown as { queue: import('bullmq').Queue }).queue;
        await until(async () => (await queue.getJobState('item-2-1')) === 'completed', 'the second job to complete');
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(readFileSync(path.join(repo, 'f.txt'), 'utf8')).toBe('1\n2\n3\n');
        // Not ended yet, so still attached to its job: a coordinator killed now collects it on resume, never runs it again.
        expect(run.item(1).status).toBe('launched');
        expect(run.state().items[1]!.result).toBeUndefined();
        expect(run.state().items[1]!.jobId).toBe('item-2-1');
        releaseFirst();
        const results = await done;
        expect([...results].map((r) => r.outcome)).toEqual(['completed', 'conflict']);
        expect(readFileSync(path.join(repo, 'f.txt'), 'utf8')).toBe('from-0\n2\n3\n');
        expect(readdirSync(path.join(fixture.dir, 'patches'))).toEqual(['2.patch']);
        // In every saved state, an item that had a job keeps it until its result is there.
        for (const [i, state] of saves.entries()) {
          for (const [index, item] of state.entries()) {
            const hadJob = saves.slice(0, i).some((earlier) => earlier[index]?.jobId !== undefined);
            if (hadJob)
              expect(item?.jobId !== undefined || item?.result !== undefined, `save ${i}, item ${index}`).toBe(true);
          }
        }
        // Ended items let go of their jobs, and the finished queue is no longer listed for workers.
        expect(run.state().items.map((s) => s?.jobId)).toEqual([undefined, undefined]);
        expect(await fixture.client().zscore(LIVE_QUEUES_KEY, name)).toBeNull();
      } finally {
        releaseFirst();
        await worker.close();
      }
    },
  );
});
