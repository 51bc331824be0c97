// A finished job leaves Redis once the coordinator's journal holds its item's result, and a resumed coordinator
// still reports that item (from the journal) while it collects the job that finished while it was down.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Script } from '../../orchestrator/models/scripted.js';
import { waitFor } from '../swarm/helpers.js';
import {
  childEnv,
  clone,
  murmur,
  privateRedis,
  readEvents,
  redisAvailable,
  startWorker,
  swarmOnQueue,
  until,
  workspace,
} from './helpers.js';

const available = redisAvailable();

/** a.txt ends at once, b.txt takes `slowMs`; each run leaves a line in `log`. */
function script(log: string, slowMs: number): Script {
  const turns = (latencyMs: number) => [
    { toolCalls: [{ name: 'bash', arguments: { command: `echo $1 >> ${log}` } }] },
    { latencyMs, toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'a', new_string: 'b' } }] },
    { text: 'fixed $1' },
  ];
  return {
    agents: [
      { match: { role: 'worker', prompt: 'Fix (a\\.txt)' }, turns: turns(0) },
      { match: { role: 'worker', prompt: 'Fix (b\\.txt)' }, turns: turns(slowMs) },
    ],
  };
}

describe.runIf(available)('collected queue jobs', () => {
  const fixture = privateRedis('murmur-queue-collected-');

  it(
    "leave Redis once the item's result is journaled; a resumed coordinator reports them and collects the rest",
    { timeout: 20_000 },
    async () => {
      const { dir, redis } = fixture;
      const log = path.join(dir, 'runs.log');
      const { repo, script: file } = workspace(dir, { 'a.txt': 'a\n', 'b.txt': 'a\n' }, script(log, 2500));
      const worker = startWorker(redis.url, clone(repo, dir, 'w1'), dir, 'w1');
      const probe = fixture.client();
      const jobKeys = async (id: string) => (await probe.keys(`bull:*:${id}`)).length;
      try {
        const events = path.join(dir, 'events.jsonl');
        const swarm = swarmOnQueue(redis.url, repo, file, ['a.txt', 'b.txt'], dir, [
          '--permission-mode',
          'yolo',
          '--events',
          events,
        ]);
        const done = (item: string) =>
          readEvents(events).some((e) => e.type === 'swarm.item' && e.item === item && e.state === 'completed');
        await waitFor(() => (done('a.txt') ? true : undefined), 10_000, 'a.txt to complete');
        // Journaled, then removed: the job of a.txt goes while b.txt's is still out.
        await until(async () => (await jobKeys('item-1-1')) === 0, "a.txt's job to go");
        expect(await jobKeys('item-2-1')).toBe(1);
        swarm.kill('SIGKILL');
        await swarm;
        expect(done('b.txt')).toBe(false);
        const sessions = path.join(repo, '.murmur', 'sessions');
        const state = readFileSync(path.join(sessions, readdirSync(sessions)[0]!, 'state.json'), 'utf8');
        const sessionId = (JSON.parse(state) as { id: string }).id;
        const resumed = await murmur(['resume', sessionId, '--json'], repo, childEnv(dir));
        expect(resumed.exitCode).toBe(0);
        const report = JSON.parse(resumed.stdout) as { summary: unknown; items: { item: string; outcome: string }[] };
        expect(report.summary).toEqual({ completed: 2 });
        expect(report.items.map((i) => [i.item, i.outcome])).toEqual([
          ['a.txt', 'completed'],
          ['b.txt', 'completed'],
        ]);
        // Neither ran twice; both edits landed once; the finished swarm left nothing in Redis.
        expect(readFileSync(log, 'utf8').split('\n').filter(Boolean).sort()).toEqual(['a.txt', 'b.txt']);
        expect(readFileSync(path.join(repo, 'a.txt'), 'utf8') + readFileSync(path.join(repo, 'b.txt'), 'utf8')).toBe(
          'b\nb\n',
        );
        expect(await probe.keys('bull:*')).toEqual([]);
      } finally {
        worker.child.kill('SIGKILL');
        await worker.child;
      }
    },
  );
});
