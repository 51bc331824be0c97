// The run's sandbox for agents' shells: on when the host asks for it (--sandbox, the library's `sandbox`, a saved
// run's settings) or murmur.toml's `[sandbox] enabled`; then bubblewrap must be installed and able to make the
// namespaces a command runs in, checked once per process before anything of the run is on disk. A sandbox that
// cannot work is a HostInputError naming `sandbox`: the run never falls back to unconfined commands.
import { execFile } from 'node:child_process';
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { MurmurConfig } from '../orchestrator/config.js';
import { stateHome } from '../orchestrator/session.js';
import type { ShellSandbox } from '../tools/adapters.js';
import { bwrapArguments } from '../tools/shell/sandbox.js';
import { HostInputError } from './errors.js';

/** What a front end says about the sandbox; absent fields fall back to murmur.toml's `[sandbox]`. */
export interface SandboxChoice {
  /** --sandbox / `sandbox: true`; absent = `[sandbox] enabled`, else off. */
  enabled?: boolean;
  /** Absent = `[sandbox] network`, else off. */
  network?: boolean;
}

export const SANDBOX_PACKAGE = 'bubblewrap';

/** Whether the run's shells are sandboxed, from the host's choice and the configuration. */
export function sandboxEnabled(config: MurmurConfig, choice: SandboxChoice | undefined): boolean {
  return choice?.enabled ?? config.sandbox?.enabled ?? false;
}

/** The bwrap executable on PATH, or undefined. */
export function findBwrap(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, 'bwrap');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

// One probe per bwrap and network choice per process: a scheduler or `mcp serve` assembles many engines.
const probes = new Map<string, Promise<string | undefined>>();

/** Runs a trivial command in the sandbox's namespaces; resolves to bwrap's complaint, or undefined when it works. */
function probe(bwrap: string, network: boolean): Promise<string | undefined> {
  const key = `${bwrap}\0${network}`;
  let running = probes.get(key);
  if (!running) {
    const args = [...bwrapArguments({ mounts: [], cwd: '/', network }), '/bin/sh', '-c', ':'];
    running = new Promise((resolve) => {
      execFile(bwrap, args, { timeout: 10_000 }, (error, _stdout, stderr) => {
        if (!error) return resolve(undefined);
        const said = String(stderr).trim().split('\n')[0] || error.message;
        resolve(said);
      });
    });
    probes.set(key, running);
  }
  return running;
}

/** As root, the uid owning a workspace that is another user's (a bind-mounted checkout), else undefined. */
function foreignOwner(root: string): number | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const { uid } = statSync(root);
    return uid === 0 ? undefined : uid;
  } catch {
    return undefined;
  }
}

function cannotStart(reason: string): HostInputError {
  return new HostInputError('sandbox', `the shell sandbox is on, but ${reason}`);
}

/** Throws the HostInputError resolveSandbox would when the sandbox cannot work here (a long-lived host checks at start). */
export async function checkSandboxWorks(cwd: string, config: MurmurConfig, env: NodeJS.ProcessEnv): Promise<void> {
  await resolveSandbox(cwd, config, env, { enabled: true });
}

/**
 * The sandbox for a run in `cwd`, or undefined when it is off. Throws a HostInputError naming `sandbox` when it is
 * on and cannot work here (not Linux, bwrap missing, no namespaces).
 */
export async function resolveSandbox(
  cwd: string,
  config: MurmurConfig,
  env: NodeJS.ProcessEnv,
  choice: SandboxChoice | undefined,
): Promise<ShellSandbox | undefined> {
  if (!sandboxEnabled(config, choice)) return undefined;
  const network = choice?.network ?? config.sandbox?.network ?? false;
  if (process.platform !== 'linux')
    throw cannotStart(`it needs Linux namespaces (bubblewrap) and this system is ${process.platform}; turn it off.`);
  const bwrap = findBwrap(env);
  if (!bwrap)
    throw cannotStart(
      `bubblewrap (bwrap) is not on PATH: install the package ${SANDBOX_PACKAGE} (apt-get install ${SANDBOX_PACKAGE}, dnf install ${SANDBOX_PACKAGE}), or turn the sandbox off.`,
    );
  const complaint = await probe(bwrap, network);
  if (complaint !== undefined)
    throw cannotStart(
      `bubblewrap cannot create the namespaces it needs here — a user namespace with no capabilities, and PID, IPC, ` +
        `UTS${network ? '' : ' and network'} namespaces (${bwrap} said: ${complaint}). In a container this is ` +
        "usually the runtime's default seccomp profile (Docker: --security-opt seccomp=unconfined, or --privileged); " +
        'on a host, unprivileged user namespaces may be off (sysctl kernel.unprivileged_userns_clone=1, or ' +
        'kernel.apparmor_restrict_unprivileged_userns=0). Or turn the sandbox off.',
    );
  const root = realpathSync(cwd);
  const foreign = foreignOwner(root);
  if (foreign !== undefined)
    throw cannotStart(
      `murmur runs as root and ${root} belongs to uid ${foreign}: sandboxed commands run as root with no capabilities, ` +
        "which cannot write another user's files, so every write in the workspace would fail. Run murmur as that " +
        'user (runuser -u USER -- murmur …, or docker run --user), give the workspace to root (chown), or turn the sandbox off.',
    );
  const home = stateHome(root, env);
  const workspaceState = path.join(root, '.murmur');
  const stateDirs = [...new Set([workspaceState, home])];
  const readable = [
    path.join(workspaceState, 'skills'),
    ...(env.HOME ? [path.join(env.HOME, '.murmur', 'skills')] : []),
  ];
  return { bwrap, network, runRoot: root, stateDirs, readable };
}
