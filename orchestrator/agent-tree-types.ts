// The agent tree's vocabulary: its limits, an agent's record, what it hands the configurer, and how to spawn.
import type { AgentProfile } from '../roles/profile.js';
import type { Agent } from './agent.js';
import type { ModelRequest, ModelResult } from './models/provider.js';
import type { Message, Usage } from './types.js';

export interface AgentTreeLimits {
  /** Levels of subagents allowed below main (main is depth 0). */
  maxDepth: number;
  /** Agents spawned in one run, main excluded. */
  maxAgents: number;
  /** Model requests in flight at once across every agent of the process. */
  maxModelRequests: number;
  agentTimeoutMs: number;
  agentBudgetTokens?: number;
  runBudgetTokens?: number;
}

export const DEFAULT_LIMITS: AgentTreeLimits = {
  maxDepth: 2,
  maxAgents: 200,
  maxModelRequests: 16,
  agentTimeoutMs: 30 * 60_000,
};

export interface AgentRecord {
  id: string;
  parentId?: string;
  profile: AgentProfile;
  depth: number;
  description?: string;
  swarmId?: string;
  item?: string;
  /** A swarm item's agent: the item's attempt it works on (absent: 1; saved with the session). */
  attempt?: number;
  agent: Agent;
  /** Own usage plus every descendant's, kept live. */
  totalUsage: Usage;
  /** Set when the agent runs as a background task. */
  taskId?: string;
  /** Its own workspace root (a git worktree of the swarm), instead of the run's. */
  workspaceRoot?: string;
  /** Set while a caller drives its runs (a subagent waiting for its own background work): messages do not wake it. */
  held?: boolean;
  /** The parent's agent call that started it: a subagent left waiting for a person goes on when that call runs again. */
  callId?: string;
}

/** What the agent tree hands the configurer for each agent it spawns: its model, budget and usage hooks. */
export interface AgentTreeHooks {
  callModel: (request: ModelRequest, signal: AbortSignal) => Promise<ModelResult>;
  /** The base URL of the agent's model, once it is known. */
  endpoint: () => string | undefined;
  budgetSpent: () => boolean;
  onUsage: (usage: Usage) => void;
  /**
   * Called with every message an agent's conversation gains. Transcripts are written by a bus subscriber
   * (transcript-writer.ts), not here: this stays for the runtime's own watchers and does nothing itself.
   */
  onMessage: (message: Message) => void;
}

export interface SpawnSpec {
  profile: AgentProfile;
  parentId?: string;
  description?: string;
  swarmId?: string;
  item?: string;
  /** A swarm item's agent: the item's attempt (absent: 1). */
  attempt?: number;
  /** A conversation to continue (resume from disk). */
  messages?: Message[];
  /** Keep this id (resume from disk). */
  id?: string;
  /** A subagent with no parent agent (the items of `murmur swarm`): depth 1, counted by the spawn cap. */
  detached?: boolean;
  workspaceRoot?: string;
  /** The parent's agent call that starts it. */
  callId?: string;
}

export type SpawnResult = { ok: true; record: AgentRecord } | { ok: false; error: string };
