// Queue benchmark (issue "Swarms across machines"): N scripted items (2 turns of 50 ms, one edit each; N = 1,000
// or MURMUR_BENCH_QUEUE_ITEMS) through a private redis-server on 1 and on 3 `murmur worker` processes, beside a
// local `--isolation worktree` swarm of the same items: wall time, items per second, the queue's overhead per
// item against the local swarm (target under 10 ms), and the coordinator's peak memory.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { Engine } from '../orchestrator/engine.js';
import { ScriptedModel, type Script } from '../orchestrator/models/scripted.js';
import { prepareSwarm, type QueueTarget } from '../host/swarm.js';
import { connectQueue } from '../swarm/queue/url.js';
import { murmurBin } from './package-bin.js';

type Report = (line: string) => void;

const MAIN = murmurBin();
const SCRIPT: Script = {
  agents: [
    {
      match: { role: 'worker', prompt: 'Fix (\\S+)' },
      turns: [
        { latencyMs: 50, toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'a', new_string: 'b' } }] },
        { latencyMs: 50, text: 'fixed $1' },
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
  const problems = results
    .filter((r) => r.outcome !== 'completed')
    .map((r) => `${r.item} ${r.outcome}: ${r.reason ?? ''}`);
  return { ms, completed: results.filter((r) => r.outcome === 'completed').length, peakRss, problems };
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
    const clone = join(dir, `worker-${count}-${i + 1}`);
    spawnSync('git', ['clone', '-q', repo, clone]);
    return execa(
      process.execPath,
      [MAIN, 'worker', '--queue', url, '--cwd', clone, '--concurrency', '64', '--name', `w${i + 1}`],
      { reject: false, stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' },
    );
  });
}

export async function benchQueue(report: Report): Promise<void> {
  const count = Number(process.env.MURMUR_BENCH_QUEUE_ITEMS ?? 1000);
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    report('queue: skipped, redis-server is not installed (Debian package redis-server)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'murmur-queue-bench-'));
  const redis = await startRedis(dir);
  try {
    const items = Array.from({ length: count }, (_, i) => `item-${String(i + 1).padStart(5, '0')}.txt`);
    const script = join(dir, 'script.json');
    writeFileSync(script, JSON.stringify(SCRIPT));
    report(
      `queue: ${count} scripted items (2 turns of 50 ms, one edit each), default ramp; local --isolation worktree vs murmur workers over Redis`,
    );
    const local = await swarmIn(repoWith(join(dir, 'local'), items), script, items);
    report(
      `  local worktree swarm: wall ${(local.ms / 1000).toFixed(1)} s, ${(count / (local.ms / 1000)).toFixed(1)} items/s, completed ${local.completed}/${count}`,
    );
    // For scale: the same swarm in one tree, without worktrees (what the git work of isolation costs).
    const shared = await swarmIn(repoWith(join(dir, 'shared'), items), script, items, 'no-isolation');
    report(
      `  local swarm without isolation (for scale): wall ${(shared.ms / 1000).toFixed(1)} s, ${(count / (shared.ms / 1000)).toFixed(1)} items/s`,
    );
    for (const workers of [1, 3]) {
      const repo = repoWith(join(dir, `queue-${workers}`), items);
      const children = startWorkers(workers, redis.url, repo, dir);
      const connected = await connectQueue(redis.url, redis.url);
      if (!connected.ok) throw new Error(connected.error);
      connected.redis.disconnect();
      try {
        const run = await swarmIn(repo, script, items, { url: redis.url, shown: redis.url, open: connected.open });
        const changed = items.filter((item) => readFileSync(join(repo, item), 'utf8') === 'b\n').length;
        const overhead = (run.ms - local.ms) / count;
        report(
          `  queue, ${workers} worker process${workers > 1 ? 'es' : ''}: wall ${(run.ms / 1000).toFixed(1)} s, ${(count / (run.ms / 1000)).toFixed(1)} items/s, ` +
            `overhead ${overhead.toFixed(1)} ms/item vs local (target < 10), coordinator peak RSS ${Math.round(run.peakRss / 1e6)} MB, completed ${run.completed}/${count}, edits landed ${changed}/${count}`,
        );
        for (const problem of run.problems.slice(0, 3)) report(`    not completed: ${problem}`);
      } finally {
        for (const child of children) child.kill('SIGTERM');
        await Promise.all(children);
      }
    }
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
