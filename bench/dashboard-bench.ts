// Benchmark: does the dashboard slow the agents down? The same 1,000-item scripted swarm (the real engine and
// swarm runner on the scripted model, 50 at once) runs with no subscriber and with the blessed dashboard drawing
// into a pseudo-terminal, alternately, in one child process that lives in @lydell/node-pty (so blessed has
// a real terminal to drive). Target: at most 5% slower, and at most 10 redraws a second.
//
// Run from the build: `node dist/bench/dashboard-bench.js` (or through the bench runner via benchDashboard).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pty from '@lydell/node-pty';
import { Engine } from '../orchestrator/engine.js';
import { EventBus } from '../orchestrator/events.js';
import { ScriptedModel, type Script } from '../orchestrator/models/scripted.js';
import { prepareSwarm } from '../host/swarm.js';
import { startDashboard, type DashboardStats } from '../dashboards/tui.js';

const AGENTS = 1000;
const AT_ONCE = 50;
const TURN_LATENCY_MS = 20;
const ROUNDS = 9;

interface RunFigures {
  wallMs: number;
  stats?: DashboardStats & { drawingMs: number };
}

interface ChildResult {
  plain: RunFigures[];
  dashboard: RunFigures[];
}

export interface DashboardBenchResult {
  plainMs: number;
  dashboardMs: number;
  ratio: number;
  redrawsPerSecond: number;
  peakRedrawsPerSecond: number;
  ptyBytes: number;
}

const script: Script = {
  agents: [
    {
      match: { prompt: 'Process item-(\\d+)' },
      turns: [
        {
          latencyMs: TURN_LATENCY_MS,
          text: 'Looking at item $1',
          toolCalls: [{ name: 'read', arguments: { path: 'notes.txt' } }],
          usage: { input: 800, output: 40 },
        },
        {
          latencyMs: TURN_LATENCY_MS,
          text: 'Two looks for item $1',
          toolCalls: [
            { name: 'read', arguments: { path: 'notes.txt', n_lines: 1 } },
            { name: 'glob', arguments: { pattern: '*.txt' } },
          ],
          usage: { input: 900, output: 60 },
        },
        { latencyMs: TURN_LATENCY_MS, text: 'Done with item $1', usage: { input: 1000, output: 20 } },
      ],
    },
  ],
};

/** A real swarm through the engine: 1,000 items, AT_ONCE at a time from the start. */
async function workload(bus: EventBus, count: number): Promise<number> {
  const cwd = mkdtempSync(join(tmpdir(), 'murmur-dash-bench-'));
  writeFileSync(join(cwd, 'notes.txt'), 'one\ntwo\nthree\n');
  const engine = new Engine({
    cwd,
    bus,
    provider: new ScriptedModel(script, 'scripted:bench'),
    session: false,
    definitions: new Map(),
    limits: { maxAgents: Number.POSITIVE_INFINITY, maxModelRequests: AT_ONCE },
    config: { swarm: { initialBurst: AT_ONCE, maxConcurrency: AT_ONCE } },
  });
  try {
    const items = Array.from({ length: count }, (_, i) => `item-${i + 1}`);
    const prepared = await prepareSwarm(
      engine,
      undefined,
      {
        promptTemplate: 'Process {{item}}',
        items,
        subagentType: 'worker',
        description: 'dashboard bench',
        maxItems: Number.POSITIVE_INFINITY,
      },
      {},
    );
    if (!prepared.ok) throw new Error(prepared.error);
    const started = performance.now();
    const results = await prepared.run.run(engine.signal);
    const wall = performance.now() - started;
    const bad = [...results].find((r) => r.outcome !== 'completed');
    if (bad) throw new Error(`bench item ${bad.item} ended ${bad.outcome}: ${bad.reason}`);
    return wall;
  } finally {
    await engine.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

async function runPlain(): Promise<RunFigures> {
  return { wallMs: await workload(new EventBus(), AGENTS) };
}

async function runWithDashboard(): Promise<RunFigures> {
  const bus = new EventBus();
  const handle = await startDashboard({
    bus,
    title: 'dashboard bench: a 1,000-item scripted swarm',
    model: 'scripted:bench',
    onAbort: () => undefined,
  });
  try {
    const wallMs = await workload(bus, AGENTS);
    const stats = handle.stats();
    // From the dashboard's first frame (drawn when it starts) to now: the window the redraw rate is over.
    return { wallMs, stats: { ...stats, drawingMs: Date.now() - stats.startedAt } };
  } finally {
    handle.stop();
  }
}

/** In the pseudo-terminal: a warm-up, then plain and dashboard runs alternately; figures go to a file. */
async function child(resultPath: string): Promise<void> {
  await workload(new EventBus(), 200);
  const result: ChildResult = { plain: [], dashboard: [] };
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so drift on a shared machine hurts both alike.
    if (round % 2 === 0) {
      result.plain.push(await runPlain());
      result.dashboard.push(await runWithDashboard());
    } else {
      result.dashboard.push(await runWithDashboard());
      result.plain.push(await runPlain());
    }
  }
  writeFileSync(resultPath, JSON.stringify(result));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export async function benchDashboard(report: (line: string) => void): Promise<DashboardBenchResult> {
  const self = fileURLToPath(import.meta.url);
  if (!self.endsWith('.js'))
    throw new Error(`run the dashboard bench from the build (dist/bench/dashboard-bench.js), not ${self}`);
  const dir = mkdtempSync(join(tmpdir(), 'murmur-dashboard-bench-'));
  const resultPath = join(dir, 'result.json');
  try {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
    env.TERM = 'xterm-256color';
    const term = pty.spawn(process.execPath, [self, '--child', resultPath], {
      name: 'xterm-256color',
      cols: 160,
      rows: 50,
      cwd: dir,
      env,
    });
    let ptyBytes = 0;
    let tail = '';
    term.onData((data) => {
      // The terminal side only drains: what matters is that blessed writes to a real pty.
      ptyBytes += data.length;
      tail = (tail + data).slice(-2000);
    });
    const exit = await new Promise<{ exitCode: number }>((done) => term.onExit(done));
    if (exit.exitCode !== 0)
      throw new Error(`the bench child failed (exit ${exit.exitCode}); its last output: ${JSON.stringify(tail)}`);
    const result = JSON.parse(readFileSync(resultPath, 'utf8')) as ChildResult;

    const plainMs = median(result.plain.map((r) => r.wallMs));
    const dashboardMs = median(result.dashboard.map((r) => r.wallMs));
    const stats = result.dashboard.map((r) => r.stats!);
    // Each run draws its first frame when the dashboard starts; the rate counts the frames after it.
    const renders = stats.reduce((sum, s) => sum + s.renders - 1, 0);
    const drawingSeconds = stats.reduce((sum, s) => sum + s.drawingMs, 0) / 1000;
    const figures: DashboardBenchResult = {
      plainMs,
      dashboardMs,
      ratio: dashboardMs / plainMs,
      redrawsPerSecond: renders / drawingSeconds,
      peakRedrawsPerSecond: Math.max(...stats.map((s) => s.peakRendersPerSecond)),
      ptyBytes,
    };
    const fmt = (values: RunFigures[]) => values.map((r) => r.wallMs.toFixed(0)).join(', ');
    report(
      `dashboard bench: a ${AGENTS}-item scripted swarm (3 turns of ${TURN_LATENCY_MS} ms, 3 tool calls each), ${AT_ONCE} at once, ${ROUNDS} rounds each`,
    );
    report(`  no subscriber:        median ${plainMs.toFixed(0)} ms (runs: ${fmt(result.plain)})`);
    report(`  dashboard in a pty:   median ${dashboardMs.toFixed(0)} ms (runs: ${fmt(result.dashboard)})`);
    report(`  ratio ${figures.ratio.toFixed(3)} (target <= 1.05) ${figures.ratio <= 1.05 ? 'OK' : 'OVER TARGET'}`);
    report(
      `  redraws: ${figures.redrawsPerSecond.toFixed(1)}/s on average, peak ${figures.peakRedrawsPerSecond} in one second (cap 10) ${figures.peakRedrawsPerSecond <= 10 ? 'OK' : 'OVER CAP'}; ${(stats.reduce((s, x) => s + x.drawMs, 0) / (renders + stats.length)).toFixed(1)} ms per frame; ${stats.reduce((s, x) => s + x.events, 0)} events, ${(ptyBytes / 1024).toFixed(0)} KiB drawn`,
    );
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const childAt = process.argv.indexOf('--child');
  const run =
    childAt >= 0
      ? child(process.argv[childAt + 1]!)
      : benchDashboard((line) => console.log(line)).then(() => undefined);
  run.catch((error: unknown) => {
    process.stderr.write(
      `dashboard bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  });
}
