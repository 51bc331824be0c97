// The agent_swarm tool's seam: a SwarmAdapter for one parent agent, running its swarms on the host's engine
// (always in this process: an agent's swarm items are its subagents).
import type { Engine } from '../orchestrator/engine.js';
import type { AgentRecord } from '../orchestrator/agent-tree.js';
import { anyEnded, renderReport } from '../swarm/report.js';
import { maxSwarmItems } from '../swarm/settings.js';
import type { SwarmAdapter } from '../tools/adapters.js';

export function swarmAdapterFor(
  engine: Engine,
  parent: AgentRecord,
  options: { env: NodeJS.ProcessEnv; maxConcurrency?: number },
): SwarmAdapter {
  return {
    async run(request, signal, onProgress) {
      const limit = maxSwarmItems(options.env, engine.config);
      if (limit.warning) engine.bus.emit({ type: 'log', level: 'warn', agentId: parent.id, message: limit.warning });
      // Loaded with the first swarm an agent starts: most runs start none.
      const { prepareSwarm } = await import('./swarm.js');
      const prepared = await prepareSwarm(
        engine,
        parent,
        {
          ...request,
          maxItems: limit.limit,
          ...(options.maxConcurrency !== undefined ? { maxConcurrency: options.maxConcurrency } : {}),
        },
        options.env,
      );
      if (!prepared.ok) return prepared;
      prepared.run.onProgress = onProgress;
      const results = await prepared.run.run(signal);
      return { ok: true, report: renderReport(results), isError: !anyEnded(results, 'completed') };
    },
  };
}
