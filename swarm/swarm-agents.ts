// The agents' half of the swarm's port onto its run (SwarmEngine, swarm-engine.ts): an item's agent as the swarm reads
// it, the agent to start, and how to start, run and settle one.
import type { AgentRunResult } from '../orchestrator/agent.js';
import type { AgentStatus, Message } from '../orchestrator/types.js';
import type { AgentProfile } from '../roles/profile.js';

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
  /** The item's attempt (absent: 1): a retried item's fresh agent works on the next. */
  attempt?: number;
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
  /**
   * The agent's work for its item is over (the item settled, or a verifier's verdict is in): in a session's own
   * swarm it leaves memory, keeping its row for reports and the saved state (under an agent it stays, for the
   * parent to resume). Never throws; an unknown or running agent changes nothing.
   */
  release?(agentId: string): void;
}
