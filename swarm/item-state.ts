// What the swarm keeps of each item (saved with the session, so a killed process can resume) and how one
// launch of an item ends; pure helpers the runner shares.
import type { AgentRunResult } from '../orchestrator/agent.js';
import type { Message } from '../orchestrator/types.js';
import type { ItemResult } from './report.js';

/** One item as saved with the session. */
export interface SwarmItemRecord {
  item: string;
  /** The prompt of a new item; absent for a resumed subagent. */
  prompt?: string;
  /** The prompt to continue a resumed subagent with. */
  resumePrompt?: string;
  agentId?: string;
  rounds: number;
  verdict?: 'pass' | 'fail';
  /** The last verifier's reasons for a fail: what its worker is told to fix. */
  reasons?: string;
  /** The verifier of the round in progress, so a round cut short (a rate limit, a crash) goes on with it. */
  verifierId?: string;
  /** Queue swarms: the job of the attempt in flight (a resumed coordinator collects it), and attempts so far. */
  jobId?: string;
  jobAttempts?: number;
  /** Set once the item has ended. */
  result?: ItemResult;
}

export interface SavedSwarm {
  swarmId: string;
  description: string;
  template?: string;
  role: string;
  verify: boolean;
  maxRounds: number;
  isolation: 'none' | 'worktree';
  /** The cap the swarm ran with, so a resume keeps it. */
  maxConcurrency?: number;
  items: SwarmItemRecord[];
  /** Queue swarms: where the items went and what they started from, so `murmur resume` reattaches. */
  queue?: SavedQueue;
}

/** A queue swarm's saved coordinates: never the URL itself (it may hold a password). */
export interface SavedQueue {
  name: string;
  /** The queue's URL when it holds no password; otherwise the resume needs --queue or MURMUR_QUEUE again. */
  url?: string;
  base: string;
  subdir: string;
  model: string;
}

/** How one launch of an item ended; a rate-limited one carries what its agent had said so far. */
export type Attempt = { kind: 'done'; result: ItemResult } | { kind: 'rate_limited'; retryAfterMs?: number; text?: string };

/** A run that ended on a rate limit the provider's retries could not get past: the swarm's own backoff takes over. */
export function rateLimited(run: AgentRunResult): Attempt | undefined {
  const error = run.status === 'failed' ? run.outcome.modelError : undefined;
  if (error?.kind !== 'rate_limit') return undefined;
  return error.retryAfterMs !== undefined ? { kind: 'rate_limited', retryAfterMs: error.retryAfterMs } : { kind: 'rate_limited' };
}

/** Whether a conversation ends with the agent's final answer (an assistant message without tool calls). */
export function endsWithHandoff(messages: readonly Message[]): boolean {
  const last = messages[messages.length - 1];
  return last !== undefined && last.role === 'assistant' && last.toolCalls.length === 0;
}
