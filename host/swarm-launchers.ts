// Where a swarm's items run — the host's choice, not the swarm's: as agents of this process (the local launcher),
// or on `murmur worker`s through a Redis queue (the queue launcher, loaded only when a queue is given).
import { realpathSync } from 'node:fs';
import { relative } from 'node:path';
import type { Engine } from '../orchestrator/engine.js';
import { builtinProfile } from '../roles/profile.js';
import { git, repoRoot } from '../swarm/git.js';
import type { SwarmPlan } from '../swarm/launch.js';
import type { ItemLauncher } from '../swarm/item-launcher.js';
import { LocalLauncher } from '../swarm/local-launcher.js';
import { queueName } from '../swarm/queue/job.js';
import { holdsSecret, type QueueTarget } from '../swarm/queue/url.js';
import type { SavedQueue } from '../swarm/saved-swarm.js';
import type { SwarmEngine } from '../swarm/swarm-engine.js';
import { excludeStateFolder } from '../swarm/state-exclude.js';
import { itemTraceparent } from './tracing/links.js';

/** The local launcher: the plan's items run as this engine's subagents. */
async function localLauncher(host: SwarmEngine, plan: SwarmPlan): Promise<ItemLauncher> {
  const warn = (message: string) => host.emit({ type: 'log', level: 'warn', message });
  if (plan.verify && !host.sandboxed)
    host.emit({
      type: 'log',
      level: 'warn',
      message: unconfinedVerifiers(plan.isolation !== undefined),
      containment: true,
    });
  return new LocalLauncher(
    {
      swarmId: plan.swarmId,
      profile: plan.profile,
      verifierProfile: builtinProfile('verifier'),
      ...(plan.parentId !== undefined ? { parentId: plan.parentId } : {}),
      verify: plan.verify,
      maxRounds: plan.maxRounds,
      itemTimeoutMs: plan.settings.itemTimeoutMs,
      ...(plan.isolation ? { isolation: plan.isolation } : {}),
      sandboxed: host.sandboxed,
    },
    { agents: host, cwd: host.cwd, inRepo: (await repoRoot(host.cwd)) !== undefined, warn },
  );
}

/** Said once per swarm with verifiers and no sandbox: what holds of "a verifier never edits" and what does not. */
function unconfinedVerifiers(isolated: boolean): string {
  return isolated
    ? "verifiers' shells are not confined (no --sandbox): what a verifier changes in its item's worktree is put back after its verdict, but its commands can still write elsewhere"
    : "verifiers' shells are not confined (no --sandbox, no --isolation worktree): a verifier's commands could change the workspace while it checks; run with --sandbox (or --isolation worktree) to keep its work unchanged";
}

/**
 * The queue launcher: items go to `murmur worker`s as jobs that start at the workspace's commit. `saved` is the
 * queue of a resumed swarm (its name and base commit stay).
 */
async function queueLauncher(
  engine: Engine,
  host: SwarmEngine,
  plan: SwarmPlan,
  target: QueueTarget,
  saved?: SavedQueue,
): Promise<{ launcher: ItemLauncher; queue: SavedQueue } | string> {
  const root = await repoRoot(host.cwd);
  if (!root)
    return `--queue needs a git repository (workers start each item at its commit), and ${host.cwd} is not inside one`;
  let queue = saved;
  if (!queue) {
    const head = await git(root, ['rev-parse', '--verify', 'HEAD']);
    if (!head.ok)
      return `--queue needs a commit for the workers to start from, and the repository at ${root} has none yet`;
    const subdir = relative(realpathSync(root), realpathSync(host.cwd));
    queue = {
      name: queueName(host.runId, plan.swarmId),
      base: head.stdout.trim(),
      subdir: subdir.startsWith('..') ? '' : subdir,
      model: engine.options.provider.name,
    };
    // Saved only without a secret (in the authority or the query): a resume then needs --queue or MURMUR_QUEUE again.
    if (!holdsSecret(target.url)) queue.url = target.url;
  }
  // The diffs apply to this tree, as worktree isolation's merges do: murmur's own folder stays out of git status.
  excludeStateFolder(root, host.stateHome);
  const { QueueLauncher } = await import('../swarm/queue/coordinator.js');
  const permissionMode = engine.options.settings?.permissionMode ?? engine.config.permissionMode;
  const effort = engine.config.effort;
  const c = plan.settings.controller;
  const launcher = await QueueLauncher.open(
    {
      swarmId: plan.swarmId,
      profile: plan.profile,
      ...(plan.template !== undefined ? { template: plan.template } : {}),
      verify: plan.verify,
      maxRounds: plan.maxRounds,
      itemTimeoutMs: plan.settings.itemTimeoutMs,
      ...(permissionMode !== undefined ? { permissionMode } : {}),
      ...(effort !== undefined ? { effort } : {}),
      ...(engine.options.sandbox ? { sandbox: { network: engine.options.sandbox.network } } : {}),
      maxModelRequests: engine.agentTree.limits.maxModelRequests,
      queue,
      initialCapacity: c.maxConcurrency !== undefined ? Math.min(c.initialBurst, c.maxConcurrency) : c.initialBurst,
    },
    {
      open: target.open,
      root,
      patchesHome: host.runHome,
      addUsage: (usage) => host.addUsage(usage),
      log: (message) => host.emit({ type: 'log', level: 'warn', message }),
      traceContext: (index) => itemTraceparent(engine.bus, plan.swarmId, index),
    },
  );
  return { launcher, queue };
}

/** The launcher a plan runs on: the queue when one is given (with its coordinates, saved with the swarm), else this process. */
export async function launcherFor(
  engine: Engine,
  host: SwarmEngine,
  plan: SwarmPlan,
  target: QueueTarget | undefined,
  saved?: SavedQueue,
): Promise<{ launcher: ItemLauncher; queue?: SavedQueue } | string> {
  if (target) return queueLauncher(engine, host, plan, target, saved);
  return { launcher: await localLauncher(host, plan) };
}
