// Scale from outside (issue 31): the built `murmur swarm` on N items (a zero-latency scripted model, one answer
// each, no isolation), started as a child process. Measured: the child's peak RSS (VmHWM, sampled every 100 ms),
// items per second, and the session data it leaves (bytes and files under its MURMUR_HOME/sessions). The targets
// are for 1,000,000 items — peak RSS ≤ 400 MB, ≤ 2 GB and ≤ 10,000 files of session data — so the figures are
// also given per item and projected to 1M. Items: MURMUR_BENCH_SCALE_ITEMS (20,000).
import {
  closeSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Script } from '../orchestrator/models/scripted.js';
import { murmurBin } from './package-bin.js';
import { openBigSession, type ConsoleOpen } from './console-open.js';
import { TIMELINE_FROM_ITEMS } from '../orchestrator/timeline-file.js';

type Report = (line: string) => void;

const MAIN = murmurBin();
const TARGET_RSS_MB = 400;
const TARGET_DISK_MB = 2048;
const TARGET_FILES = 10_000;
const PROJECTED = 1_000_000;

const SCRIPT: Script = { latencyMs: 0, agents: [{ match: { prompt: 'Do (\\S+)' }, turns: [{ text: 'done $1' }] }] };

/** The process's high-water mark of resident memory in bytes (0 once it is gone). */
function peakRss(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Files and bytes under `dir` (folders are not counted). */
function usage(dir: string): { files: number; bytes: number } {
  const total = { files: 0, bytes: 0 };
  const walk = (at: string) => {
    let names: string[];
    try {
      names = readdirSync(at);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(at, name);
      const stat = lstatSync(path);
      if (stat.isDirectory()) walk(path);
      else {
        total.files += 1;
        total.bytes += stat.size;
      }
    }
  };
  walk(dir);
  return total;
}

/** The first or last 4 KB of a file (a big swarm's report or progress lines are not read whole). */
function readEnd(file: string, end: 'head' | 'tail'): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(4096, size);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, end === 'head' ? 0 : size - length);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The report's summary line (`completed: N, …`), read from the head of the saved stdout. */
function summaryOf(stdoutFile: string): string {
  const head = readEnd(stdoutFile, 'head');
  return /<summary>([^<]*)<\/summary>/.exec(head)?.[1] ?? `no summary in stdout: ${head.slice(0, 200)}`;
}

const ratio = (value: number, target: number) => `${(value / target).toFixed(2)}`;

interface Run {
  ms: number;
  peak: number;
  files: number;
  bytes: number;
  summary: string;
  problem?: string;
  /** A big swarm's session opened in the console and written as an HTML report. */
  console?: ConsoleOpen;
}

/** One `murmur swarm` of `count` items in a fresh folder under `dir`, from spawn to exit. */
async function runSwarm(dir: string, count: number): Promise<Run> {
  const root = join(dir, String(count));
  const [repo, home, state] = ['repo', 'home', 'state'].map((d) => join(root, d)) as [string, string, string];
  for (const d of [repo, home, state]) mkdirSync(d, { recursive: true });
  const script = join(root, 'script.json');
  writeFileSync(script, JSON.stringify(SCRIPT));
  const itemsFile = join(root, 'items.txt');
  writeFileSync(itemsFile, Array.from({ length: count }, (_, i) => `item-${i + 1}\n`).join(''));
  // stdout and stderr go to files: a big swarm's report and progress lines are big (a million items' progress
  // lines are over execa's 100 MB buffer, which would end the run), and this process should not hold them.
  const stdoutFile = join(root, 'stdout.txt');
  const stderrFile = join(root, 'stderr.txt');
  const args = [
    ...['swarm', '--template', 'Do {{item}}', '--items-file', itemsFile, '--model', `scripted:${script}`],
    ...['--no-dashboard', '--permission-mode', 'auto'],
  ];
  const started = performance.now();
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, MURMUR_HOME: state, NO_COLOR: '1' };
  const child = execa(process.execPath, [MAIN, ...args], {
    cwd: repo,
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    stdout: { file: stdoutFile },
    stderr: { file: stderrFile },
    // Nothing kept in this process either: execa's buffer of a file target still stops at 100 MB, cutting murmur's
    // stderr (a million items' progress lines are about 145 MB).
    buffer: false,
  });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, peakRss(child.pid!))), 100);
  const done = await child;
  clearInterval(sampler);
  const ms = performance.now() - started;
  const disk = usage(join(state, 'sessions'));
  const summary = summaryOf(stdoutFile);
  const problem = done.exitCode !== 0 ? `exit ${done.exitCode}: ${readEnd(stderrFile, 'tail').trim()}` : undefined;
  const [id] = readdirSync(join(state, 'sessions'));
  const opened = count >= TIMELINE_FROM_ITEMS && id ? await openBigSession(repo, env, id) : undefined;
  rmSync(root, { recursive: true, force: true });
  return {
    ms,
    peak,
    ...disk,
    summary,
    ...(problem !== undefined ? { problem } : {}),
    ...(opened ? { console: opened } : {}),
  };
}

export async function benchScale(report: Report): Promise<void> {
  const count = Number(process.env.MURMUR_BENCH_SCALE_ITEMS ?? 20_000);
  const dir = mkdtempSync(join(tmpdir(), 'murmur-scale-bench-'));
  try {
    // A one-item run gives the fixed cost (the process, the code, the session's own files); the rest is per item.
    const base = await runSwarm(dir, 1);
    const run = await runSwarm(dir, count);
    const mb = (bytes: number) => bytes / 1048576;
    const perItem = (value: number, fixed: number) => Math.max(0, value - fixed) / Math.max(1, count - 1);
    const rssPer = perItem(run.peak, base.peak);
    const bytesPer = perItem(run.bytes, base.bytes);
    const filesPer = perItem(run.files, base.files);
    const rss1M = base.peak + rssPer * PROJECTED;
    const disk1M = base.bytes + bytesPer * PROJECTED;
    const files1M = base.files + filesPer * PROJECTED;
    report(`scale: ${count} items, zero-latency scripted model, no isolation`);
    for (const r of [base, run])
      if (r.problem) report(`scale: FAILED ${r === base ? '1-item run' : 'run'}: ${r.problem}`);
    report(`  report: ${run.summary}`);
    report(
      `  wall ${(run.ms / 1000).toFixed(1)} s, ${(count / (run.ms / 1000)).toFixed(0)} items/s; ` +
        `peak RSS ${mb(run.peak).toFixed(0)} MB (1 item: ${mb(base.peak).toFixed(0)} MB; ${(rssPer / 1024).toFixed(2)} KB/item); ` +
        `session data ${mb(run.bytes).toFixed(1)} MB (${(bytesPer / 1024).toFixed(2)} KB/item) in ${run.files} files ` +
        `(${filesPer.toFixed(3)}/item)`,
    );
    report(
      `  projected to 1M items: RSS ${mb(rss1M).toFixed(0)} MB (ratio ${ratio(mb(rss1M), TARGET_RSS_MB)} of ${TARGET_RSS_MB} MB), ` +
        `disk ${mb(disk1M).toFixed(0)} MB (ratio ${ratio(mb(disk1M), TARGET_DISK_MB)} of 2 GB), ` +
        `files ${Math.round(files1M)} (ratio ${ratio(files1M, TARGET_FILES)} of ${TARGET_FILES})`,
    );
    report(
      `  this run against the targets: RSS ratio ${ratio(mb(run.peak), TARGET_RSS_MB)}, ` +
        `disk ratio ${ratio(mb(run.bytes), TARGET_DISK_MB)}, files ratio ${ratio(run.files, TARGET_FILES)}`,
    );
    if (run.console) reportConsole(report, run.console);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const TARGET_OPEN_MS = 3000;
const TARGET_REPORT_MB = 5;

function reportConsole(report: Report, c: ConsoleOpen): void {
  const mb = (bytes: number) => bytes / 1048576;
  if (c.problem) report(`  console: FAILED: ${c.problem}`);
  report(
    `  console: \`murmur serve\` up in ${c.serveMs.toFixed(0)} ms; the session page in ${c.firstMs.toFixed(0)} ms ` +
      `(ratio ${ratio(c.firstMs, TARGET_OPEN_MS)} of 3 s; asked again ${c.againMs.toFixed(0)} ms), ${(c.pageBytes / 1024).toFixed(0)} KB`,
  );
  report(
    `  report --html: ${(c.reportMs / 1000).toFixed(1)} s, ${mb(c.reportBytes).toFixed(2)} MB ` +
      `(ratio ${ratio(mb(c.reportBytes), TARGET_REPORT_MB)} of ${TARGET_REPORT_MB} MB)`,
  );
}
