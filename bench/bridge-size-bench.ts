// murmur-tools with big arguments: the time a call takes and the longest the host's event loop stalls meanwhile
// (perf_hooks.monitorEventLoopDelay), for text arguments of 1, 10 and 30 MB, object-heavy ones at the limit, and
// one past the limit (refused). The launcher runs in its own process: the stall is the host's alone.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Type } from '@sinclair/typebox';
import { acquireLeaseServer, releaseLeaseServer } from '../tools/bridge/lease-server.js';
import { defineRuntimeTool, textResult, type RuntimeTool } from '../tools/contract.js';
import { benchLease } from './bridge-agent.js';

const MB = 1_000_000;

const sink = defineRuntimeTool({
  def: {
    name: 'mcp__bench__sink',
    description: 'Takes text or rows and says how much it got',
    parameters: Type.Object({ text: Type.Optional(Type.String()), rows: Type.Optional(Type.Array(Type.Unknown())) }),
    executionMode: 'parallel',
  },
  execute: (_ctx, input) => textResult(`got ${input.text?.length ?? 0} characters and ${input.rows?.length ?? 0} rows`),
}) as RuntimeTool;

/** Arguments of about `bytes` bytes: source-like text in one string, or many small objects. */
function argumentsOf(kind: 'text' | 'rows', bytes: number): string {
  if (kind === 'text') {
    const line = 'const answer = "forty-two";\n\tif (x) { return \'y\'; }\n';
    return JSON.stringify({ text: line.repeat(Math.ceil(bytes / line.length)).slice(0, Math.floor(bytes * 0.9)) });
  }
  const rows = Array.from({ length: Math.floor(bytes / 40) }, (_, i) => ({ id: i, name: `n${i}`, ok: true }));
  return JSON.stringify({ rows });
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env, maxBuffer: 64 * MB }, (error, _stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr });
    });
  });
}

export async function benchBridgeSize(report: (line: string) => void): Promise<void> {
  const server = await acquireLeaseServer();
  const lease = await benchLease(server, [sink]);
  const dir = mkdtempSync(path.join(tmpdir(), 'murmur-bridge-size-'));
  const sizes = (process.env.MURMUR_BENCH_BRIDGE_SIZES ?? 'text:1,text:10,text:30,rows:2,rows:4,rows:8,text:40')
    .split(',')
    .map((spec) => spec.split(':') as ['text' | 'rows', string]);
  try {
    for (const [kind, mb] of sizes) {
      const file = path.join(dir, `${kind}-${mb}.json`);
      const text = argumentsOf(kind, Number(mb) * MB);
      writeFileSync(file, text);
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const started = performance.now();
      const outcome = await run(lease.command, ['call', 'mcp__bench__sink', '--args-file', file], lease.env);
      const elapsed = performance.now() - started;
      delay.disable();
      const size = (Buffer.byteLength(text) / MB).toFixed(1);
      const refusal = outcome.code === 0 ? '' : ` (${outcome.stderr.trim().split('\n')[0]!.slice(0, 140)})`;
      report(
        `bridge-size: ${kind} ${size} MB: exit ${outcome.code} in ${(elapsed / 1000).toFixed(2)} s, ` +
          `longest event-loop stall ${(delay.max / 1e6).toFixed(0)} ms${refusal}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    lease.revoke();
    await releaseLeaseServer();
  }
}
