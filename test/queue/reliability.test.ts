// The queue's failure modes, each with real processes: a worker killed mid-item, the coordinator killed and
// resumed, Redis restarted mid-swarm, a malformed or incompatible job, and bad queue URLs.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { Script } from '../../orchestrator/models/scripted.js';
import { builtinProfile } from '../../roles/profile.js';
import { JOB_FORMAT, type ItemJob } from '../../swarm/queue/job.js';
import { heartbeat, unlist } from '../../swarm/queue/listing.js';
import { git, waitFor } from '../swarm/helpers.js';
import {
  childEnv,
  clone,
  murmur,
  privateRedis,
  readEvents,
  RedisServer,
  redisAvailable,
  startWorker,
  swarmOnQueue,
  workspace,
} from './helpers.js';

const available = redisAvailable();

/** Each run of an item leaves a line in runs.log (outside the repository), so a test can count them. */
function countingScript(log: string, latencyMs: number): Script {
  return {
    agents: [
      {
        match: { role: 'worker', prompt: 'Fix (\\S+)' },
        turns: [
          { latencyMs, toolCalls: [{ name: 'bash', arguments: { command: `echo $1 >> ${log}` } }] },
          { latencyMs, toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'a', new_string: 'b' } }] },
          { text: 'fixed $1' },
        ],
      },
    ],
  };
}

function runs(log: string): string[] {
  try {
    return readFileSync(log, 'utf8').split('\n').filter(Boolean).sort();
  } catch {
    return [];
  }
}

type Worker = ReturnType<typeof startWorker>;
async function stopAll(workers: Worker[]): Promise<void> {
  for (const w of workers) w.child.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.child));
}

describe.runIf(available)('the queue under failures', () => {
  const fixture = privateRedis('murmur-queue-rel-');

  /** A repository with `files`, a counting script of `latencyMs` per turn, and one worker `w1` on its own clone. */
  function scene(name: string, files: Record<string, string>, latencyMs: number) {
    const { dir, redis } = fixture;
    const root = path.join(dir, name);
    const log = path.join(root, 'runs.log');
    const { repo, script } = workspace(root, files, countingScript(log, latencyMs));
    const workers = [startWorker(redis.url, clone(repo, root, 'w1'), dir, 'w1')];
    const swarm = (items: string[], extra: string[] = []) =>
      swarmOnQueue(redis.url, repo, script, items, dir, ['--permission-mode', 'yolo', ...extra]);
    return { dir, redis, root, log, repo, script, workers, swarm };
  }

  it(
    'a worker killed mid-item: another worker takes the item over; it completes once and is listed once',
    { timeout: 60_000 },
    async () => {
      const { dir, redis, root, log, repo, workers, swarm: start } = scene('kill-worker', { 'a.txt': 'a\n' }, 1500);
      const first = workers[0]!;
      try {
        const events = path.join(root, 'events.jsonl');
        const swarm = start(['a.txt'], ['--events', events]);
        await waitFor(() => (runs(log).length === 1 ? true : undefined), 20_000, 'the first worker to start the item');
        first.child.kill('SIGKILL');
        workers.push(startWorker(redis.url, clone(repo, root, 'w2'), dir, 'second'));
        const result = await swarm;
        expect(result.exitCode).toBe(0);
        const report = JSON.parse(result.stdout) as { items: { outcome: string; host: string }[] };
        expect(report.items).toHaveLength(1);
        expect(report.items[0]).toMatchObject({ outcome: 'completed', host: 'second' });
        expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('b\n');
        expect(readEvents(events).filter((e) => e.type === 'swarm.item' && e.state === 'completed')).toHaveLength(1);
      } finally {
        await stopAll(workers);
      }
    },
  );

  it(
    'the coordinator killed mid-swarm, then murmur resume: finished items are collected, none runs twice',
    { timeout: 60_000 },
    async () => {
      const {
        dir,
        log,
        repo,
        workers,
        swarm: start,
      } = scene('kill-coordinator', { 'a.txt': 'a\n', 'b.txt': 'a\n' }, 400);
      try {
        const swarm = start(['a.txt', 'b.txt']);
        await waitFor(() => (runs(log).length === 2 ? true : undefined), 20_000, 'both items to start');
        swarm.kill('SIGKILL');
        await swarm;
        // The workers finish meanwhile; nobody collects yet.
        const sessions = path.join(repo, '.murmur', 'sessions');
        const id = readFileSync(path.join(sessions, readdirSync(sessions)[0]!, 'state.json'), 'utf8');
        const sessionId = (JSON.parse(id) as { id: string }).id;
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const resumed = await murmur(['resume', sessionId, '--json'], repo, childEnv(dir));
        expect(resumed.exitCode).toBe(0);
        const report = JSON.parse(resumed.stdout) as { summary: unknown; items: { item: string; outcome: string }[] };
        expect(report.summary).toEqual({ completed: 2 });
        expect(report.items.map((i) => i.item)).toEqual(['a.txt', 'b.txt']);
        expect(runs(log)).toEqual(['a.txt', 'b.txt']);
        expect(readFileSync(path.join(repo, 'a.txt'), 'utf8') + readFileSync(path.join(repo, 'b.txt'), 'utf8')).toBe(
          'b\nb\n',
        );
      } finally {
        await stopAll(workers);
      }
    },
  );

  it(
    'Redis restarted mid-swarm (appendonly): the workers and the coordinator reconnect and finish',
    { timeout: 60_000 },
    async () => {
      const { redis, log, repo, workers, swarm: start } = scene('restart', { 'a.txt': 'a\n', 'b.txt': 'a\n' }, 700);
      try {
        const swarm = start(['a.txt', 'b.txt']);
        await waitFor(() => (runs(log).length >= 1 ? true : undefined), 20_000, 'an item to start');
        await redis.restart();
        const result = await swarm;
        expect(result.exitCode).toBe(0);
        expect((JSON.parse(result.stdout) as { summary: unknown }).summary).toEqual({ completed: 2 });
        expect(readFileSync(path.join(repo, 'a.txt'), 'utf8') + readFileSync(path.join(repo, 'b.txt'), 'utf8')).toBe(
          'b\nb\n',
        );
      } finally {
        await stopAll(workers);
      }
    },
  );

  it(
    'Redis restarted empty mid-swarm: the vanished jobs are queued again, said so, and every item completes once',
    { timeout: 90_000 },
    async () => {
      const {
        redis,
        log,
        repo,
        root,
        workers,
        swarm: start,
      } = scene('restart-empty', { 'a.txt': 'a\n', 'b.txt': 'a\n' }, 700);
      try {
        const events = path.join(root, 'events.jsonl');
        const swarm = start(['a.txt', 'b.txt'], ['--events', events]);
        await waitFor(() => (runs(log).length >= 1 ? true : undefined), 20_000, 'an item to start');
        await redis.restart(300, { empty: true });
        const result = await swarm;
        expect(result.exitCode).toBe(0);
        expect((JSON.parse(result.stdout) as { summary: unknown }).summary).toEqual({ completed: 2 });
        // Each change landed once, though an item may have run again after its job vanished.
        expect(readFileSync(path.join(repo, 'a.txt'), 'utf8') + readFileSync(path.join(repo, 'b.txt'), 'utf8')).toBe(
          'b\nb\n',
        );
        const warnings = readEvents(events).filter((e) => e.type === 'log' && /vanished from Redis/.test(e.message));
        expect(warnings.length).toBeGreaterThan(0);
      } finally {
        await stopAll(workers);
      }
    },
  );

  it(
    'a queue swarm whose URL held a password, resumed without MURMUR_QUEUE: exit 2, the session unchanged; given again, it finishes',
    { timeout: 90_000 },
    async () => {
      const { dir } = fixture;
      const root = path.join(dir, 'secret-resume');
      const log = path.join(root, 'runs.log');
      const { repo, script } = workspace(root, { 'a.txt': 'a\n', 'b.txt': 'a\n' }, countingScript(log, 700));
      // Its own folder: two servers writing one append-only file would corrupt each other's data.
      const secretDir = path.join(root, 'redis');
      mkdirSync(secretDir, { recursive: true });
      const secret = await RedisServer.start(secretDir, { password: 'right-one' });
      const workers = [startWorker(secret.url, clone(repo, root, 'w1'), dir, 'w1')];
      try {
        const queueEnv = { MURMUR_QUEUE: secret.url };
        const first = murmur(
          [
            'swarm',
            '--template',
            'Fix {{item}}',
            '--items',
            'a.txt',
            'b.txt',
            '--json',
            '--model',
            `scripted:${script}`,
            '--permission-mode',
            'yolo',
            '--max-concurrency',
            '1',
          ],
          repo,
          childEnv(dir, queueEnv),
        );
        await waitFor(() => (runs(log).length >= 1 ? true : undefined), 20_000, 'an item to start');
        first.kill('SIGINT');
        const stopped = await first;
        expect(stopped.exitCode).toBe(130);
        const sessionId = (JSON.parse(stopped.stdout) as { sessionId: string }).sessionId;
        const stateFile = path.join(repo, '.murmur', 'sessions', sessionId, 'state.json');
        const before = readFileSync(stateFile, 'utf8');
        expect(before).not.toContain('right-one');

        const refused = await murmur(['resume', sessionId, '--json'], repo, childEnv(dir));
        expect(refused.exitCode).toBe(2);
        expect(refused.stderr).toMatch(
          /holds a password \(so it was not saved\); give it again with --queue or MURMUR_QUEUE/,
        );
        expect(readFileSync(stateFile, 'utf8')).toBe(before);

        const resumed = await murmur(['resume', sessionId, '--json'], repo, childEnv(dir, queueEnv));
        expect(resumed.exitCode).toBe(0);
        expect((JSON.parse(resumed.stdout) as { summary: unknown }).summary).toEqual({ completed: 2 });
        expect(readFileSync(path.join(repo, 'a.txt'), 'utf8') + readFileSync(path.join(repo, 'b.txt'), 'utf8')).toBe(
          'b\nb\n',
        );
      } finally {
        await stopAll(workers);
        await secret.stop();
      }
    },
  );

  it(
    'a malformed or incompatible job fails with a clear reason, and the worker goes on serving',
    { timeout: 60_000 },
    async () => {
      const { repo, script, workers } = scene('malformed', { 'a.txt': 'a\n' }, 0);
      const clients = [fixture.client(), fixture.client(), fixture.client()];
      const name = 'murmur-test-malformed';
      const queue = new Queue(name, { connection: clients[0]! });
      const events = new QueueEvents(name, { connection: clients[1]! });
      try {
        await events.waitUntilReady();
        await heartbeat(clients[2]!, name);
        const good: ItemJob = {
          format: JOB_FORMAT,
          swarmId: 's-1',
          index: 0,
          item: 'a.txt',
          prompt: 'Fix a.txt',
          profile: builtinProfile('worker'),
          verify: false,
          maxRounds: 2,
          itemTimeoutMs: 60_000,
          model: `scripted:${script}`,
          base: git(repo, 'rev-parse', 'HEAD').trim(),
          subdir: '',
          permissionMode: 'yolo',
          maxModelRequests: 4,
        };
        const old = await queue.add('item', { ...good, format: 99 });
        const broken = await queue.add('item', { ...good, profile: 'worker' });
        const elsewhere = await queue.add('item', { ...good, base: 'f'.repeat(40) });
        const fine = await queue.add('item', good);
        await expect(old.waitUntilFinished(events, 20_000)).rejects.toThrow(/format 99.*same murmur version/);
        await expect(broken.waitUntilFinished(events, 20_000)).rejects.toThrow(/"profile" is not an agent profile/);
        await expect(elsewhere.waitUntilFinished(events, 20_000)).rejects.toThrow(
          /has no commit f{40} in its checkout/,
        );
        const done = (await fine.waitUntilFinished(events, 20_000)) as {
          outcome: string;
          text: string;
          diff: string;
          host: string;
        };
        expect(done).toMatchObject({ outcome: 'completed', text: 'fixed a.txt', host: 'w1' });
        expect(done.diff).toContain('-a\n+b');
      } finally {
        await unlist(clients[2]!, name);
        await queue.obliterate({ force: true });
        await Promise.allSettled([events.close(), queue.close()]);
        await stopAll(workers);
      }
    },
  );

  it(
    'a bad --queue URL, an unreachable server or a wrong password: exit 2 naming the URL, password hidden',
    { timeout: 60_000 },
    async () => {
      const { dir } = fixture;
      const root = path.join(dir, 'bad');
      const { repo, script } = workspace(root, { 'a.txt': 'a\n' }, countingScript(path.join(root, 'runs.log'), 0));
      const secretDir = path.join(root, 'redis');
      mkdirSync(secretDir, { recursive: true });
      const secret = await RedisServer.start(secretDir, { password: 'right-one' });
      try {
        const port = secret.port;
        const cases: [string, RegExp][] = [
          ['http://127.0.0.1:6379', /--queue "http:\/\/127\.0\.0\.1:6379\/?" is not a Redis URL; expected redis:\/\//],
          [
            `redis://:hunter2@127.0.0.1:1`,
            /cannot use the queue redis:\/\/:\*\*\*@127\.0\.0\.1:1: the server cannot be reached/,
          ],
          [
            `redis://:hunter2@127.0.0.1:${port}`,
            new RegExp(
              `cannot use the queue redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}: the password \\(or user\\) was refused`,
            ),
          ],
          // A database the server does not have: refused at once instead of a coordinator waiting for ever.
          [
            `redis://:right-one@127.0.0.1:${port}/999`,
            new RegExp(
              `cannot use the queue redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}/999: the server has no such database`,
            ),
          ],
          // ioredis also reads the password from the query: it is hidden there too.
          [
            `redis://127.0.0.1:${port}/0?password=hunter2`,
            new RegExp(
              `cannot use the queue redis://127\\.0\\.0\\.1:${port}/0\\?password=\\*\\*\\*: the password \\(or user\\) was refused`,
            ),
          ],
        ];
        for (const [url, message] of cases) {
          const result = await murmur(
            [
              'swarm',
              '--template',
              'Fix {{item}}',
              '--items',
              'a.txt',
              '--model',
              `scripted:${script}`,
              '--queue',
              url,
            ],
            repo,
            childEnv(dir),
          );
          expect(result.exitCode).toBe(2);
          expect(result.stderr).toMatch(message);
          expect(result.stderr).not.toContain('hunter2');
          // A password on the command line is readable by every process here: the user is told to use MURMUR_QUEUE.
          if (url.includes('hunter2'))
            expect(result.stderr).toMatch(/warning: the --queue URL holds a password.*MURMUR_QUEUE/);
        }
        // The worker says the same, and MURMUR_QUEUE counts like --queue.
        const worker = await murmur(
          ['worker', '--cwd', repo],
          repo,
          childEnv(dir, { MURMUR_QUEUE: `redis://:hunter2@127.0.0.1:${port}` }),
        );
        expect(worker.exitCode).toBe(2);
        expect(worker.stderr).toMatch(/password \(or user\) was refused/);
        expect(worker.stderr).not.toContain('hunter2');
        expect(worker.stderr).not.toContain('warning');
        const noDb = await murmur(
          ['worker', '--cwd', repo],
          repo,
          childEnv(dir, { MURMUR_QUEUE: `redis://:right-one@127.0.0.1:${port}/999` }),
        );
        expect(noDb.exitCode).toBe(2);
        expect(noDb.stderr).toMatch(/no such database/);
        expect(noDb.stderr).not.toContain('right-one');
      } finally {
        await secret.stop();
      }
    },
  );
});
