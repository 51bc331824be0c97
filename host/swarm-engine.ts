// The swarm's port (swarm/swarm-engine.ts) over an Engine: the one place where swarm work meets the engine's agent
// tree, background tasks, bus, usage and session. Everything here uses the engine's public members only.
import { join } from 'node:path';
import type { Engine } from '../orchestrator/engine.js';
import type { AgentRecord } from '../orchestrator/agent-tree.js';
import { stateHome } from '../orchestrator/session.js';
import { QueuedItems, queuedFileName } from '../orchestrator/queued-items.js';
import { SettledItemReader } from '../orchestrator/settled-reader.js';
import { runUntilSettled } from '../orchestrator/subagents.js';
import { allowedSubagentTypes, subagentProfileFor } from '../roles/subagent-policy.js';
import { addUsage } from '../orchestrator/types.js';
import type { QueuedItemsSource, SwarmAgent, SwarmEngine } from '../swarm/swarm-engine.js';
import type { SwarmItemRecord } from '../swarm/saved-swarm.js';

export interface SwarmEngineOptions {
  /**
   * The swarm is the session's own work (a swarm without a parent: `murmur swarm`, run_swarm, the library's
   * swarm()): its state is saved as the session's `swarm`, which `murmur resume` finishes. Otherwise (agent_swarm
   * under an agent, a queue worker's item) persisting saves the session's agents only. Default false.
   */
  saveAsSession?: boolean;
}

/** An agent record seen from the swarm: live and read-only. */
function agentView(record: AgentRecord): SwarmAgent {
  return {
    id: record.id,
    parentId: record.parentId,
    item: record.item,
    description: record.description,
    workspaceRoot: record.workspaceRoot,
    get status() {
      return record.agent.status;
    },
    get busy() {
      return record.agent.busy;
    },
    get messages() {
      return record.agent.state.messages;
    },
    get lastText() {
      return record.agent.state.lastText;
    },
  };
}

export function swarmEngineFor(engine: Engine, options: SwarmEngineOptions = {}): SwarmEngine {
  const { agentTree } = engine;
  const home = engine.session?.home ?? stateHome(engine.cwd, engine.options.env ?? process.env);
  const recordOf = (agentId: string): AgentRecord => {
    const record = agentTree.get(agentId);
    if (!record) throw new Error(`no agent "${agentId}" in this run`);
    return record;
  };
  return {
    cwd: engine.cwd,
    runId: engine.runId,
    config: engine.config,
    stateHome: home,
    runHome: engine.session?.dir ?? join(home, 'unsaved', engine.runId),
    sandboxed: engine.options.sandbox !== undefined,
    spawnRoom: () => ({ limit: agentTree.limits.maxAgents, spawned: agentTree.spawnedCount }),
    profile(type, parentId) {
      if (parentId === undefined) return engine.profile(type);
      const parent = agentTree.get(parentId);
      if (!parent) return `no agent "${parentId}" to run a swarm under`;
      // What the agent tool would give this parent: names compare by what they resolve to (coder = worker).
      const allowed = subagentProfileFor(parent.profile, type, engine.definitions);
      if (allowed) return allowed;
      return `unknown or disallowed subagent type "${type}"; allowed types: ${allowedSubagentTypes(parent.profile, engine.definitions).join(', ')}`;
    },
    agent(id) {
      const record = agentTree.get(id);
      return record ? agentView(record) : undefined;
    },
    spawn(request) {
      const spawned = agentTree.spawn({
        profile: request.profile,
        description: request.description,
        swarmId: request.swarmId,
        item: request.item,
        ...(request.parentId !== undefined ? { parentId: request.parentId } : { detached: true }),
        ...(request.workspaceRoot !== undefined ? { workspaceRoot: request.workspaceRoot } : {}),
        ...(request.attempt !== undefined ? { attempt: request.attempt } : {}),
      });
      return spawned.ok ? agentView(spawned.record) : spawned.error;
    },
    run: async (agentId, prompt, signal, timeoutMs) =>
      runUntilSettled(agentTree, engine.tasks, recordOf(agentId), prompt, signal, timeoutMs),
    acceptHandoff(agentId) {
      agentTree.get(agentId)?.agent.acceptHandoff();
    },
    // A session's own swarm (`murmur swarm`, the library's swarm()) lets its settled agents leave memory: nothing
    // runs them again in this process. Under an agent (agent_swarm) the parent may still resume its subagents.
    release: (agentId) => {
      if (options.saveAsSession) agentTree.settle(agentId);
    },
    writeRoom: () => engine.recordsRoom(),
    usage: () => ({ ...agentTree.runUsage }),
    addUsage: (usage) => addUsage(agentTree.runUsage, usage),
    persist(state) {
      // The session's own swarm starts the run with its first save (a refused resume never gets here).
      if (options.saveAsSession) engine.saveSwarmState(state);
      else engine.saveState();
    },
    ...(options.saveAsSession && engine.session
      ? {
          settledItems: (swarmId: string) => new SettledItemReader(engine.session!.dir, swarmId),
          queueItems: (swarmId: string, records: Iterable<SwarmItemRecord>, count: number) =>
            queueItems(engine, swarmId, records, count),
        }
      : {}),
    journal(swarmId, index, record) {
      if (options.saveAsSession) engine.journalSwarmItem(swarmId, index, record);
    },
    emit: (event) => engine.bus.emit(event),
    nextSwarmId: (restored) => engine.nextSwarmId(restored),
  };
}

/** The session's file of a swarm's items as queued; undefined (with a warning) when it cannot be written. */
function queueItems(
  engine: Engine,
  swarmId: string,
  records: Iterable<SwarmItemRecord>,
  count: number,
): QueuedItemsSource | undefined {
  const file = queuedFileName(swarmId);
  if (!file || !engine.session) return undefined;
  try {
    return QueuedItems.write(engine.session.dir, file, records, count);
  } catch (error) {
    const message = `the swarm's items stay listed in state.json: ${join(engine.session.dir, file)} could not be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    engine.bus.emit({ type: 'log', level: 'warn', message });
    return undefined;
  }
}
