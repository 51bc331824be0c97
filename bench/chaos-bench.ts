// Chaos benchmark (issue "Nothing lost…"): a 200-item swarm driven through random kill -9 and resumes, counting
// items lost (must be 0), changes applied twice to the workspace (must be 0), items run more than once (expected
// after a kill) and the time to finish. Two scenes: a local `--isolation worktree` swarm whose coordinator is
// killed, and a queue swarm on 2 workers where the coordinator, a worker or Redis (with and without its files) is
// killed. Items: a bash step that logs the run outside the repository, then an appended line (the change).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type { Script } from '../orchestrator/models/scripted.js';
import { readSavedState } from '../orchestrator/saved-state.js';
import { readSessionTranscripts } from '../orchestrator/session.js';
import { murmurBin } from './package-bin.js';

type Report = (line: string) => void;
const MAIN = murmurBin();
const ITEMS = Number(process.env.MURMUR_BENCH_CHAOS_ITEMS ?? 200);
const KILLS = Number(process.env.MURMUR_BENCH_CHAOS_KILLS ?? 6);

function git(cwd: string, ...args: string[]): void {
  const done = spawnSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@localhost', ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (done.status !== 0) throw new Error(`git ${args.join(' ')}: ${done.stderr}`);
}

function scene(dir: string, items: string[]): { repo: string; script: string; runLog: string } {
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  for (const item of items) writeFileSync(join(repo, item), 'a\n');
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'items');
  const runLog = join(dir, 'runs.log');
  const script: Script = {
    agents: [
      {
        match: { prompt: 'Fix (\\S+)' },
        turns: [
          { latencyMs: 150, toolCalls: [{ name: 'bash', arguments: { command: `echo $1 >> ${runLog}` } }] },
          { latencyMs: 150, toolCalls: [{ name: 'bash', arguments: { command: 'echo changed-$1 >> $1' } }] },
          { text: 'fixed $1' },
        ],
      },
    ],
  };
  const file = join(dir, 'script.json');
  writeFileSync(file, JSON.stringify(script));
  return { repo, script: file, runLog };
}

function env(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('MURMUR_')) out[k] = v;
  return { ...out, HOME: home, MURMUR_QUEUE_STALLED_MS: '2000', ...extra };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const between = (lo: number, hi: number) => lo + Math.random() * (hi - lo);

/** What the workspace and the run log say, whatever the reports said. */
/** Items whose agent was told a call of theirs was cut by the kill (their transcript says so): the model decides. */
function interruptedItems(repo: string): Set<string> {
  const out = new Set<string>();
  const id = sessionId(repo);
  if (!id) return out;
  const session = join(repo, '.murmur', 'sessions', id);
  // Through the one reader: settled agents are in the settled log, not in state.json.
  const read = readSavedState(session);
  if (!read.ok) return out;
  // Swarm items' transcripts are in the session's packs (transcripts-<n>.jsonl): read as every reader does.
  const items = new Map(read.state.agents.filter((a) => a.item).map((a) => [a.id, a.item!]));
  for (const [agentId, transcript] of readSessionTranscripts(session, items.keys())) {
    if (JSON.stringify(transcript.messages).includes('the process stopped before this call finished'))
      out.add(items.get(agentId)!);
  }
  return out;
}

function tally(repo: string, runLog: string, items: string[]) {
  const told = interruptedItems(repo);
  let cut = 0;
  const runs = new Map<string, number>();
  if (existsSync(runLog))
    for (const line of readFileSync(runLog, 'utf8').split('\n').filter(Boolean))
      runs.set(line, (runs.get(line) ?? 0) + 1);
  let lost = 0;
  let twice = 0;
  const odd: string[] = [];
  for (const item of items) {
    const changes = readFileSync(join(repo, item), 'utf8')
      .split('\n')
      .filter((l) => l === `changed-${item}`).length;
    // A change missing where the agent was told its call was cut is the (scripted) model's choice, counted apart.
    if (changes === 0 && told.has(item)) cut++;
    else if (changes === 0) lost++;
    if (changes > 1) twice++;
    if (changes !== 1) odd.push(`${item}×${changes} (ran ${runs.get(item) ?? 0}×)`);
  }
  if (odd.length > 0 && process.env.MURMUR_BENCH_CHAOS_KEEP)
    process.stderr.write(`chaos: odd items in ${repo}: ${odd.join(', ')}\n`);
  const again = [...runs.values()].reduce((n, count) => n + Math.max(0, count - 1), 0);
  return { lost, twice, again, cut };
}

/** Why a run ended badly: its last lines on stderr, else the report's rows that did not complete. */
function failureOf(stderr: string, stdout: string): string {
  const said = stderr.trim().split('\n').slice(-3).join(' / ');
  if (said) return said.slice(0, 400);
  try {
    const report = JSON.parse(stdout) as { items?: { item: string; outcome: string; reason?: string }[] };
    const odd = (report.items ?? []).filter((row) => row.outcome !== 'completed');
    return odd
      .map((row) => `${row.item} ${row.outcome}: ${row.reason ?? ''}`)
      .join('; ')
      .slice(0, 400);
  } catch {
    return stdout.trim().slice(0, 200);
  }
}

/** The swarm's session: the newest one with a saved state (a coordinator killed before saving leaves none). */
function sessionId(repo: string): string | undefined {
  const dir = join(repo, '.murmur', 'sessions');
  if (!existsSync(dir)) return undefined;
  return readdirSync(dir)
    .filter((id) => existsSync(join(dir, id, 'state.json')))
    .sort()
    .at(-1);
}

/** Starts the swarm (or resumes it) until it exits 0, killing the coordinator with SIGKILL up to `kills` times. */
async function drive(
  repo: string,
  first: string[],
  home: string,
  extra: Record<string, string>,
  kills: number,
  chaos: (coordinator: ResultPromise) => Promise<string>,
): Promise<{ ms: number; done: boolean; events: string[]; why?: string }> {
  const started = performance.now();
  const events: string[] = [];
  let why: string | undefined;
  let left = kills;
  for (let round = 0; round < kills + 20; round++) {
    const id = sessionId(repo);
    const args = !id ? first : ['resume', id, '--json'];
    const child = execa(process.execPath, [MAIN, ...args], {
      cwd: repo,
      env: env(home, extra),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    let exited = false;
    void child.then(() => (exited = true));
    // Faults every few seconds while this coordinator runs, until the budget is spent or it is the one killed.
    while (left > 0 && !exited) {
      await Promise.race([sleep(between(1500, 4000)), child]);
      if (exited) break;
      const what = await chaos(child);
      events.push(what);
      left--;
      if (what === 'coordinator') break;
    }
    const result = await child;
    if (result.exitCode === 0) return { ms: performance.now() - started, done: true, events };
    // What the last run that was not killed said: the reason a chaos run did not finish.
    if (!result.isTerminated)
      why = `exit ${result.exitCode}: ${failureOf(String(result.stderr), String(result.stdout))}`;
  }
  return { ms: performance.now() - started, done: false, events, ...(why !== undefined ? { why } : {}) };
}

async function redisServer(dir: string, port: number) {
  mkdirSync(dir, { recursive: true });
  const start = () =>
    execa(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes'],
      { reject: false, stdin: 'ignore' },
    );
  let server = start();
  const ready = async () => {
    for (let i = 0; i < 200; i++) {
      if ((await execa('redis-cli', ['-p', String(port), 'ping'], { reject: false })).stdout.trim() === 'PONG') return;
      await sleep(50);
    }
  };
  await ready();
  return {
    url: `redis://127.0.0.1:${port}`,
    async crash(empty: boolean) {
      server.kill('SIGKILL');
      await server;
      if (empty) rmSync(join(dir, 'appendonlydir'), { recursive: true, force: true });
      await sleep(300);
      server = start();
      await ready();
    },
    async stop() {
      server.kill('SIGKILL');
      await server;
    },
  };
}

export async function benchChaos(report: Report): Promise<void> {
  const items = Array.from({ length: ITEMS }, (_, i) => `f${String(i + 1).padStart(3, '0')}.txt`);
  const swarmArgs = (extra: string[]) => [
    'swarm',
    '--template',
    'Fix {{item}}',
    '--items',
    ...items,
    '--permission-mode',
    'yolo',
    '--json',
    ...extra,
  ];
  report(
    `chaos: ${ITEMS} items (a logged bash step, then an appended line), up to ${KILLS} kill -9 per scene, then resume until done`,
  );

  const scenes = (process.env.MURMUR_BENCH_CHAOS_SCENES ?? 'local,queue').split(',');
  if (scenes.includes('local')) await localScene(report, items, swarmArgs);
  if (scenes.includes('queue')) await queueScene(report, items, swarmArgs);
}

async function localScene(report: Report, items: string[], swarmArgs: (extra: string[]) => string[]): Promise<void> {
  const localDir = mkdtempSync(join(tmpdir(), 'murmur-chaos-local-'));
  try {
    const { repo, script, runLog } = scene(localDir, items);
    const run = await drive(
      repo,
      swarmArgs(['--model', `scripted:${script}`, '--isolation', 'worktree', '--max-concurrency', '16']),
      localDir,
      {},
      KILLS,
      async (child) => {
        child.kill('SIGKILL');
        return 'coordinator';
      },
    );
    const t = tally(repo, runLog, items);
    report(
      `  local worktree swarm, coordinator killed ${run.events.filter((e) => e === 'coordinator').length}×: ${run.done ? 'finished' : `NOT finished (${run.why ?? 'killed every time'})`} in ${(run.ms / 1000).toFixed(1)} s; items lost ${t.lost}, changes applied twice ${t.twice}, extra runs ${t.again}, cut calls left undone by the model ${t.cut}`,
    );
  } finally {
    if (!process.env.MURMUR_BENCH_CHAOS_KEEP) rmSync(localDir, { recursive: true, force: true });
  }
}

async function queueScene(report: Report, items: string[], swarmArgs: (extra: string[]) => string[]): Promise<void> {
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    report('  queue: skipped, redis-server is not installed (Debian package redis-server)');
    return;
  }
  const queueDir = mkdtempSync(join(tmpdir(), 'murmur-chaos-queue-'));
  const redis = await redisServer(join(queueDir, 'redis'), 21_000 + Math.floor(Math.random() * 20_000));
  const workers: ResultPromise[] = [];
  try {
    const { repo, script, runLog } = scene(queueDir, items);
    const clones = [1, 2].map((n) => {
      const clone = join(queueDir, `w${n}`);
      spawnSync('git', ['clone', '-q', repo, clone]);
      return clone;
    });
    const startWorker = (n: number) =>
      (workers[n] = execa(
        process.execPath,
        [MAIN, 'worker', '--cwd', clones[n]!, '--concurrency', '8', '--name', `w${n + 1}`],
        { env: env(queueDir, { MURMUR_QUEUE: redis.url }), extendEnv: false, reject: false, stdin: 'ignore' },
      ));
    startWorker(0);
    startWorker(1);
    const tally2 = { coordinator: 0, worker: 0, redis: 0, 'redis (empty)': 0 };
    const run = await drive(
      repo,
      swarmArgs(['--model', `scripted:${script}`, '--max-concurrency', '16']),
      queueDir,
      { MURMUR_QUEUE: redis.url },
      KILLS,
      async (child) => {
        const pick = Math.floor(Math.random() * 4);
        if (pick === 0) {
          child.kill('SIGKILL');
          tally2.coordinator++;
          return 'coordinator';
        }
        if (pick === 1) {
          const n = Math.floor(Math.random() * 2);
          workers[n]!.kill('SIGKILL');
          await workers[n];
          startWorker(n);
          tally2.worker++;
          return 'worker';
        }
        const empty = pick === 3;
        await redis.crash(empty);
        tally2[empty ? 'redis (empty)' : 'redis']++;
        return empty ? 'redis (empty)' : 'redis';
      },
    );
    const t = tally(repo, runLog, items);
    report(
      `  queue swarm on 2 workers, killed: ${Object.entries(tally2)
        .map(([k, v]) => `${k} ${v}×`)
        .join(
          ', ',
        )}: ${run.done ? 'finished' : `NOT finished (${run.why ?? 'killed every time'})`} in ${(run.ms / 1000).toFixed(1)} s; items lost ${t.lost}, changes applied twice ${t.twice}, extra runs ${t.again}, cut calls left undone by the model ${t.cut}`,
    );
  } finally {
    for (const w of workers) w.kill('SIGKILL');
    await Promise.allSettled(workers);
    await redis.stop();
    if (!process.env.MURMUR_BENCH_CHAOS_KEEP) rmSync(queueDir, { recursive: true, force: true });
  }
}
