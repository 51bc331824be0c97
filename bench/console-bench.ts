// Benchmark: what does the web console cost a live swarm? The same 1,000-item scripted swarm (`murmur swarm`, a
// real child process writing its session's events.jsonl) runs alternately with a `murmur serve` and no page open,
// and with a Chromium page on the session following it over server-sent events (the Debian package `chromium`;
// skipped with a message when missing). Target: ratio ≤ 1.05. The page's frame times while it follows the swarm
// (requestAnimationFrame intervals and the timeline's own paints), and once more while a person scrolls and zooms
// the timeline of the live swarm (frame-stats.ts). Then the size of `murmur report --html` for those 1,000 items
// (target under 2 MB).
//
// Run from the build: `node dist/bench/console-bench.js` (or through the bench runner via benchConsole).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { murmurBin } from './package-bin.js';
import { startConsole } from './console-open.js';
import { collectFrames, frameLine, interact, recordFrames, type FrameStats } from './frame-stats.js';

const ITEMS = 1000;
const AT_ONCE = 50;
const TURN_LATENCY_MS = 20;
const ROUNDS = 3;
const CHROMIUM = '/usr/bin/chromium';
const MAIN = murmurBin();

export interface ConsoleBenchResult {
  noneMs: number;
  browserMs?: number;
  ratio?: number;
  reportBytes: number;
  /** Frame times while following the live swarm, and while scrolling and zooming its timeline. */
  frames?: FrameStats;
  framesInteracting?: FrameStats;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function benchConsole(report: (line: string) => void = console.log): Promise<ConsoleBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'murmur-console-bench-'));
  const workspace = join(dir, 'ws');
  mkdirSync(workspace);
  const script = join(dir, 'script.json');
  writeFileSync(
    script,
    JSON.stringify({
      latencyMs: 0,
      agents: [{ match: { prompt: 'Check (\\S+)' }, turns: [{ latencyMs: TURN_LATENCY_MS, text: '$1 ok' }] }],
    }),
  );
  const items = join(dir, 'items.txt');
  writeFileSync(items, Array.from({ length: ITEMS }, (_, i) => `src/f${i}.ts`).join('\n'));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('MURMUR_')) env[k] = v;
  Object.assign(env, { HOME: dir, NO_COLOR: '1' });
  const sessionsDir = join(workspace, '.murmur', 'sessions');

  const { serve, link: linked } = startConsole(workspace, env);
  const link = await linked;
  const base = new URL(link).origin;

  let browser: import('playwright-core').Browser | undefined;
  if (existsSync(CHROMIUM)) {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  } else report(`console: no ${CHROMIUM} (Debian package "chromium"): measuring without a browser only`);
  const page = browser ? await browser.newPage() : undefined;
  if (page) await page.goto(link);

  let lastSession = '';
  const followed: FrameStats[] = [];
  let interacting: FrameStats | undefined;
  const runOnce = async (withBrowser: boolean, person = false): Promise<number> => {
    const before = new Set(existsSync(sessionsDir) ? readdirSync(sessionsDir) : []);
    const started = performance.now();
    const child = execa(
      process.execPath,
      [
        MAIN,
        'swarm',
        '--template',
        'Check {{item}}',
        '--items-file',
        items,
        '--max-concurrency',
        String(AT_ONCE),
        '--model',
        `scripted:${script}`,
        '--no-dashboard',
      ],
      {
        cwd: workspace,
        env,
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
      },
    );
    if (withBrowser && page) {
      // Open the session page as soon as the session exists, then let it follow the run live.
      for (;;) {
        // A session whose events.jsonl is not there yet would open as "no such session" and never follow it.
        const id = existsSync(sessionsDir)
          ? readdirSync(sessionsDir).find((s) => !before.has(s) && existsSync(join(sessionsDir, s, 'events.jsonl')))
          : undefined;
        if (id) {
          await page.goto(`${base}/sessions/${id}`);
          // The rAF recorder costs a frame loop of its own: only on the person's run, not on the timed ones.
          if (person) await recordFrames(page);
          break;
        }
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    if (withBrowser && page && person) await interact(page, () => child.exitCode !== null);
    const result = await child;
    const ms = performance.now() - started;
    if (withBrowser && page) {
      const stats = await collectFrames(page);
      if (person) interacting = stats;
      else followed.push(stats);
    }
    if (result.exitCode !== 0)
      throw new Error(`the bench swarm failed (${result.exitCode}): ${String(result.stderr).slice(0, 500)}`);
    lastSession = readdirSync(sessionsDir).find((s) => !before.has(s)) ?? lastSession;
    if (page) await page.goto(`${base}/tasks`);
    return ms;
  };

  const none: number[] = [];
  const withPage: number[] = [];
  try {
    await runOnce(false); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      none.push(await runOnce(false));
      if (browser) withPage.push(await runOnce(true));
    }
    if (browser) await runOnce(true, true);
    const reportRun = await execa(process.execPath, [MAIN, 'report', lastSession, '--html', '--cwd', workspace], {
      cwd: workspace,
      env,
      extendEnv: false,
      reject: false,
    });
    if (reportRun.exitCode !== 0) throw new Error(`murmur report failed: ${reportRun.stderr}`);
    const reportBytes = statSync(reportRun.stdout.trim()).size;
    const result: ConsoleBenchResult = { noneMs: median(none), reportBytes };
    if (withPage.length > 0) {
      result.browserMs = median(withPage);
      result.ratio = result.browserMs / result.noneMs;
      result.frames = followed.sort((a, b) => a.p95 - b.p95)[Math.floor(followed.length / 2)];
      result.framesInteracting = interacting;
    }
    report(
      `console: live ${ITEMS}-item swarm ${Math.round(result.noneMs)} ms with no page, ${result.browserMs !== undefined ? `${Math.round(result.browserMs)} ms with a browser following it (ratio ${result.ratio!.toFixed(3)}, target <= 1.05)` : 'no browser run'}; report.html for ${ITEMS} items ${(reportBytes / 1024).toFixed(0)} KB (target < 2048 KB)`,
    );
    if (result.frames) report(`console: timeline frames while following it: ${frameLine(result.frames)}`);
    if (result.framesInteracting)
      report(`console: timeline frames while scrolling and zooming it live: ${frameLine(result.framesInteracting)}`);
    return result;
  } finally {
    await browser?.close();
    serve.kill('SIGTERM');
    await serve;
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await benchConsole();
}
