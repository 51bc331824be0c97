// The swarm's launcher port: all the runner needs to get an item done. The local launcher runs items as agents of
// this process (local-launcher.ts); the queue launcher hands them to `murmur worker`s over Redis (queue/). The
// runner decides when (the controller) and owns the items' states; the launcher decides how, and reports.
import type { AgentRunResult } from '../orchestrator/agent.js';
import type { Message } from '../orchestrator/types.js';
import type { AttemptProgress, LaunchableItem } from './item-state.js';
import type { ItemResult } from './report.js';

/**
 * How one attempt of an item ended: a result, or a rate limit that puts the item back in the queue (with what its
 * agent had said so far). `jobId`: a queue job left out when the swarm stopped, kept so a resume collects it.
 */
export type Attempt =
  { kind: 'done'; result: ItemResult; jobId?: string } | { kind: 'rate_limited'; retryAfterMs?: number; text?: string };

export interface ItemLauncher {
  /**
   * Runs one attempt of item `index`, which is in `item`'s state now. What happens meanwhile (its agent started,
   * a verify round began…) goes to `report`, synchronously, as it happens; the attempt's end is the promise's.
   * `signal` aborts when the swarm stops: the attempt then ends as soon as it can, `aborted`. Should not throw
   * or reject; if it does, the runner fails the item with the error as its reason.
   */
  run(
    index: number,
    item: LaunchableItem,
    report: (report: AttemptProgress) => void,
    signal: AbortSignal,
  ): Promise<Attempt>;
  /** An item that ended without completing keeps its work (a branch, a worktree), named in its result. May reject: the result stands. */
  keep(index: number, result: ItemResult): Promise<ItemResult>;
  /**
   * The last step of an attempt that ended, run in item order: an item's commit waits until every earlier item
   * has ended (its own attempt holds no capacity meanwhile). The queue launcher applies returned diffs here. May
   * reject: the item then fails with the error.
   */
  commit?(index: number, result: ItemResult): Promise<ItemResult>;
  /**
   * Job `jobId` is no longer named by its item's saved state (its end or its rate limit is in the journal already):
   * nothing a resume reads needs it, so the launcher may drop it (a queue removes it from Redis). Must not throw.
   */
  forget?(jobId: string): void;
  /** How many attempts the swarm lets run at once now (it ramps up, and drops on rate limits). Must not throw. */
  capacity?(capacity: number): void;
  /** The swarm ended with these results: release what the launcher holds (connections, a finished queue). */
  finish?(): Promise<void>;
  /** The item is settled with this result: free what its attempt still holds (its agent's runtime). Must not throw. */
  settled?(index: number, result: ItemResult): void;
}

/** A run that ended on a rate limit the provider's retries could not get past: the swarm's own backoff takes over. */
export function rateLimited(run: AgentRunResult): Attempt | undefined {
  const error = run.status === 'failed' ? run.outcome.modelError : undefined;
  if (error?.kind !== 'rate_limit') return undefined;
  return error.retryAfterMs !== undefined
    ? { kind: 'rate_limited', retryAfterMs: error.retryAfterMs }
    : { kind: 'rate_limited' };
}

/** Whether a conversation ends with the agent's final answer (an assistant message without tool calls). */
export function endsWithHandoff(messages: readonly Message[]): boolean {
  const last = messages[messages.length - 1];
  return last !== undefined && last.role === 'assistant' && last.toolCalls.length === 0;
}
