// `murmur worker --queue redis://… [--cwd DIR] [--concurrency N] [--model M]`: takes swarm items from Redis and
// runs them in fresh worktrees of this machine's checkout, until Ctrl-C or SIGTERM (running items finish first).
import { hostname } from 'node:os';
import { parseArgs, positiveIntFlag, stringFlag, UsageError } from './args.js';
import { configFor, providerFactory, workspaceFrom } from './setup.js';
import { itemHostForCommand } from './item-host.js';
import { WORKER_FLAGS } from './flags.js';
import { commandTracing, flushTelemetry, QUICK_FLUSH_MS } from './telemetry.js';
import type { ModelProvider } from '../host/model-provider.js';
import type { PermissionMode } from '../host/permission-rules.js';
import { HostInputError } from '../host/errors.js';
import { checkSandboxWorks } from '../host/sandbox.js';
import {
  connectQueueTarget,
  loadQueueWorker,
  queueUrlFromEnv,
  queueUrlHoldsSecret,
  type QueueTarget,
} from '../host/queue.js';

const PERMISSION_MODES = new Set(['manual', 'auto', 'yolo']);

/** A worker started with --sandbox that cannot sandbox would fail every item: exit 2 at once instead. */
async function sandboxWorks(root: string, env: NodeJS.ProcessEnv): Promise<void> {
  try {
    await checkSandboxWorks(root, await configFor(root), env);
  } catch (error) {
    if (error instanceof HostInputError) throw new UsageError(`murmur worker: ${error.message}`);
    throw error;
  }
}

/** The queue's URL from --queue or MURMUR_QUEUE, checked and connected; bad input is exit 2 naming it (password hidden). */
export async function queueFromFlagOrEnv(
  command: string,
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  fallback?: string,
): Promise<QueueTarget | undefined> {
  const fromEnv = queueUrlFromEnv(env);
  if (!fromEnv.ok && flag === undefined) throw new UsageError(`murmur ${command}: ${fromEnv.error}.`);
  const envUrl = fromEnv.ok ? fromEnv.url : undefined;
  const raw = flag ?? envUrl ?? fallback;
  if (raw === undefined) return undefined;
  // A command line is readable by every process of the machine (ps, /proc/PID/cmdline), agents' commands included.
  if (flag !== undefined && (await queueUrlHoldsSecret(flag))) {
    process.stderr.write(
      `murmur ${command}: warning: the --queue URL holds a password, which other processes on this machine can read from the command line (ps, /proc); pass it in the MURMUR_QUEUE environment variable instead (murmur keeps it from agents' commands).\n`,
    );
  }
  const connected = await connectQueueTarget(
    raw,
    flag !== undefined ? '--queue' : envUrl !== undefined ? 'MURMUR_QUEUE' : 'the saved queue URL',
  );
  if (!connected.ok) throw new UsageError(`murmur ${command}: ${connected.error}.`);
  return connected.target;
}

/** BullMQ's lock time (ms): MURMUR_QUEUE_STALLED_MS, default 30 s. Lower means a killed worker's item moves on sooner. */
function stalledMs(env: NodeJS.ProcessEnv): number {
  const raw = env.MURMUR_QUEUE_STALLED_MS?.trim();
  if (!raw) return 30_000;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < 100)
    throw new UsageError(
      `murmur worker: MURMUR_QUEUE_STALLED_MS must be a whole number of milliseconds, at least 100; got ${JSON.stringify(raw)}.`,
    );
  return n;
}

export async function workerCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs('worker', argv, WORKER_FLAGS);
  if (args.positionals.length > 0)
    throw new UsageError(`murmur worker: unexpected argument ${JSON.stringify(args.positionals[0])}.`);
  const env = process.env;
  const cwd = workspaceFrom('worker', args);
  const concurrency = positiveIntFlag('worker', args, 'concurrency') ?? 1;
  const stalled = stalledMs(env);
  const { QueueWorker, repoRoot } = await loadQueueWorker();
  const root = await repoRoot(cwd);
  if (!root)
    throw new UsageError(
      `murmur worker: --cwd ${JSON.stringify(cwd)} is not in a git repository; start the worker in a clone of the coordinator's repository.`,
    );
  const sandboxed = args.flags.sandbox === true;
  // Checked now: a worker that cannot sandbox would fail every item.
  if (sandboxed) await sandboxWorks(root, env);
  const queue = await queueFromFlagOrEnv('worker', stringFlag(args, 'queue'), env);
  if (!queue)
    throw new UsageError(
      'murmur worker: give the queue with --queue redis://[user:password@]HOST:PORT[/DB] (or rediss://…) or MURMUR_QUEUE.',
    );
  const modelOverride = stringFlag(args, 'model');
  const baseUrl = stringFlag(args, 'base-url');
  const machine = stringFlag(args, 'name') ?? hostname();

  const { createProvider } = await import('../host/model-resolution.js');
  const providers = new Map<string, Promise<ModelProvider>>();
  const provider = (spec: string): Promise<ModelProvider> => {
    let made = providers.get(spec);
    if (!made) {
      // Keys and endpoints come from this machine's environment: nothing secret travels in a job.
      made = createProvider(spec, { env, cwd: root, ...(baseUrl ? { baseUrl } : {}) });
      providers.set(spec, made);
      made.catch(() => providers.delete(spec));
    }
    return made;
  };
  if (modelOverride !== undefined) {
    try {
      await provider(modelOverride);
    } catch (error) {
      // A bad spec, a missing key or an unreadable script: the worker would fail every item, so it does not start.
      throw new UsageError(`murmur worker: --model ${JSON.stringify(modelOverride)}: ${(error as Error).message}`);
    }
  }

  const [{ EventBus }, { createMcpSource }] = await Promise.all([
    import('../host/event-bus.js'),
    import('../host/mcp-servers.js'),
  ]);
  const worker = new QueueWorker({
    open: queue.open,
    root,
    concurrency,
    ...(modelOverride !== undefined ? { modelOverride } : {}),
    provider,
    machine,
    stalledMs: stalled,
    log: (line) => process.stderr.write(`murmur worker: ${line}\n`),
    engineFor: async ({ cwd: itemCwd, job, provider: itemProvider }) => {
      const config = await configFor(itemCwd);
      if (job.effort === 'low' || job.effort === 'medium' || job.effort === 'high') config.effort = job.effort;
      const bus = new EventBus();
      const mcp = await createMcpSource({ cwd: itemCwd, config, env, bus, provider: itemProvider });
      const permissionMode =
        job.permissionMode !== undefined && PERMISSION_MODES.has(job.permissionMode)
          ? (job.permissionMode as PermissionMode)
          : undefined;
      const { host, close: closeEngine } = await itemHostForCommand({
        cwd: itemCwd,
        config,
        env,
        bus,
        provider: itemProvider,
        providerFor: providerFactory(
          { flags: { model: itemProvider.name, ...(baseUrl ? { 'base-url': baseUrl } : {}) }, positionals: [] },
          config,
          itemCwd,
          env,
          itemProvider.name,
        ),
        frontEnd: 'cli',
        sessionKind: 'swarm',
        ...(mcp ? { mcp } : {}),
        ...(permissionMode ? { permissionMode } : {}),
        // The item's shells in the sandbox when this worker or the swarm's coordinator runs them there.
        ...(sandboxed || job.sandbox
          ? { sandbox: { enabled: true, ...(job.sandbox?.network ? { network: true } : {}) } }
          : {}),
        headlessReason: 'a queue worker has nobody to ask',
        session: false,
        limits: { maxAgents: Number.POSITIVE_INFINITY },
        // The item's spans join the coordinator's trace.
        ...commandTracing(job.traceparent),
      });
      return {
        run: host,
        close: async () => {
          await closeEngine();
          await mcp?.close();
        },
      };
    },
  });
  await worker.start();
  process.stderr.write(
    `murmur worker: ${machine} serving ${queue.shown} from ${root} (concurrency ${concurrency}${modelOverride ? `, model ${modelOverride}` : ''})\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.stderr.write('murmur worker: stopping after the running items (press Ctrl-C again to quit at once)\n');
      process.once('SIGINT', () => void flushTelemetry(QUICK_FLUSH_MS).finally(() => process.exit(130)));
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await worker.close();
  return 0;
}
