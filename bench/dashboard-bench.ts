// Benchmark: does the dashboard slow the agents down? The same 1,000-agent scripted workload (real Agents on
// the scripted model, a fixed number at once) runs with no subscriber and with the blessed dashboard drawing
// into a pseudo-terminal, alternately, in one child process that lives in @lydell/node-pty (so blessed has
// a real terminal to drive). Target: at most 5% slower, and at most 10 redraws a second.
//
// Run from the build: `node dist/bench/dashboard-bench.js` (or through the bench runner via benchDashboard).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import pty from '@lydell/node-pty';
import { Agent } from '../orchestrator/agent.js';
import { EventBus } from '../orchestrator/events.js';
import { ScriptedModel, type Script } from '../orchestrator/models/scripted.js';
import { defineRuntimeTool } from '../tools/contract.js';
import { toLoopTools } from '../tools/loop-tools.js';
import { startDashboard, type DashboardStats } from '../dashboards/tui.js';

const AGENTS = 1000;
const AT_ONCE = 50;
const TURN_LATENCY_MS = 20;
const ROUNDS = 5;

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
      match: { prompt: 'Process item (\\d+)' },
      turns: [
        { latencyMs: TURN_LATENCY_MS, text: 'Looking at item $1', toolCalls: [{ name: 'note', arguments: { text: 'read $1' } }], usage: { input: 800, output: 40 } },
        {
          latencyMs: TURN_LATENCY_MS,
          text: 'Two notes for item $1',
          toolCalls: [
            { name: 'note', arguments: { text: 'first $1' } },
            { name: 'note', arguments: { text: 'second $1' } },
          ],
          usage: { input: 900, output: 60 },
        },
        { latencyMs: TURN_LATENCY_MS, text: 'Done with item $1', usage: { input: 1000, output: 20 } },
      ],
    },
  ],
};

const note = defineRuntimeTool({
  def: { name: 'note', description: 'takes a note', parameters: Type.Object({ text: Type.String() }), executionMode: 'parallel' },
  execute: (_ctx, input) => ({ content: [{ type: 'text', text: `noted: ${input.text}` }] }),
});

/** 1,000 agents, AT_ONCE at a time; swarm events only when someone listens, as the engine does. */
async function workload(bus: EventBus, count: number): Promise<number> {
  const model = new ScriptedModel(script, 'scripted:bench');
  const tools = toLoopTools([note]);
  const swarmId = 'bench';
  const items = Array.from({ length: count }, (_, i) => `item-${i + 1}`);
  const started = performance.now();
  if (bus.wants('swarm.start')) bus.emit({ type: 'swarm.start', swarmId, description: 'dashboard bench', role: 'worker', items, maxConcurrency: AT_ONCE });
  let next = 0;
  let running = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      const id = `w-${index + 1}`;
      running++;
      if (bus.wants('swarm.item')) bus.emit({ type: 'swarm.item', swarmId, item: items[index]!, index, state: 'launched', agentId: id, capacity: AT_ONCE, running });
      const agent = new Agent(
        { id, role: 'worker', swarmId, item: items[index]! },
        { system: '', maxTurns: 5, callModel: (r, s) => model.complete(r, s), toolsForTurn: () => tools, context: { agentId: id, role: 'worker', cwd: tmpdir() } },
        bus,
      );
      const result = await agent.run(`Process item ${index + 1}`);
      running--;
      if (result.status !== 'completed') throw new Error(`bench agent ${id} ended ${result.status}: ${result.reason}`);
      if (bus.wants('swarm.item')) bus.emit({ type: 'swarm.item', swarmId, item: items[index]!, index, state: 'completed', agentId: id, capacity: AT_ONCE, running });
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, lane));
  if (bus.wants('swarm.end')) bus.emit({ type: 'swarm.end', swarmId, counts: { completed: count }, durationMs: performance.now() - started });
  return performance.now() - started;
}

async function runPlain(): Promise<RunFigures> {
  return { wallMs: await workload(new EventBus(), AGENTS) };
}

async function runWithDashboard(): Promise<RunFigures> {
  const bus = new EventBus();
  const handle = await startDashboard({ bus, title: 'dashboard bench: 1,000 scripted agents', model: 'scripted:bench', onAbort: () => undefined });
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
  if (!self.endsWith('.js')) throw new Error(`run the dashboard bench from the build (dist/bench/dashboard-bench.js), not ${self}`);
  const dir = mkdtempSync(join(tmpdir(), 'murmur-dashboard-bench-'));
  const resultPath = join(dir, 'result.json');
  try {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
    env.TERM = 'xterm-256color';
    const term = pty.spawn(process.execPath, [self, '--child', resultPath], { name: 'xterm-256color', cols: 160, rows: 50, cwd: dir, env });
    let ptyBytes = 0;
    let tail = '';
    term.onData((data) => {
      // The terminal side only drains: what matters is that blessed writes to a real pty.
      ptyBytes += data.length;
      tail = (tail + data).slice(-2000);
    });
    const exit = await new Promise<{ exitCode: number }>((done) => term.onExit(done));
    if (exit.exitCode !== 0) throw new Error(`the bench child failed (exit ${exit.exitCode}); its last output: ${JSON.stringify(tail)}`);
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
    report(`dashboard bench: ${AGENTS} scripted agents (3 turns of ${TURN_LATENCY_MS} ms, 3 tool calls each), ${AT_ONCE} at once, ${ROUNDS} rounds each`);
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
  const run = childAt >= 0 ? child(process.argv[childAt + 1]!) : benchDashboard((line) => console.log(line)).then(() => undefined);
  run.catch((error: unknown) => {
    process.stderr.write(`dashboard bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
