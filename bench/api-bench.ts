// The library path adds nothing measurable: the overhead benchmark's workload (3 turns, 3 tool calls per run, a
// zero-latency scripted model) run as whole engine runs, once through the public API (createMurmur + run) and once
// through internal imports (the host assembly + Engine.runTask), alternating rounds in one process. Target: the
// API's best round per tool call at most 1.05 times the internal one.
import { Type } from '@sinclair/typebox';
import { createMurmur, defineTool, textResult, type Murmur } from '../api/index.js';
import { scriptedModel } from '../api/testing.js';
import { assembleEngine } from '../host/assemble.js';
import { runReport } from '../host/reports.js';
import { EventBus } from '../orchestrator/events.js';
import type { MurmurConfig } from '../orchestrator/config.js';
import type { ModelProvider } from '../orchestrator/models/provider.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { script } from './overhead.js';

const RUNS = 200;
const AT_ONCE = 20;
const CALLS_PER_RUN = 3;
const ROUNDS = 9;

const echo = defineTool({
  def: {
    name: 'echo',
    description: 'echo',
    parameters: Type.Object({ text: Type.String() }),
    executionMode: 'parallel',
  },
  execute: (_c, i) => textResult(i.text),
});
const add = defineTool({
  def: {
    name: 'add',
    description: 'add',
    parameters: Type.Object({ a: Type.Number(), b: Type.Number() }),
    executionMode: 'parallel',
  },
  execute: (_c, i) => textResult(String(i.a + i.b)),
});
const TOOLS = [echo, add];

type One = (i: number) => Promise<string>;

async function pool(one: One): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < RUNS) {
      const i = next++;
      const text = await one(i);
      if (text !== `done ${i}`) throw new Error(`run ${i} answered ${JSON.stringify(text)}`);
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
}

async function time(one: One): Promise<number> {
  const started = process.hrtime.bigint();
  await pool(one);
  return Number(process.hrtime.bigint() - started) / 1000 / (RUNS * CALLS_PER_RUN);
}

function apiRunner(murmur: Murmur): One {
  return async (i) => (await murmur.run(`task ${i}`)).result;
}

function internalRunner(cwd: string, provider: ModelProvider): One {
  const config: MurmurConfig = { permissionMode: 'yolo' };
  const env = { ...process.env, MURMUR_MODEL: '' };
  return async (i) => {
    const { engine, close } = await assembleEngine({
      cwd,
      config,
      env,
      bus: new EventBus(),
      provider,
      frontEnd: 'cli',
      sessionKind: 'run',
      permissionMode: 'yolo',
      session: false,
      tools: TOOLS.map((tool) => ({ ...tool, grantedTo: ['main'] })),
    });
    try {
      return runReport(await engine.runTask(`task ${i}`)).result;
    } finally {
      await close();
    }
  };
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

export async function benchApi(report: (line: string) => void): Promise<void> {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'murmur-api-bench-'));
  try {
    const provider = scriptedModel(script);
    const murmur = await createMurmur({
      cwd,
      model: provider,
      permissionMode: 'yolo',
      sessions: false,
      tools: TOOLS.map((tool) => ({ tool, roles: ['main'] })),
    });
    const viaApi = apiRunner(murmur);
    const internal = internalRunner(cwd, provider);
    // Warm both up, then alternate which goes first so neither gets a warmer process.
    for (let warm = 0; warm < 3; warm++) {
      await time(viaApi);
      await time(internal);
    }
    const apiTimes: number[] = [];
    const internalTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        apiTimes.push(await time(viaApi));
        internalTimes.push(await time(internal));
      } else {
        internalTimes.push(await time(internal));
        apiTimes.push(await time(viaApi));
      }
    }
    await murmur.close();
    // The best round of each: on a shared machine other processes only ever add time.
    const a = Math.min(...apiTimes);
    const b = Math.min(...internalTimes);
    report(
      `api: ${RUNS} engine runs x 3 turns, ${AT_ONCE} at once, ${ROUNDS} rounds (best; median API ${median(apiTimes).toFixed(1)}, internal ${median(internalTimes).toFixed(1)} us/tool call)`,
    );
    report(
      `  public API:       ${a.toFixed(1)} us/tool call (rounds: ${apiTimes.map((t) => t.toFixed(0)).join(', ')})`,
    );
    report(
      `  internal imports: ${b.toFixed(1)} us/tool call (rounds: ${internalTimes.map((t) => t.toFixed(0)).join(', ')})`,
    );
    report(`api ratio: ${(a / b).toFixed(3)} (target <= 1.05)`);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('api-bench.js')) await benchApi((line) => process.stdout.write(`${line}\n`));
