// `murmur serve [--port N] [--host H] [--allow-host NAME]… [--no-scheduler] [--cwd DIR]`: the web console and,
// unless --no-scheduler, the scheduler service of `murmur scheduler` in the same process. The first stdout
// line is the link with this start's token; warnings and the service's log go to stderr.
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { workspaceFrom } from './setup.js';
import { stateHome } from '../host/session-store.js';
import { cronTiming } from './cron-clock.js';
import { SERVE_FLAGS } from './flags.js';
import type { CronService as CronServiceType } from '../scheduler/service.js';

export const DEFAULT_PORT = 4777;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

function portFrom(args: ParsedArgs): number {
  const raw = stringFlag(args, 'port');
  if (raw === undefined) return DEFAULT_PORT;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`murmur serve: --port ${JSON.stringify(raw)} is not a port; give 0 (any free port) to 65535.`);
  return n;
}

/** The Host header values the console answers to. */
export function allowedHosts(host: string, port: number, extra: readonly string[]): string[] {
  if (LOOPBACK.has(host) || host === '127.0.0.1') return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  const own = isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
  return [own, ...extra.map((name) => (name.includes(':') && !name.startsWith('[') ? name : `${name}:${port}`))];
}

export async function serveCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs('serve', argv, SERVE_FLAGS);
  if (args.positionals.length > 0)
    throw new UsageError(
      `murmur serve: unexpected ${JSON.stringify(args.positionals.join(' '))}. Usage: murmur serve [--port N] [--host H] [--allow-host NAME]… [--no-scheduler] [--cwd DIR].`,
    );
  const port = portFrom(args);
  const host = stringFlag(args, 'host') ?? '127.0.0.1';
  if (host.trim() === '' || /[\s/]/.test(host))
    throw new UsageError(`murmur serve: --host ${JSON.stringify(host)} is not an address or host name.`);
  const extraHosts = (args.flags['allow-host'] as string[] | undefined) ?? [];
  for (const name of extraHosts)
    if (!/^[A-Za-z0-9.\-[\]:]+$/.test(name))
      throw new UsageError(`murmur serve: --allow-host ${JSON.stringify(name)} is not a host name.`);
  const loopback = LOOPBACK.has(host);
  if (loopback && extraHosts.length > 0)
    throw new UsageError(
      'murmur serve: --allow-host applies to a --host other than loopback; on 127.0.0.1 the console answers to 127.0.0.1, localhost and [::1].',
    );
  const workspace = realpathSync(workspaceFrom('serve', args));
  const runScheduler = args.flags.scheduler !== false;

  const [{ serve }, { consoleApp }, { CronStore, allStores }] = await Promise.all([
    import('@hono/node-server'),
    import('../dashboards/web/app.js'),
    import('../scheduler/store.js'),
  ]);
  const env = process.env;
  const own = CronStore.forWorkspace(workspace, { env });
  const onlyHere = stringFlag(args, 'cwd') !== undefined;
  const stores = () => {
    if (onlyHere) return [own];
    const listed = allStores(env);
    return listed.some((s) => s.workspace === own.workspace) ? listed : [own, ...listed];
  };
  const token = randomBytes(24).toString('base64url');

  const server = await new Promise<ReturnType<typeof serve> | undefined>((resolvePromise) => {
    let app: ReturnType<typeof consoleApp> | undefined;
    const s = serve({ fetch: (request, e) => app!.fetch(request, e), port, hostname: host }, (info) => {
      app = consoleApp({
        token,
        allowedHosts: allowedHosts(host, info.port, extraHosts),
        workspace,
        stores,
        home: stateHome(workspace, env),
        env,
        mainScript: fileURLToPath(new URL('./main.js', import.meta.url)),
      });
      resolvePromise(s);
    });
    s.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        process.stderr.write(
          `murmur serve: port ${port} on ${host} is taken; choose another with --port N, or --port 0 for a free one.\n`,
        );
      else process.stderr.write(`murmur serve: cannot listen on ${host}:${port}: ${error.code ?? error.message}.\n`);
      resolvePromise(undefined);
    });
  });
  if (!server) return 2;
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = isIP(host) === 6 ? `[${host}]` : host;
  process.stdout.write(`murmur console: http://${shownHost}:${actualPort}/?token=${token}\n`);
  if (!loopback) {
    process.stderr.write(
      `murmur serve: warning: listening on ${host}, not loopback: anyone who can reach this machine at ${[`${shownHost}:${actualPort}`, ...extraHosts].join(', ')} and has the link (its token) can see your sessions and create, change and run scheduled tasks.\n`,
    );
  }

  let service: CronServiceType | undefined;
  if (runScheduler) {
    const [{ CronService, DEFAULT_CHECK_MS, MAX_CHECK_MS }, { processLauncher }] = await Promise.all([
      import('../scheduler/service.js'),
      import('../scheduler/run-process.js'),
    ]);
    const { checkIntervalMs, clock } = cronTiming('serve', env, {
      defaultCheckMs: DEFAULT_CHECK_MS,
      maxCheckMs: MAX_CHECK_MS,
    });
    const log = (line: string) => process.stderr.write(`${new Date(clock.now()).toISOString()} scheduler: ${line}\n`);
    const cron = new CronService({
      stores,
      clock,
      checkIntervalMs,
      log,
      launch: processLauncher({ mainScript: fileURLToPath(new URL('./main.js', import.meta.url)), env }),
    });
    cron.start();
    if (onlyHere && cron.serving.length === 0)
      log(`another scheduler already serves ${workspace}; the console runs without one (its runs still show here)`);
    cron.check();
    service = cron;
  }

  return new Promise<number>((resolvePromise) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(`murmur serve: stopping (${signal})\n`);
      server.close();
      const closeAll = (server as unknown as { closeAllConnections?: () => void }).closeAllConnections;
      closeAll?.call(server);
      void (service ? service.stop() : Promise.resolve()).then(() => resolvePromise(0));
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });
}
