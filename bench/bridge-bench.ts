// murmur-tools round trips beside a bare `node -e 0`, in the same run: `murmur-tools tools` (goal: within
// 1.5x) and `murmur-tools call` on a cheap in-process tool, each call going through the lease server and the
// same pipeline (gate and result budget) as a catalog call. Runs are interleaved so machine noise hits all three.
import { execFile } from 'node:child_process';
import { Type } from '@sinclair/typebox';
import { acquireLeaseServer, releaseLeaseServer } from '../tools/bridge/lease-server.js';
import { defineRuntimeTool, textResult, type RuntimeTool } from '../tools/contract.js';
import { benchLease } from './bridge-agent.js';

const ROUNDS = 20;

const echo = defineRuntimeTool({
  def: {
    name: 'mcp__bench__echo',
    description: 'Echoes its message',
    parameters: Type.Object({ message: Type.String() }),
    executionMode: 'parallel',
  },
  execute: (_ctx, input) => textResult(`Echo: ${input.message}`),
}) as RuntimeTool;

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    execFile(file, args, { env }, (error, stdout) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${error.message}`));
      else if (args[0] === 'call' && !stdout.startsWith('Echo: x')) reject(new Error(`unexpected output: ${stdout}`));
      else resolve(Number(process.hrtime.bigint() - started) / 1e6);
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function benchBridge(report: (line: string) => void): Promise<void> {
  const server = await acquireLeaseServer();
  const lease = await benchLease(server, [echo]);
  const { env, command } = lease;
  const times = { node: [] as number[], tools: [] as number[], call: [] as number[] };
  // One warm-up of each, then interleaved rounds.
  for (let round = -1; round < ROUNDS; round++) {
    const node = await run(process.execPath, ['-e', '0'], env);
    const tools = await run(command, ['tools'], env);
    const call = await run(command, ['call', 'mcp__bench__echo', '--args', '{"message":"x"}'], env);
    if (round < 0) continue;
    times.node.push(node);
    times.tools.push(tools);
    times.call.push(call);
  }
  lease.revoke();
  await releaseLeaseServer();
  const node = median(times.node);
  const tools = median(times.tools);
  const call = median(times.call);
  report(
    `bridge: node -e 0 ${node.toFixed(1)} ms, murmur-tools tools ${tools.toFixed(1)} ms, murmur-tools call ${call.toFixed(1)} ms (medians of ${ROUNDS})`,
  );
  report(`bridge: tools ratio ${(tools / node).toFixed(2)} (goal <= 1.5), call ratio ${(call / node).toFixed(2)}`);
}
