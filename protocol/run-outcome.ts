// What a run returns to its caller (the CLI, the library, an MCP request): how it ended, its agents and usage.
import type { AgentSummary } from './agents.js';
import type { RunStatus } from './run-status.js';
import type { Interruption } from './interruptions.js';
import type { Usage } from './usage.js';

export interface RunOutcome {
  status: RunStatus;
  result: string;
  reason?: string;
  usage: Usage;
  agents: AgentSummary[];
  sessionId?: string;
  /** A typed output's final answer (set by the host once the run completed). */
  output?: unknown;
  /** What waits for a person (status `waiting`, or kept by an abort); absent when nothing does. */
  interruptions?: Interruption[];
  /** When the run began (its first segment), and how long its segments ran in all (ms), across resumes. */
  startedAt?: number;
  durationMs?: number;
}
