// Running a prepared swarm on a host's engine: its state saved with the session (so a resume finishes only the
// items that had not completed), background work settled, and the swarm's status from its items — saved as the
// session's status. The command line, the MCP server and the library all run swarms through here.
import type { Engine } from '../orchestrator/engine.js';
import { allCompleted } from '../swarm/launch.js';
import type { ItemResult } from '../swarm/report.js';
import type { SwarmRun } from '../swarm/runner.js';

export type SwarmStatus = 'completed' | 'failed' | 'aborted';

export async function runSwarmOn(engine: Engine, run: SwarmRun): Promise<{ results: ItemResult[]; status: SwarmStatus }> {
  let started = false;
  try {
    engine.sessionExtra = () => run.state();
    engine.saveState();
    started = true;
    const results = await run.run(engine.signal);
    await engine.settle();
    const status: SwarmStatus = allCompleted(results) ? 'completed' : engine.signal.aborted ? 'aborted' : 'failed';
    engine.markEnded(status);
    return { results, status };
  } finally {
    // A launcher that never ran still holds what it opened (a queue's Redis connections would keep the process up).
    if (!started) await run.launcher.finish?.(run.results()).catch(() => undefined);
    engine.saveState();
  }
}
