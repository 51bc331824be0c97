// What the reports, the events and the saved state say of an agent: how its run stands or ended, and its summary.
import type { Usage } from './usage.js';

/** `waiting`: it stopped at a call that needs a person (an interruption); a resume given the answer goes on there. */
export type AgentStatus =
  'running' | 'completed' | 'failed' | 'timeout' | 'aborted' | 'budget' | 'waiting' | 'interrupted';
export type EndStatus = Exclude<AgentStatus, 'running' | 'interrupted'>;

/** What the reports and the saved state say of one agent. */
export interface AgentSummary {
  id: string;
  parentId?: string;
  role: string;
  description?: string;
  item?: string;
  /** A swarm item's agent that works on a retry: the item's attempt (absent: 1). */
  attempt?: number;
  status: AgentStatus | 'idle';
  reason?: string;
  usage: Usage;
  turns: number;
  toolCalls: number;
}
