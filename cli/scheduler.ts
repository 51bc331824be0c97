// `murmur scheduler [--cwd DIR]`: the service that runs scheduled tasks, in the foreground. Without --cwd it
// serves every workspace in ~/.murmur/workspaces.json (new ones join as they appear); with --cwd only that one.
// One line per fire and per finished run on stdout. SIGINT/SIGTERM stop it cleanly: running sessions are
// saved and can be resumed. Test knobs (documented in the README): MURMUR_CRON_CHECK_MS (the check interval,
// at most 30 s) and MURMUR_CRON_CLOCK_OFFSET_MS (shifts the service's clock).
import { fileURLToPath } from 'node:url';
import { parseArgs, stringFlag, UsageError } from './args.js';
import { workspaceFrom } from './setup.js';
import { CronService, DEFAULT_CHECK_MS, MAX_CHECK_MS } from '../scheduler/service.js';
import { CronStore, allStores } from '../scheduler/store.js';
import { processLauncher } from '../scheduler/run-process.js';
import { serviceHolder } from '../host/lock.js';
import { cronTiming } from './cron-clock.js';
import { SCHEDULER_FLAGS } from './flags.js';

export async function schedulerCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs('scheduler', argv, SCHEDULER_FLAGS);
  if (stringFlag(args, 'exec-run') !== undefined) return (await import('./scheduled-run.js')).scheduledRun(args);
  if (args.positionals.length > 0)
    throw new UsageError(
      `murmur scheduler: unexpected ${JSON.stringify(args.positionals.join(' '))}. Usage: murmur scheduler [--cwd DIR].`,
    );
  const env = process.env;
  const { checkIntervalMs, clock } = cronTiming('scheduler', env, {
    defaultCheckMs: DEFAULT_CHECK_MS,
    maxCheckMs: MAX_CHECK_MS,
  });
  const only =
    stringFlag(args, 'cwd') !== undefined
      ? CronStore.forWorkspace(workspaceFrom('scheduler', args), { env })
      : undefined;
  const stores = only ? () => [only] : () => allStores(env);
  const log = (line: string) => process.stdout.write(`${new Date(clock.now()).toISOString()} ${line}\n`);
  const service = new CronService({
    stores,
    clock,
    checkIntervalMs,
    log,
    launch: processLauncher({ mainScript: fileURLToPath(new URL('./main.js', import.meta.url)), env }),
  });
  if (only) {
    const holder = serviceHolder(only.serviceLockFile);
    if (holder && holder.pid !== process.pid) {
      process.stderr.write(
        `murmur scheduler: another scheduler (pid ${holder.pid}, started ${new Date(holder.startedAt).toISOString()}) already serves ${only.workspace}.\n`,
      );
      return 1;
    }
  }
  service.start();
  if (only && service.serving.length === 0) {
    const holder = serviceHolder(only.serviceLockFile);
    process.stderr.write(
      `murmur scheduler: another scheduler (pid ${holder?.pid ?? '?'}) already serves ${only.workspace}.\n`,
    );
    await service.stop();
    return 1;
  }
  if (service.serving.length === 0) {
    // Workspaces may exist and be served by other schedulers: say so, rather than that there are none.
    const heldElsewhere = stores().flatMap((store) => {
      const holder = serviceHolder(store.serviceLockFile);
      return holder && holder.pid !== process.pid ? [`${store.workspace} (pid ${holder.pid})`] : [];
    });
    if (heldElsewhere.length > 0)
      log(
        `every workspace with scheduled tasks is served by another scheduler: ${heldElsewhere.join(', ')}; waiting to take over any that is left`,
      );
    else log('no workspace with scheduled tasks yet (~/.murmur/workspaces.json); waiting for some');
  }
  log(`checking every ${Math.round(checkIntervalMs / 100) / 10} s; stop with Ctrl-C`);
  service.check();
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        // A second signal: runs that have not stopped yet are killed now.
        log(`${signal} again: killing the runs that have not stopped`);
        service.kill();
        return;
      }
      stopping = true;
      const running = service.runningCount;
      log(
        `stopping (${signal})${running > 0 ? `: ${running} running run${running === 1 ? ' is' : 's are'} stopped and saved, to be continued with murmur resume (again to kill them now)` : ''}`,
      );
      void service.stop().then(() => resolve(service.killedRuns ? 130 : 0));
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });
}
