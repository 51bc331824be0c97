// Worktree isolation from outside (issue 31): the built `murmur swarm` started as a child process on scripted
// items (2 turns of 50 ms, one edit each) in a generated git repository, timed from spawn to exit. First a
// 1,000-item swarm in a 1,000-file repository with `--isolation worktree` and without (target: isolation keeps at
// least half the throughput), then the isolated per-item cost in a 100-file and a 10,000-file repository (target:
// at most 1.2× in the big one; the median of three runs each), so neither git's work per worktree nor the
// repository's size dominates an item.
// murmur.toml sets `[swarm] initialBurst` and `[limits] maxModelRequests` to the concurrency, so neither the ramp
// nor the model gate hides what isolation costs. Items: MURMUR_BENCH_WORKTREE_ITEMS (1000) and
// MURMUR_BENCH_WORKTREE_SIZE_ITEMS (100, at most 100: each item then edits a file of its own in both repositories,
// so only their size differs — two items on one file would take git's merge in the small one only).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import type { Script } from '../orchestrator/models/scripted.js';
import { murmurBin } from './package-bin.js';

type Report = (line: string) => void;

const MAIN = murmurBin();
const CONCURRENCY = 50;
const LATENCY_MS = 50;
/** Lines between two items' edits of one file: more than git's 3 lines of context on each side, so both apply. */
const LINE_GAP = 8;
/** Alternating pairs of 100-file and 10,000-file runs; each side's median is compared. */
const SIZE_ROUNDS = 3;

/** One item: the file it edits and the line it rewrites (`line L of FILE` becomes `fixed line L of FILE`). */
interface Target {
  file: string;
  line: number;
}

interface RunResult {
  ms: number;
  problems: string[];
}

// A file item edits its first line; a `FILE:LINE` item (more items than files) edits that line.
const SCRIPT: Script = {
  agents: [
    {
      match: { role: 'worker', prompt: 'Fix (\\S+):(\\d+)' },
      turns: [
        {
          latencyMs: LATENCY_MS,
          toolCalls: [
            {
              name: 'edit',
              arguments: { path: '$1', old_string: 'line $2 of $1', new_string: 'fixed line $2 of $1' },
            },
          ],
        },
        { latencyMs: LATENCY_MS, text: 'fixed $1:$2' },
      ],
    },
    {
      match: { role: 'worker', prompt: 'Fix (\\S+)' },
      turns: [
        {
          latencyMs: LATENCY_MS,
          toolCalls: [
            { name: 'edit', arguments: { path: '$1', old_string: 'line 1 of $1', new_string: 'fixed line 1 of $1' } },
          ],
        },
        { latencyMs: LATENCY_MS, text: 'fixed $1' },
      ],
    },
  ],
};

const CONFIG = `[swarm]\ninitialBurst = ${CONCURRENCY}\n\n[limits]\nmaxModelRequests = ${CONCURRENCY}\n`;

function git(cwd: string, ...args: string[]): void {
  const done = spawnSync(
    'git',
    ['-c', 'user.name=b', '-c', 'user.email=b@localhost', '-c', 'commit.gpgsign=false', ...args],
    { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (done.status !== 0) throw new Error(`git ${args.join(' ')}: ${done.stderr}`);
}

function fileName(index: number, count: number): string {
  return `src/f${String(index + 1).padStart(Math.max(4, String(count).length), '0')}.txt`;
}

/** `count` files of `lines` lines (`line L of src/fNNNN.txt`) and the murmur.toml, in one commit. */
function makeRepo(repo: string, count: number, lines: number): string[] {
  mkdirSync(join(repo, 'src'), { recursive: true });
  const files = Array.from({ length: count }, (_, i) => fileName(i, count));
  for (const file of files) {
    const text = Array.from({ length: lines }, (_, l) => `line ${l + 1} of ${file}\n`).join('');
    writeFileSync(join(repo, file), text);
  }
  writeFileSync(join(repo, 'murmur.toml'), CONFIG);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  // Packed now, as a cloned repository is: 10,000 loose objects would start git's automatic gc in the background,
  // and the swarm measured next would share the cores with it.
  git(repo, '-c', 'gc.auto=0', '-c', 'maintenance.auto=false', 'commit', '-q', '-m', 'bench files');
  git(repo, 'repack', '-a', '-d', '-q');
  return files;
}

/** `count` items over `files`: each file once at line 1, then again further down when there are more items. */
function targetsOver(files: string[], count: number): Target[] {
  return Array.from({ length: count }, (_, i) => ({
    file: files[i % files.length]!,
    line: 1 + Math.floor(i / files.length) * LINE_GAP,
  }));
}

function linesFor(files: number, items: number): number {
  return Math.max(3, 1 + (Math.ceil(items / files) - 1) * LINE_GAP + 3);
}

/** The environment of the child: PATH, a HOME and MURMUR_HOME of our own, nothing of the caller's murmur settings. */
function childEnv(home: string, state: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, MURMUR_HOME: state, NO_COLOR: '1' };
}

/** The items whose edit is not in the repository's working tree. */
function missingEdits(repo: string, targets: Target[]): string[] {
  const cache = new Map<string, Set<string>>();
  return targets
    .filter(({ file, line }) => {
      let lines = cache.get(file);
      if (!lines) cache.set(file, (lines = new Set(readFileSync(join(repo, file), 'utf8').split('\n'))));
      return !lines.has(`fixed line ${line} of ${file}`);
    })
    .map(({ file, line }) => `${file}:${line}`);
}

/** What the --json report says went wrong: its status, and every item that did not complete. */
function reportProblems(stdout: string, count: number): string[] {
  let report: { status?: string; reason?: string; summary?: Record<string, number>; items?: ItemRow[] };
  try {
    report = JSON.parse(stdout) as typeof report;
  } catch {
    return [`stdout is not one JSON report: ${stdout.slice(0, 300)}`];
  }
  const problems: string[] = [];
  if (report.status !== 'completed')
    problems.push(`status ${report.status}${report.reason ? `: ${report.reason}` : ''}`);
  if (report.summary?.completed !== count)
    problems.push(`summary ${JSON.stringify(report.summary)}, expected completed: ${count}`);
  for (const row of (report.items ?? []).filter((r) => r.outcome !== 'completed').slice(0, 5))
    problems.push(`item ${row.item} ${row.outcome}${row.reason ? `: ${row.reason}` : ''}`);
  return problems;
}

interface ItemRow {
  item: string;
  outcome: string;
  reason?: string;
}

/** One `murmur swarm` over `targets` in a fresh repository of `fileCount` files, from spawn to exit. */
async function runSwarm(
  dir: string,
  name: string,
  fileCount: number,
  count: number,
  isolation: boolean,
  script: string,
): Promise<RunResult> {
  const repo = join(dir, name, 'repo');
  const files = makeRepo(repo, fileCount, linesFor(fileCount, count));
  const targets = targetsOver(files, count);
  const lineItems = count > fileCount;
  const itemsFile = join(dir, name, 'items.txt');
  writeFileSync(itemsFile, targets.map((t) => (lineItems ? `${t.file}:${t.line}` : t.file)).join('\n') + '\n');
  const home = join(dir, name, 'home');
  mkdirSync(home, { recursive: true });
  const args = [
    ...['swarm', '--template', 'Fix {{item}}', '--items-file', itemsFile, '--model', `scripted:${script}`],
    ...['--json', '--no-dashboard', '--permission-mode', 'auto', '--max-concurrency', String(CONCURRENCY)],
    ...(isolation ? ['--isolation', 'worktree'] : []),
  ];
  const started = performance.now();
  const child = await execa(process.execPath, [MAIN, ...args], {
    cwd: repo,
    env: childEnv(home, join(dir, name, 'state')),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    maxBuffer: 256 * 1024 * 1024,
  });
  const ms = performance.now() - started;
  const problems: string[] = [];
  if (child.exitCode !== 0) problems.push(`exit ${child.exitCode}: ${String(child.stderr).trim().slice(-500)}`);
  problems.push(...reportProblems(String(child.stdout), count));
  const missing = missingEdits(repo, targets);
  if (missing.length > 0)
    problems.push(
      `edits in the working tree ${count - missing.length}/${count} (missing: ${missing.slice(0, 5).join(', ')}…)`,
    );
  // Each run's repository goes as soon as it is measured: a 10,000-file repository and its state are big.
  rmSync(dirname(repo), { recursive: true, force: true });
  return { ms, problems };
}

/** The run of median duration (a failed run still counts: its problems are reported apart). */
function median(runs: RunResult[]): RunResult {
  return [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)]!;
}

function failed(report: Report, what: string, run: RunResult): string {
  for (const problem of run.problems) report(`worktree: FAILED ${what}: ${problem}`);
  return run.problems.length > 0 ? ' (FAILED, see above)' : '';
}

export async function benchWorktree(report: Report): Promise<void> {
  const items = Number(process.env.MURMUR_BENCH_WORKTREE_ITEMS ?? 1000);
  const sizeItems = Math.min(100, Number(process.env.MURMUR_BENCH_WORKTREE_SIZE_ITEMS ?? 100));
  const dir = mkdtempSync(join(tmpdir(), 'murmur-worktree-bench-'));
  try {
    const script = join(dir, 'script.json');
    writeFileSync(script, JSON.stringify(SCRIPT));
    const isolated = await runSwarm(dir, 'isolated', 1000, items, true, script);
    const shared = await runSwarm(dir, 'shared', 1000, items, false, script);
    const note = failed(report, 'isolation run', isolated) + failed(report, 'run without isolation', shared);
    const rate = (run: RunResult) => items / (run.ms / 1000);
    report(
      `worktree: ${items} items, 1000-file repo, concurrency ${CONCURRENCY}, ${LATENCY_MS} ms latency: ` +
        `isolation ${rate(isolated).toFixed(1)} items/s, none ${rate(shared).toFixed(1)} items/s, ` +
        `ratio ${(rate(isolated) / rate(shared)).toFixed(2)} (target >= 0.5)${note}`,
    );
    // A 100-item run is about two seconds, most of it start-up: the median of three alternating pairs keeps one
    // slow moment of the machine from deciding the ratio.
    const smallRuns: RunResult[] = [];
    const bigRuns: RunResult[] = [];
    for (let round = 1; round <= SIZE_ROUNDS; round++) {
      smallRuns.push(await runSwarm(dir, `small-${round}`, 100, sizeItems, true, script));
      bigRuns.push(await runSwarm(dir, `big-${round}`, 10_000, sizeItems, true, script));
    }
    const small = median(smallRuns);
    const big = median(bigRuns);
    const sizeNote = [
      ...smallRuns.map((run) => failed(report, '100-file run', run)),
      ...bigRuns.map((run) => failed(report, '10,000-file run', run)),
    ].some(Boolean)
      ? ' (FAILED, see above)'
      : '';
    const perItem = (run: RunResult) => run.ms / sizeItems;
    report(
      `worktree: per item 100 files ${perItem(small).toFixed(1)} ms, 10,000 files ${perItem(big).toFixed(1)} ms, ` +
        `ratio ${(perItem(big) / perItem(small)).toFixed(2)} (target <= 1.2)${sizeNote}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
