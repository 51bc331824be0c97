// Queue benchmark (issue 31, "Queue mode scales out"): N scripted items (a turn of L ms with one edit, then the
// answer) through a private redis-server on 1 and on 3 `murmur worker` processes of 8 slots each: wall time, items
// per second, the 3-to-1 ratio (target >= 2), Redis memory and keys before, at the peak and after (target: back to
// before), and the coordinator's peak memory. Knobs: MURMUR_BENCH_QUEUE_ITEMS (N, 2,000; the scenario is
// 10,000, about 20 minutes on a shared 2-core machine), MURMUR_BENCH_QUEUE_LATENCY_MS (L, 200),
// MURMUR_BENCH_QUEUE_SLOTS (8), MURMUR_BENCH_QUEUE_LOCAL=1 (adds the local swarms for scale).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { Engine } from '../orchestrator/engine.js';
import { ScriptedModel, type Script } from '../orchestrator/models/scripted.js';
import { prepareSwarm, type QueueTarget } from '../host/swarm.js';
import type { Redis as RedisClient } from 'ioredis';
import { connectQueue } from '../swarm/queue/url.js';
import { murmurBin } from './package-bin.js';

type Report = (line: string) => void;

const MAIN = murmurBin();
const COUNT = Number(process.env.MURMUR_BENCH_QUEUE_ITEMS ?? 2000);
const LATENCY_MS = Number(process.env.MURMUR_BENCH_QUEUE_LATENCY_MS ?? 200);
const SLOTS = Number(process.env.MURMUR_BENCH_QUEUE_SLOTS ?? 8);
const SCRIPT: Script = {
  agents: [
    {
      match: { role: 'worker', prompt: 'Fix (\\S+)' },
      turns: [
        {
          latencyMs: LATENCY_MS,
          toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'a', new_string: 'b' } }],
        },
        { text: 'fixed $1' },
      ],
    },
  ],
};

function sh(cwd: string, ...args: string[]): void {
  const done = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`git ${args.join(' ')}: ${done.stderr}`);
}

function repoWith(dir: string, items: string[]): string {
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  for (const item of items) writeFileSync(join(repo, item), 'a\n');
  sh(repo, 'init', '-q', '-b', 'main');
  sh(repo, 'add', '-A');
  sh(
    repo,
    '-c',
    'user.name=b',
    '-c',
    'user.email=b@localhost',
    '-c',
    'commit.gpgsign=false',
    'commit',
    '-q',
    '-m',
    'items',
  );
  return repo;
}

async function swarmIn(
  repo: string,
  script: string,
  items: string[],
  queue?: QueueTarget | 'no-isolation',
): Promise<{ ms: number; completed: number; peakRss: number; problems: string[] }> {
  const engine = new Engine({
    cwd: repo,
    provider: ScriptedModel.fromFile(script),
    session: false,
    sessionKind: 'swarm',
    definitions: new Map(),
    limits: { maxAgents: Number.POSITIVE_INFINITY },
    config: { permissionMode: 'yolo' },
  });
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
  const started = performance.now();
  const prepared = await prepareSwarm(
    engine,
    undefined,
    {
      promptTemplate: 'Fix {{item}}',
      items,
      subagentType: 'worker',
      maxItems: Number.POSITIVE_INFINITY,
      minItems: 1,
      ...(queue === 'no-isolation' ? {} : queue ? { queue } : { isolation: 'worktree' as const }),
    },
    {},
  );
  if (!prepared.ok) throw new Error(prepared.error);
  const results = await prepared.run.run(new AbortController().signal);
  const ms = performance.now() - started;
  clearInterval(sampler);
  await engine.close();
  const problems = [...results]
    .filter((r) => r.outcome !== 'completed')
    .map((r) => `${r.item} ${r.outcome}: ${r.reason ?? ''}`);
  return { ms, completed: [...results].filter((r) => r.outcome === 'completed').length, peakRss, problems };
}

async function startRedis(dir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const server = execa(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { reject: false, stdin: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if ((await execa('redis-cli', ['-p', String(port), 'ping'], { reject: false })).stdout.trim() === 'PONG') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    stop: async () => {
      server.kill('SIGKILL');
      await server;
    },
  };
}

function startWorkers(count: number, url: string, repo: string, dir: string): ResultPromise[] {
  return Array.from({ length: count }, (_, i) => {
    const clone = join(dir, `worker-${i + 1}`);
    spawnSync('git', ['clone', '-q', repo, clone]);
    return execa(
      process.execPath,
      [MAIN, 'worker', '--queue', url, '--cwd', clone, '--concurrency', String(SLOTS), '--name', `w${i + 1}`],
      { reject: false, stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' },
    );
  });
}

/** Redis's memory (all of it, and its data alone: without scripts, clients' buffers and the like) and key count now. */
async function redisUse(redis: RedisClient): Promise<{ bytes: number; data: number; keys: number }> {
  const info = await redis.info('memory');
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return { bytes: field('used_memory'), data: field('used_memory_dataset'), keys: await redis.dbsize() };
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const use = (u: { bytes: number; data: number; keys: number }) => `${mb(u.bytes)} (data ${mb(u.data)}, ${u.keys} keys)`;

async function queueRun(
  report: Report,
  workers: number,
  url: string,
  dir: string,
  items: string[],
  script: string,
  localMs?: number,
): Promise<number> {
  const count = items.length;
  const home = join(dir, `queue-${workers}-${count}`);
  const repo = repoWith(home, items);
  const children = startWorkers(workers, url, repo, home);
  const connected = await connectQueue(url, url);
  if (!connected.ok) throw new Error(connected.error);
  const probe = connected.redis;
  try {
    // Before: the workers are up and connected (their own keys are not the swarm's).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const before = await redisUse(probe);
    let peak = before;
    const sampler = setInterval(
      () =>
        void redisUse(probe)
          .then((use) => (peak = use.bytes > peak.bytes ? use : peak))
          .catch(() => undefined),
      500,
    );
    const run = await swarmIn(repo, script, items, { url, shown: url, open: connected.open });
    clearInterval(sampler);
    const after = await redisUse(probe);
    const changed = items.filter((item) => readFileSync(join(repo, item), 'utf8') === 'b\n').length;
    const perSecond = count / (run.ms / 1000);
    const overhead =
      localMs !== undefined ? `, overhead ${((run.ms - localMs) / count).toFixed(1)} ms/item vs local` : '';
    report(
      `  queue, ${workers} worker process${workers > 1 ? 'es' : ''} of ${SLOTS} slots: wall ${(run.ms / 1000).toFixed(1)} s, ${perSecond.toFixed(1)} items/s${overhead}, ` +
        `coordinator peak RSS ${Math.round(run.peakRss / 1e6)} MB, completed ${run.completed}/${count}, edits landed ${changed}/${count}`,
    );
    report(`    Redis used_memory before ${use(before)}, peak ${use(peak)}, after ${use(after)}`);
    for (const problem of run.problems.slice(0, 3)) report(`    not completed: ${problem}`);
    return perSecond;
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children);
    probe.disconnect();
  }
}

export async function benchQueue(report: Report): Promise<void> {
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    report('queue: skipped, redis-server is not installed (Debian package redis-server)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'murmur-queue-bench-'));
  const redis = await startRedis(dir);
  try {
    const items = Array.from({ length: COUNT }, (_, i) => `item-${String(i + 1).padStart(5, '0')}.txt`);
    const script = join(dir, 'script.json');
    writeFileSync(script, JSON.stringify(SCRIPT));
    report(
      `queue: ${COUNT} scripted items (a turn of ${LATENCY_MS} ms with one edit, then the answer), default ramp, no --isolation; murmur workers of ${SLOTS} slots over Redis`,
    );
    let localMs: number | undefined;
    if (process.env.MURMUR_BENCH_QUEUE_LOCAL === '1') {
      const local = await swarmIn(repoWith(join(dir, 'local'), items), script, items);
      localMs = local.ms;
      report(
        `  local worktree swarm: wall ${(local.ms / 1000).toFixed(1)} s, ${(COUNT / (local.ms / 1000)).toFixed(1)} items/s, completed ${local.completed}/${COUNT}`,
      );
      const shared = await swarmIn(repoWith(join(dir, 'shared'), items), script, items, 'no-isolation');
      report(
        `  local swarm without isolation (for scale): wall ${(shared.ms / 1000).toFixed(1)} s, ${(COUNT / (shared.ms / 1000)).toFixed(1)} items/s`,
      );
    }
    // Not measured: Redis keeps BullMQ's scripts once loaded, so "before" is measured with them there.
    await queueRun(() => undefined, 1, redis.url, dir, items.slice(0, 8), script);
    const one = await queueRun(report, 1, redis.url, dir, items, script, localMs);
    const three = await queueRun(report, 3, redis.url, dir, items, script, localMs);
    report(`  3 workers vs 1: ${(three / one).toFixed(2)}x the items per second (target >= 2)`);
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
