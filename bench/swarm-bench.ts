// Swarm benchmarks (issue "AgentSwarm"): (1) ramp fidelity against the ideal schedule, (2) rate-limit
// adaptation against a provider that allows 12 requests at once, beside the same run with adaptation off,
// (3) scale: 10,000 items on a zero-latency model.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../orchestrator/engine.js';
import { ScriptedModel, type Script } from '../orchestrator/models/scripted.js';
import type { ModelProvider } from '../orchestrator/models/provider.js';
import { SessionStore } from '../orchestrator/session.js';
import { SwarmController, DEFAULT_CONTROLLER_OPTIONS, type ControllerOptions } from '../swarm/controller.js';
import { prepareSwarm } from '../host/swarm.js';
import type { ItemResult } from '../swarm/report.js';

type Report = (line: string) => void;

function workspace(): string {
  return mkdtempSync(join(tmpdir(), 'murmur-swarm-bench-'));
}

function engineFor(cwd: string, provider: ModelProvider, withSession: boolean, maxModelRequests = 16): Engine {
  return new Engine({
    cwd,
    provider,
    session: withSession ? SessionStore.create(join(cwd, '.murmur')) : false,
    sessionKind: 'swarm',
    definitions: new Map(),
    limits: { maxAgents: Number.POSITIVE_INFINITY, maxModelRequests },
    config: { retry: { maxAttempts: 4, baseDelay: '200ms' } },
  });
}

async function runSwarm(
  engine: Engine,
  items: string[],
  controller?: Partial<ControllerOptions>,
): Promise<{ results: ItemResult[]; ms: number }> {
  const prepared = await prepareSwarm(
    engine,
    undefined,
    { promptTemplate: 'Do {{item}}', items, subagentType: 'worker', maxItems: Number.POSITIVE_INFINITY },
    {},
  );
  if (!prepared.ok) throw new Error(prepared.error);
  Object.assign(prepared.run.spec.settings.controller, controller);
  const started = performance.now();
  const results = [...(await prepared.run.run(new AbortController().signal))];
  return { results, ms: performance.now() - started };
}

/** The ideal launch times: the controller on a virtual clock, each item taking exactly `durationMs`. */
export function idealLaunchTimes(
  count: number,
  durationMs: number,
  options: ControllerOptions = DEFAULT_CONTROLLER_OPTIONS,
): number[] {
  const controller = new SwarmController(count, options);
  const launches: number[] = new Array<number>(count);
  const ends: { at: number; index: number }[] = [];
  const apply = (now: number, actions: ReturnType<SwarmController['tick']>) => {
    for (const action of actions) {
      if (action.type !== 'launch') continue;
      launches[action.index] = now;
      ends.push({ at: now + durationMs, index: action.index });
    }
  };
  apply(0, controller.start(0));
  while (!controller.done) {
    ends.sort((a, b) => a.at - b.at);
    const wake = controller.nextWakeAt();
    const nextEnd = ends[0];
    if (nextEnd && (wake === undefined || nextEnd.at <= wake)) {
      ends.shift();
      apply(nextEnd.at, controller.finished(nextEnd.index, nextEnd.at));
    } else if (wake !== undefined) apply(wake, controller.tick(wake));
    else break;
  }
  return launches;
}

async function rampFidelity(report: Report): Promise<void> {
  const count = 40;
  const durationMs = 3000;
  const cwd = workspace();
  try {
    const script: Script = { agents: [{ turns: [{ latencyMs: durationMs, text: 'done $0' }] }] };
    const engine = engineFor(cwd, new ScriptedModel(script, 'scripted:ramp'), false);
    const launched = new Map<number, number>();
    let swarmStart = 0;
    engine.bus.on('swarm.start', (e) => (swarmStart = e.ts));
    engine.bus.on('swarm.item', (e) => {
      if (e.state === 'launched' && !launched.has(e.index)) launched.set(e.index, performance.now());
    });
    const origin = { at: 0 };
    engine.bus.on('swarm.start', () => (origin.at = performance.now()));
    const { results } = await runSwarm(
      engine,
      Array.from({ length: count }, (_, i) => `item-${i + 1}`),
    );
    void swarmStart;
    const ideal = idealLaunchTimes(count, durationMs);
    const late = ideal.map((at, i) => launched.get(i)! - origin.at - at);
    const lost = results.filter((r) => r.outcome !== 'completed').length;
    report(`swarm ramp fidelity: ${count} items of ${durationMs / 1000} s, ramp 5 then +1 per 700 ms`);
    report(
      `  launch lateness vs the ideal schedule: max ${Math.max(...late).toFixed(1)} ms, mean ${(late.reduce((a, b) => a + b, 0) / count).toFixed(1)} ms (target max <= 50 ms); items not completed: ${lost}`,
    );
    await engine.close();
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** Wraps a provider to record when served (not refused) requests were in flight. */
function servedRecorder(provider: ModelProvider) {
  const intervals: [number, number][] = [];
  let refused = 0;
  let first429: number | undefined;
  const wrapped: ModelProvider = {
    name: provider.name,
    capabilities: provider.capabilities,
    async complete(request, signal) {
      const start = performance.now();
      const result = await provider.complete(request, signal);
      if (result.ok) intervals.push([start, performance.now()]);
      else if (result.error.status === 429) {
        refused++;
        first429 ??= start;
      }
      return result;
    },
  };
  return {
    wrapped,
    refusals: () => refused,
    /** Time-weighted mean of served requests in flight from the first 429 to the end. */
    meanServedSinceFirst429(end: number): number | undefined {
      if (first429 === undefined) return undefined;
      const from = first429;
      let busy = 0;
      for (const [a, b] of intervals) busy += Math.max(0, Math.min(b, end) - Math.max(a, from));
      return busy / (end - from);
    },
  };
}

async function rateLimits(report: Report): Promise<void> {
  const count = 1000;
  const limit = 12;
  const script: Script = {
    rateLimit: { maxConcurrent: limit, retryAfterMs: 200 },
    agents: [
      {
        turns: [
          { latencyMs: 100, text: 'step 1 of $0', toolCalls: [] },
          { latencyMs: 100, text: 'done' },
        ],
      },
    ],
  };
  // Two model turns per item: the first answers with a tool-less text would end the agent, so use a tool call.
  script.agents[0]!.turns[0] = {
    latencyMs: 100,
    toolCalls: [{ name: 'glob', arguments: { pattern: 'nothing-*.none' } }],
  };
  report(
    `swarm rate limits: ${count} items x 2 turns of 100 ms, provider allows ${limit} requests at once (429 beyond, Retry-After 200 ms)`,
  );
  for (const adaptive of [true, false]) {
    const cwd = workspace();
    try {
      const recorder = servedRecorder(new ScriptedModel(script, 'scripted:rate'));
      const engine = engineFor(cwd, recorder.wrapped, false, 64);
      const items = Array.from({ length: count }, (_, i) => `item-${i + 1}`);
      const controller: Partial<ControllerOptions> & { adaptive?: boolean } = { quietWindowMs: 5000, adaptive };
      const { results, ms } = await runSwarm(engine, items, controller);
      const end = performance.now();
      const lost = results.filter((r) => r.outcome !== 'completed').length;
      const mean = recorder.meanServedSinceFirst429(end);
      report(
        `  adaptation ${adaptive ? 'on ' : 'off'}: wall ${(ms / 1000).toFixed(1)} s, 429s ${recorder.refusals()}, served at once since the first 429 ${mean === undefined ? 'n/a (no 429)' : `${mean.toFixed(2)} (${((mean / limit) * 100).toFixed(0)}% of ${limit}; target >= 90%)`}, items lost ${lost}`,
      );
      await engine.close();
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }
}

async function scale(report: Report): Promise<void> {
  const count = 10_000;
  const cwd = workspace();
  try {
    const engine = engineFor(
      cwd,
      new ScriptedModel({ agents: [{ turns: [{ text: 'done $0' }] }] }, 'scripted:scale'),
      true,
    );
    const items = Array.from({ length: count }, (_, i) => `item-${i + 1}`);
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const { results, ms } = await runSwarm(engine, items);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    await engine.close();
    const lost = results.filter((r) => r.outcome !== 'completed').length;
    report(`swarm scale: ${count} items on a zero-latency model, session on disk`);
    report(
      `  wall ${(ms / 1000).toFixed(1)} s (${((ms * 1000) / count).toFixed(0)} us/item), peak RSS ${Math.round(peak / 1048576)} MB (target < 300 MB), items not completed ${lost}`,
    );
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

export async function benchSwarm(report: Report): Promise<void> {
  await rampFidelity(report);
  await rateLimits(report);
  await scale(report);
}
