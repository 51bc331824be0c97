// Swarms on a host's engine: prepared from a request or a saved session (the host picks where the items run: this
// process, or a queue's workers), then run with their state saved with the session (so a resume finishes only the
// items that had not completed), background work settled, and the swarm's status from its items — saved as the
// session's status. The command line, the MCP server, the library and the agent_swarm tool all start swarms here.
import type { SwarmStatus } from '../protocol/run-status.js';
import type { Engine } from '../orchestrator/engine.js';
import type { AgentRecord } from '../orchestrator/agent-tree.js';
import { planRestore, planSwarm, swarmRun, type LaunchRequest, type Planned, type Prepared } from '../swarm/launch.js';
import type { QueueTarget } from '../swarm/queue/url.js';
import type { ItemResult, ItemResults } from '../swarm/report.js';
import type { SwarmRun } from '../swarm/runner.js';
import type { SavedQueue, SavedSwarm } from '../swarm/saved-swarm.js';
import type { SwarmEngine } from '../swarm/swarm-engine.js';
import { launcherFor } from './swarm-launchers.js';
import { swarmEngineFor } from './swarm-engine.js';
import { withInput, withInputs } from './output.js';

export type { Prepared, QueueTarget };

/** How a swarm ended (`waiting`: items wait for a person, the run's interruptions; every other item ended). */
export type { SwarmStatus };

/** A swarm request: what the swarm checks, and where its items run (a queue's workers, else this process). */
export interface SwarmLaunch extends LaunchRequest {
  queue?: QueueTarget;
}

async function runOn(
  engine: Engine,
  host: SwarmEngine,
  planned: Planned,
  target: QueueTarget | undefined,
  saved?: SavedQueue,
): Promise<Prepared> {
  if (!planned.ok) return planned;
  const launched = await launcherFor(engine, host, planned.plan, target, saved);
  if (typeof launched === 'string') return { ok: false, error: launched };
  return {
    ok: true,
    run: swarmRun(host, planned.plan, launched.launcher, launched.queue ? { queue: launched.queue } : undefined),
  };
}

/**
 * Checks a request and builds its run; nothing has started when this returns. A swarm under `parent` (agent_swarm)
 * is saved through its agents; one without a parent is the session's own, saved as its swarm.
 */
export async function prepareSwarm(
  engine: Engine,
  parent: AgentRecord | undefined,
  request: SwarmLaunch,
  env: NodeJS.ProcessEnv,
): Promise<Prepared> {
  const host = swarmEngineFor(engine, { saveAsSession: parent === undefined });
  const { queue, ...checked } = request;
  return runOn(engine, host, await planSwarm(host, parent?.id, checked, env, queue !== undefined), queue);
}

/** Rebuilds the run of a saved `murmur swarm` session: finished items keep their results. */
export async function restoreSwarm(
  engine: Engine,
  saved: SavedSwarm,
  maxConcurrencyFlag: number | undefined,
  env: NodeJS.ProcessEnv,
  queue?: QueueTarget,
  /** A retry: items that ended stay as they ended (see restoredItem). */
  keepEnded = false,
): Promise<Prepared> {
  if (saved.queue && !queue) {
    return {
      ok: false,
      error: `swarm ${saved.swarmId} ran on a Redis queue whose URL holds a password (so it was not saved); give it again with --queue or MURMUR_QUEUE`,
    };
  }
  const host = swarmEngineFor(engine, { saveAsSession: true });
  return runOn(
    engine,
    host,
    await planRestore(host, saved, maxConcurrencyFlag, env, engine.options.settings?.output, keepEnded),
    saved.queue ? queue : undefined,
    saved.queue,
  );
}

/** Runs a prepared swarm; `onItem` hears each item's result as it ends (and those that ended before a resume). */
export async function runSwarmOn(
  engine: Engine,
  run: SwarmRun,
  onItem?: (result: ItemResult) => void,
): Promise<{ results: ItemResults; status: SwarmStatus; reason?: string }> {
  let started = false;
  const inputs = run.state().inputs;
  if (onItem) run.onItemDone = (result) => onItem(withInput(result, inputs));
  try {
    // The first save starts the session's run (swarm-engine.ts persist).
    run.save();
    started = true;
    let results = await run.run(engine.signal);
    await engine.settle();
    // The records, once written: an item whose transcript is incomplete failed, and so did a swarm whose records
    // are incomplete (its reason names the file), even when every item completed.
    const lost = await engine.recordsLost();
    if (lost !== undefined) {
      run.markRecordLosses((agentId) => engine.transcriptLoss(agentId));
      results = run.results();
    }
    // Counted as the items moved: a big swarm's items are not read back for it.
    const tally = run.tally();
    const status: SwarmStatus =
      tally.allCompleted && lost === undefined
        ? 'completed'
        : engine.signal.aborted
          ? 'aborted'
          : lost === undefined && (tally.counts.waiting ?? 0) > 0
            ? 'waiting'
            : 'failed';
    engine.markEnded(status);
    return { results: withInputs(results, inputs), status, ...(lost !== undefined ? { reason: lost } : {}) };
  } finally {
    // A launcher that never ran still holds what it opened (a queue's Redis connections would keep the process up).
    if (!started) await run.release().catch(() => undefined);
    engine.saveState();
  }
}
