// Cold import of the library's root entry beside the AI SDK's (`ai`), each in a fresh Node process, rounds
// interleaved, medians: what an application pays at start-up for `import … from 'murmur-agents'`. Both resolve from
// the repository's node_modules (the library through its workspace link, as an installed package resolves).
// Target: murmur-agents no slower than `ai`.
import { spawnSync } from 'node:child_process';
import { PACKAGE_ROOT } from './package-bin.js';

const ROUNDS = 15;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Milliseconds from spawn to exit of a Node process that imports `specifier` (or nothing). */
function timeImport(specifier: string | undefined): number {
  const code = specifier === undefined ? '0' : `await import(${JSON.stringify(specifier)})`;
  const started = process.hrtime.bigint();
  const ran = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: PACKAGE_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (ran.status !== 0)
    throw new Error(`import bench: importing ${specifier} exited ${ran.status}: ${ran.stderr.toString().slice(-500)}`);
  return ms;
}

export async function benchImport(report: (line: string) => void): Promise<void> {
  const cases = { node: undefined, murmur: 'murmur-agents', ai: 'ai' } as const;
  const times: Record<keyof typeof cases, number[]> = { node: [], murmur: [], ai: [] };
  // One warm-up round fills the file cache.
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [name, specifier] of Object.entries(cases) as [keyof typeof cases, string | undefined][]) {
      const ms = timeImport(specifier);
      if (round > 0) times[name].push(ms);
    }
  }
  const node = median(times.node);
  const murmur = median(times.murmur);
  const ai = median(times.ai);
  report(
    `import: node -e 0 ${node.toFixed(0)} ms · murmur-agents ${murmur.toFixed(0)} ms · ai ${ai.toFixed(0)} ms ` +
      `(medians of ${ROUNDS}; import alone: murmur-agents ${(murmur - node).toFixed(0)} ms, ai ${(ai - node).toFixed(0)} ms)`,
  );
  report(`import: murmur-agents / ai = ${(murmur / ai).toFixed(2)} (target ≤ 1)`);
}
