// Start-up: `murmur --help` and a one-turn `murmur run` on the scripted model, each beside `node -e 0` in the same
// run (rounds interleaved, medians), so a busy machine slows all three alike. The bundle (the package's bin) is
// measured, and the unbundled tsc output beside it for comparison. Targets: run ≤ 2.5×, help ≤ 1.5×.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBundle } from '../cli/build-bundle.js';
import { murmurBin, PACKAGE_ROOT } from './package-bin.js';

const ROUNDS = 11;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Wall-clock milliseconds of one process from spawn to exit; throws when it fails. */
function timeProcess(args: string[], cwd: string): number {
  const started = process.hrtime.bigint();
  const ran = spawnSync(process.execPath, args, {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (ran.status !== 0)
    throw new Error(`startup bench: node ${args.join(' ')} exited ${ran.status}: ${ran.stderr.toString().slice(-500)}`);
  return ms;
}

export async function benchStartup(report: (line: string) => void): Promise<void> {
  const root = PACKAGE_ROOT;
  const bundle = murmurBin();
  if (!existsSync(bundle)) await buildBundle(root);
  const unbundled = join(root, 'dist/cli/main.js');
  const dir = mkdtempSync(join(tmpdir(), 'murmur-startup-'));
  try {
    writeFileSync(
      join(dir, 'script.json'),
      JSON.stringify({ agents: [{ match: { role: 'main' }, turns: [{ text: 'done' }] }] }),
    );
    const run = ['run', '--no-dashboard', '--model', 'scripted:script.json', 'say done'];
    const cases: Record<string, string[]> = {
      node: ['-e', '0'],
      help: [bundle, '--help'],
      run: [bundle, ...run],
      helpUnbundled: [unbundled, '--help'],
      runUnbundled: [unbundled, ...run],
    };
    const times: Record<string, number[]> = {};
    for (const name of Object.keys(cases)) times[name] = [];
    // One warm-up round fills the file cache; then every round runs each case once.
    for (let round = 0; round <= ROUNDS; round++) {
      for (const [name, args] of Object.entries(cases)) {
        const ms = timeProcess(args, dir);
        if (round > 0) times[name]!.push(ms);
      }
    }
    const m = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, median(values)])) as Record<
      keyof typeof cases,
      number
    >;
    const ratio = (ms: number) => (ms / m.node!).toFixed(2);
    report(`startup: node -e 0 ${m.node!.toFixed(0)} ms (median of ${ROUNDS})`);
    report(
      `startup: murmur --help ${m.help!.toFixed(0)} ms = ${ratio(m.help!)}x node (unbundled ${m.helpUnbundled!.toFixed(0)} ms = ${ratio(m.helpUnbundled!)}x)`,
    );
    report(
      `startup: one-turn murmur run ${m.run!.toFixed(0)} ms = ${ratio(m.run!)}x node (unbundled ${m.runUnbundled!.toFixed(0)} ms = ${ratio(m.runUnbundled!)}x)`,
    );
    report(`startup ratio: run ${ratio(m.run!)} (target ≤ 2.5), help ${ratio(m.help!)} (target ≤ 1.5)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
