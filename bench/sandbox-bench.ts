// What the sandbox costs a bash command: the same commands through the bash tool's process-group runner, unconfined
// and under bubblewrap with the mounts an agent gets (a git workspace with its protected paths read-only, its
// home's secret folders) plus the check of protected paths after each command, interleaved in one process so
// machine noise hits both. Reports medians and their ratio.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findBwrap } from '../host/sandbox.js';
import { runInProcessGroup, type ProcessWrapper } from '../tools/shell/process-group.js';
import { bwrapArguments, sandboxMounts } from '../tools/shell/sandbox.js';
import { restoreProtected, snapshotProtected } from '../tools/shell/sandbox-guard.js';

const ROUNDS = 30;
const COMMANDS = { true: 'true', 'ls + grep': 'ls -la . && grep -c x a.txt', git: 'git status --short' };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A sandboxed command as bash runs one: its mounts from disk, then the command, then the protected-path check. */
interface Boxed {
  wrapper(): { wrapper: ProcessWrapper; guarded: string[] };
  root: string;
}

async function timed(command: string, cwd: string, boxed: Boxed | undefined): Promise<number> {
  const started = process.hrtime.bigint();
  const plan = boxed?.wrapper();
  const snapshot = plan && boxed ? snapshotProtected(plan.guarded, [boxed.root]) : undefined;
  const run = await runInProcessGroup({
    command,
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd },
    ...(plan ? { wrapper: plan.wrapper } : {}),
    timeoutMs: 30_000,
    onOutput: () => {},
  });
  if (snapshot && boxed) restoreProtected(snapshot, boxed.root);
  if (run.exitCode !== 0) throw new Error(`${command} failed (${run.exitCode ?? run.signal})`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export async function benchSandbox(report: (line: string) => void): Promise<void> {
  const bwrap = findBwrap(process.env);
  if (!bwrap) {
    report('sandbox: skipped, bwrap is not installed (Debian package bubblewrap)');
    return;
  }
  const root = mkdtempSync(path.join(tmpdir(), 'murmur-sandbox-bench-'));
  try {
    writeFileSync(path.join(root, 'a.txt'), 'x\n');
    mkdirSync(path.join(root, '.ssh'));
    mkdirSync(path.join(root, '.murmur'));
    await timed('git init -q && mkdir .vscode && touch murmur.toml .mcp.json .bashrc', root, undefined);
    const sandbox = { bwrap, network: false, runRoot: root, stateDirs: [path.join(root, '.murmur')], readable: [] };
    const wrapper = () => {
      const plan = sandboxMounts({ sandbox, root, extraRoots: [], cwd: root, home: root, runtimeDir: undefined });
      return { wrapper: { file: bwrap, args: bwrapArguments(plan) }, guarded: plan.guarded };
    };
    for (const [name, command] of Object.entries(COMMANDS)) {
      const plain: number[] = [];
      const boxed: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        plain.push(await timed(command, root, undefined));
        boxed.push(await timed(command, root, { wrapper, root }));
      }
      const [p, b] = [median(plain), median(boxed)];
      report(
        `sandbox: ${name}: unconfined ${p.toFixed(1)} ms, in the sandbox ${b.toFixed(1)} ms (+${(b - p).toFixed(1)} ms, ratio ${(b / p).toFixed(2)}; medians of ${ROUNDS})`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
