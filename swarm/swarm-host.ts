// The swarm's one port onto the run it belongs to (the engine, seen from swarm/): the few facts a swarm reads, its
// items' agents (start one, wait for it), and where its usage, state and events go. host/swarm-host.ts implements
// it over the Engine; nothing else of the engine is visible from swarm/.
import type { MurmurConfig } from '../orchestrator/config.js';
import type { AgentRunResult } from '../orchestrator/agent.js';
import type { EventInput } from '../orchestrator/events.js';
import type { AgentStatus, Message, Usage } from '../orchestrator/types.js';
import type { AgentProfile } from '../roles/profile.js';
import type { SavedSwarm } from './saved-swarm.js';

/** An agent of the run, read live: each field says what the agent is now. The swarm never changes it directly. */
export interface SwarmAgent {
  readonly id: string;
  /** The agent that started it; absent for an item of a swarm without a parent (`murmur swarm`). */
  readonly parentId: string | undefined;
  /** The swarm item it was started for, and its description. */
  readonly item: string | undefined;
  readonly description: string | undefined;
  /** Its own git worktree (an isolated swarm's item), instead of the workspace. */
  readonly workspaceRoot: string | undefined;
  readonly status: AgentStatus | 'idle';
  /** A run of it is in progress. */
  readonly busy: boolean;
  /** Its conversation so far. */
  readonly messages: readonly Message[];
  /** The text of its last assistant message ('' before it has one). */
  readonly lastText: string;
}

/** An item's agent to start (worker or verifier). */
export interface SwarmSpawn {
  profile: AgentProfile;
  description: string;
  swarmId: string;
  item: string;
  /** The agent that called agent_swarm; absent = an agent without a parent (counted by the run's spawn cap). */
  parentId?: string;
  /** Its own worktree (isolation), else the workspace. */
  workspaceRoot?: string;
}

/** What the local launcher needs to run items as agents of this process. */
export interface SwarmAgents {
  /** An agent of this run by id; undefined when there is none. Never throws. */
  agent(id: string): SwarmAgent | undefined;
  /** Creates an item's agent without running it; a refusal (the spawn cap, depth) comes back as its reason. Never throws. */
  spawn(request: SwarmSpawn): SwarmAgent | string;
  /**
   * Runs the agent with `prompt` (undefined: goes on with its conversation) until its answer has settled, its
   * background work included, within `timeoutMs` for the whole answer. A failure, a timeout or an abort through
   * `signal` is the result's status (a rate limit the provider could not get past included); it rejects only on
   * a bug (an agent that does not exist), which the launcher turns into the item's failure.
   */
  run(agentId: string, prompt: string | undefined, signal: AbortSignal, timeoutMs: number): Promise<AgentRunResult>;
  /**
   * The agent was stopped after its final answer, before its status said so (a process killed in between): it
   * counts as completed from now on. Never throws; an unknown id changes nothing.
   */
  acceptHandoff(agentId: string): void;
}

export interface SwarmHost extends SwarmAgents {
  /** The workspace: items work there (or in worktrees of its repository). */
  readonly cwd: string;
  /** Names this run: its session's id, else one made up for it (worktree folders, queue names). */
  readonly runId: string;
  /** murmur.toml as loaded: `[swarm]` settings and the concurrency cap. */
  readonly config: MurmurConfig;
  /** murmur's state folder (`.murmur` under the workspace, or MURMUR_HOME). */
  readonly stateHome: string;
  /** Where this run keeps its files (worktrees, kept patches): its session's folder, else one of its own. */
  readonly runHome: string;
  /** The agents' shells run in the sandbox (isolated items are then checked after their agent). */
  readonly sandboxed: boolean;
  /** The run's spawn cap, and how many agents it has started so far (swarm items count against it). */
  spawnRoom(): { limit: number; spawned: number };
  /**
   * The profile items of type `type` run as: for a parent, what its agent tool would give it (allowed types
   * only); without one, any role or defined agent. An error says what was wrong and what is allowed. Never throws.
   */
  profile(type: string, parentId?: string): AgentProfile | string;
  /** The run's usage so far (a copy). */
  usage(): Usage;
  /** Usage spent elsewhere for this run (a queue worker's) joins the run's. Never throws. */
  addUsage(usage: Usage): void;
  /**
   * The swarm's state, to keep: a swarm without a parent is the session's own work and is saved as its swarm
   * (what `murmur resume` finishes); a swarm under an agent is saved through its agents. Called with the whole
   * state each time, the newest last. Never throws (a failed write is the session's to report).
   */
  persist(state: SavedSwarm): void;
  /** Publishes a swarm event on the run's bus (the dashboards, the events file). Never throws. */
  emit(event: EventInput): void;
  /**
   * A new swarm's id (`s-1`, `s-2`, … in this run). Given the id of a restored swarm, returns it and numbers later
   * swarms past it. Never throws.
   */
  nextSwarmId(restored?: string): string;
}
