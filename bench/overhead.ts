// The overhead benchmark (issue "Foundation"): 1,000 agent runs, at most 50 at once, each 3 turns (two parallel
// tool calls, one tool call, a final text) on a zero-latency in-process scripted model. murmur's own loop is
// measured beside a minimal hand-written loop (JSON.parse + compiled TypeBox check + Promise.all + array push),
// the floor, in the same process and run.
import { PerformanceObserver } from 'node:perf_hooks';
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Agent } from '../orchestrator/agent.js';
import { EventBus } from '../orchestrator/events.js';
import { ScriptedModel, type Script } from '../orchestrator/models/scripted.js';
import type { Message, ToolResultMessage } from '../orchestrator/types.js';
import { defineRuntimeTool } from '../tools/contract.js';
import { toLoopTools } from '../tools/loop-tools.js';
import { compareTracingOff } from './tracing-off.js';

const RUNS = 1000;
const AT_ONCE = 50;
const CALLS_PER_RUN = 3;

const echoParams = Type.Object({ text: Type.String() });
const addParams = Type.Object({ a: Type.Number(), b: Type.Number() });

/** Three turns, three tool calls: the workload every loop-overhead comparison runs (also bench/api-bench.ts). */
export const script: Script = {
  agents: [
    {
      match: { prompt: '^task (\\d+)$' },
      turns: [
        {
          toolCalls: [
            { name: 'echo', arguments: { text: 'item $1' } },
            { name: 'add', arguments: { a: 2, b: 3 } },
          ],
        },
        { toolCalls: [{ name: 'echo', arguments: { text: 'again $1' } }] },
        { text: 'done $1' },
      ],
    },
  ],
};

const echo = (input: { text: string }) => ({ content: [{ type: 'text' as const, text: input.text }] });
const add = (input: { a: number; b: number }) => ({
  content: [{ type: 'text' as const, text: String(input.a + input.b) }],
});

const echoTool = defineRuntimeTool({
  def: { name: 'echo', description: 'echo', parameters: echoParams, executionMode: 'parallel' },
  execute: (_c, i) => echo(i),
});
const addTool = defineRuntimeTool({
  def: { name: 'add', description: 'add', parameters: addParams, executionMode: 'parallel' },
  execute: (_c, i) => add(i),
});

interface RunOutput {
  text: string;
  toolTexts: string[];
}

function toolTexts(messages: readonly Message[]): string[] {
  return messages.flatMap((m) => (m.role === 'tool' ? m.content.map((c) => (c.type === 'text' ? c.text : '')) : []));
}

function check(i: number, out: RunOutput): void {
  const expected = [`item ${i}`, '5', `again ${i}`];
  if (out.text !== `done ${i}` || out.toolTexts.join('|') !== expected.join('|')) {
    throw new Error(`run ${i} produced a wrong output: ${JSON.stringify(out)}`);
  }
}

async function pool(runs: number, atOnce: number, one: (i: number) => Promise<RunOutput>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < runs) {
      const i = next++;
      check(i, await one(i));
    }
  };
  await Promise.all(Array.from({ length: atOnce }, worker));
}

/** murmur's loop: the Agent wrapper around runLoop, events on (a bus) with no subscriber; `busOf`: a bus per run. */
function murmurRunner(model: ScriptedModel, busOf?: () => EventBus) {
  const shared = new EventBus();
  const tools = toLoopTools([echoTool, addTool], { fallback: false });
  return async (i: number): Promise<RunOutput> => {
    const id = `a-${i}`;
    const agent = new Agent(
      { id, role: 'worker' },
      {
        system: 'bench',
        maxTurns: 10,
        callModel: (request, signal) => model.complete(request, signal),
        toolsForTurn: () => tools,
        context: { agentId: id, role: 'worker', cwd: '/' },
      },
      busOf ? busOf() : shared,
    );
    const result = await agent.run(`task ${i}`);
    return { text: result.text, toolTexts: toolTexts(agent.state.messages) };
  };
}

/** The floor: the least a loop must do. */
function floorRunner(model: ScriptedModel) {
  const checks = { echo: TypeCompiler.Compile(echoParams), add: TypeCompiler.Compile(addParams) };
  const impls: Record<string, (input: never) => { content: { type: 'text'; text: string }[] }> = { echo, add };
  const schemas = [echoTool, addTool].map((t) => ({
    name: t.def.name,
    description: t.def.description,
    parameters: t.def.parameters,
  }));
  const signal = new AbortController().signal;
  return async (i: number): Promise<RunOutput> => {
    const messages: Message[] = [{ role: 'user', content: `task ${i}` }];
    for (;;) {
      const reply = await model.complete(
        { system: 'bench', messages, tools: schemas, agent: { id: `f-${i}`, role: 'worker' } },
        signal,
      );
      if (!reply.ok) throw new Error(reply.error.message);
      messages.push(reply.message);
      if (reply.message.toolCalls.length === 0) return { text: reply.message.text, toolTexts: toolTexts(messages) };
      const results = await Promise.all(
        reply.message.toolCalls.map(async (call): Promise<ToolResultMessage> => {
          const args = JSON.parse(call.arguments) as never;
          if (!checks[call.name as 'echo' | 'add'].Check(args)) throw new Error('bad arguments');
          const out = await impls[call.name]!(args);
          return { role: 'tool', toolCallId: call.id, toolName: call.name, content: out.content, isError: false };
        }),
      );
      messages.push(...results);
    }
  };
}

/** The time windows (performance.now) of one side's rounds: GC pauses that start inside them are that side's. */
type Windows = [number, number][];

async function timeRuns(one: (i: number) => Promise<RunOutput>, windows?: Windows): Promise<number> {
  const from = performance.now();
  const started = process.hrtime.bigint();
  await pool(RUNS, AT_ONCE, one);
  const ns = Number(process.hrtime.bigint() - started);
  windows?.push([from, performance.now()]);
  return ns / 1000 / (RUNS * CALLS_PER_RUN);
}

/** The share of the windows' time spent in garbage-collection pauses. */
function gcShare(windows: Windows, pauses: readonly { startTime: number; duration: number }[]): string {
  let wall = 0;
  let gc = 0;
  for (const [from, to] of windows) {
    wall += to - from;
    for (const pause of pauses) if (pause.startTime >= from && pause.startTime < to) gc += pause.duration;
  }
  return `${((100 * gc) / wall).toFixed(0)}%`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return false;
  gc();
  gc();
  return true;
}

/** Heap left behind per finished agent: run N agents, keep only their outputs, collect, compare. */
async function retainedPerAgent(): Promise<number | undefined> {
  const model = new ScriptedModel(script);
  const run = murmurRunner(model);
  if (!collectGarbage()) return undefined;
  const before = process.memoryUsage().heapUsed;
  const outputs: string[] = [];
  await pool(RUNS, AT_ONCE, async (i) => {
    const out = await run(i);
    outputs.push(out.text);
    return out;
  });
  collectGarbage();
  const after = process.memoryUsage().heapUsed;
  // The outputs themselves are the caller's, not the loop's: count them out.
  const kept = outputs.reduce((n, s) => n + 16 + s.length * 2, 0) + outputs.length * 8;
  return Math.max(0, after - before - kept) / RUNS;
}

export async function benchOverhead(report: (line: string) => void): Promise<void> {
  const model = new ScriptedModel(script);
  const murmur = murmurRunner(model);
  const floor = floorRunner(model);
  // Warm up both (three rounds each: the first rounds of either side run while the JIT is still optimising and
  // the heap is still growing, which is not the steady state this compares), then alternate so neither gets a
  // warmer process.
  for (let round = 0; round < 3; round++) {
    await timeRuns(murmur);
    await timeRuns(floor);
  }
  const pauses: { startTime: number; duration: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push({ startTime: entry.startTime, duration: entry.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  const murmurWindows: Windows = [];
  const floorWindows: Windows = [];
  const murmurTimes: number[] = [];
  const floorTimes: number[] = [];
  for (let round = 0; round < 7; round++) {
    murmurTimes.push(await timeRuns(murmur, murmurWindows));
    floorTimes.push(await timeRuns(floor, floorWindows));
  }
  // GC entries are delivered asynchronously: let the last ones arrive.
  await new Promise((resolve) => setTimeout(resolve, 20));
  observer.disconnect();
  const a = median(murmurTimes);
  const b = median(floorTimes);
  const retained = await retainedPerAgent();
  report(
    `overhead: ${RUNS} agent runs x 3 turns, ${AT_ONCE} at once, ${RUNS * CALLS_PER_RUN} tool calls per round, 7 rounds (median)`,
  );
  report(`  murmur loop: ${a.toFixed(2)} us/tool call (rounds: ${murmurTimes.map((t) => t.toFixed(1)).join(', ')})`);
  report(`  floor loop:  ${b.toFixed(2)} us/tool call (rounds: ${floorTimes.map((t) => t.toFixed(1)).join(', ')})`);
  report(
    `  GC pauses during the rounds: murmur ${gcShare(murmurWindows, pauses)}, floor ${gcShare(floorWindows, pauses)} of their time`,
  );
  report(`  peak RSS: ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
  report(
    retained === undefined
      ? '  retained heap per finished agent: run node with --expose-gc to measure'
      : `  retained heap per finished agent: ${Math.round(retained)} bytes (target <= 2048)`,
  );
  await compareTracingOff((busOf) => timeRuns(murmurRunner(model, busOf)), report);
  report(`overhead ratio: ${(a / b).toFixed(2)} (murmur ${a.toFixed(2)} us/call, floor ${b.toFixed(2)} us/call)`);
}
