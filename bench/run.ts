// `npm run bench [-- NAME …]`: runs the benchmarks (all by default) and prints their figures. The overhead
// benchmark runs last, so the final line is its ratio line that outside checks read.
type Bench = (report: (line: string) => void) => Promise<void>;

const BENCHES: Record<string, () => Promise<Bench>> = {
  tools: async () => (await import('./tools-bench.js')).benchWorkspaceTools,
  dashboard: async () => async (report) => void (await (await import('./dashboard-bench.js')).benchDashboard(report)),
  swarm: async () => (await import('./swarm-bench.js')).benchSwarm,
  startup: async () => (await import('./startup-bench.js')).benchStartup,
  import: async () => (await import('./import-bench.js')).benchImport,
  cron: async () => (await import('./cron-bench.js')).benchCron,
  bridge: async () => (await import('./bridge-bench.js')).benchBridge,
  'bridge-size': async () => (await import('./bridge-size-bench.js')).benchBridgeSize,
  queue: async () => (await import('./queue-bench.js')).benchQueue,
  api: async () => (await import('./api-bench.js')).benchApi,
  console: async () => async (report) => void (await (await import('./console-bench.js')).benchConsole(report)),
  chaos: async () => (await import('./chaos-bench.js')).benchChaos,
  sandbox: async () => (await import('./sandbox-bench.js')).benchSandbox,
  worktree: async () => (await import('./worktree-bench.js')).benchWorktree,
  scale: async () => (await import('./scale-bench.js')).benchScale,
  overhead: async () => (await import('./overhead.js')).benchOverhead,
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  for (const name of wanted) {
    if (!BENCHES[name]) {
      process.stderr.write(`bench: unknown benchmark "${name}"; known: ${Object.keys(BENCHES).join(', ')}\n`);
      process.exitCode = 2;
      return;
    }
  }
  const names = wanted.length > 0 ? wanted : Object.keys(BENCHES);
  const ordered = [...names.filter((n) => n !== 'overhead'), ...names.filter((n) => n === 'overhead')];
  for (const name of ordered) {
    const bench = await BENCHES[name]!();
    await bench((line) => process.stdout.write(`${line}\n`));
  }
}

await main();
