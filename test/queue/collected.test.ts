// A finished job leaves Redis once the coordinator's journal holds its item's result, and a resumed coordinator
// still reports that item (from the journal) while it collects the job that finished while it was down. A worker's
// item trees are reused: nothing an item left in one reaches the next item's diff.
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
    "reuse a worker's item tree: a shell item's new files and a file-tools item's edits are gone for the next item",
    { timeout: 20_000 },
    async () => {
      const { dir, redis } = fixture;
      const root = path.join(dir, 'reuse');
      // b.txt: file tools only (put back by its own files); the others also leave a new file through the shell.
      const shell = [
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo $1 > new-$1' } }] },
        { toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'a', new_string: 'b' } }] },
        { text: 'fixed $1' },
      ];
      const { repo, script: file } = workspace(
        root,
        { 'a.txt': 'a\n', 'b.txt': 'a\n', 'c.txt': 'a\n' },
        {
          agents: [
            { match: { role: 'worker', prompt: 'Fix (b\\.txt)' }, turns: shell.slice(1) },
            { match: { role: 'worker', prompt: 'Fix (\\S+)' }, turns: shell },
          ],
        },
      );
      // One slot: every item runs in the same tree, one after another.
      const worker = startWorker(redis.url, clone(repo, root, 'w1'), dir, 'w1', ['--concurrency', '1']);
      try {
        const items = ['a.txt', 'b.txt', 'c.txt'];
        const swarm = await swarmOnQueue(redis.url, repo, file, items, dir, ['--permission-mode', 'yolo']);
        expect(swarm.exitCode).toBe(0);
        const report = JSON.parse(swarm.stdout) as { summary: unknown };
        expect(report.summary).toEqual({ completed: 3 });
        const read = (name: string) => readFileSync(path.join(repo, name), 'utf8');
        expect(items.map(read)).toEqual(['b\n', 'b\n', 'b\n']);
        expect([read('new-a.txt'), read('new-c.txt')]).toEqual(['a.txt\n', 'c.txt\n']);
        expect(readdirSync(repo).filter((name) => name.startsWith('new-'))).toEqual(['new-a.txt', 'new-c.txt']);
      } finally {
        worker.child.kill('SIGKILL');
        await worker.child;
      }
    },
  );

  it(
    "leave Redis once the item's result is journaled; a resumed coordinator reports them and collects the rest",
    { timeout: 20_000 },
    async () => {
      const { dir, redis } = fixture;
      const log = path.join(dir, 'runs.log');
      const { repo, script: file } = workspace(dir, { 'a.txt': 'a\n', 'b.txt': 'a\n' }, script(log, 2500));
      const worker = startWorker(redis.url, clone(repo, dir, 'w1'), dir, 'w1');
      const probe = fixture.client();
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
        await until(async () => (await probe.keys('bull:*:item-1-1')).length === 0, "a.txt's job to go");
        const [job] = await probe.keys('bull:*:item-2-1');
        expect(job).toBeDefined();
        const queueKeys = `${job!.slice(0, -'item-2-1'.length)}*`;
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
        // The worker's last stalled check of the removed queue leaves nothing behind either, once it stops serving it.
        await until(async () => (await probe.keys(queueKeys)).length === 0, 'no queue keys left');
      } finally {
        worker.child.kill('SIGKILL');
        await worker.child;
      }
    },
  );
});
