// What a finished job means to the coordinator: the worker's returned value (or the job's failure) read into the
// attempt the runner gets, with the diff that waits for the commit in item order. Pure: no Redis, no git.
import type { LaunchableItem } from '../item-state.js';
import type { Attempt } from '../item-launcher.js';
import type { ItemResult } from '../report.js';
import { JOB_FORMAT, type ItemOutcomeData } from './job.js';

/** An item's result without a worker's word (failed to queue, stopped, refused). */
export function plainResult(
  index: number,
  s: LaunchableItem,
  outcome: ItemResult['outcome'],
  reason?: string,
): ItemResult {
  const result: ItemResult = { index, item: s.item, outcome, rounds: s.rounds, text: '' };
  if (reason !== undefined) result.reason = reason;
  return result;
}

/** A job that failed on the queue (the worker threw, or it stalled too often): the item fails with the reason. */
export function failedAttempt(index: number, s: LaunchableItem, reason: string | undefined): Attempt {
  return { kind: 'done', result: plainResult(index, s, 'failed', `on the queue: ${reason ?? 'the job failed'}`) };
}

/**
 * A completed job's value as the item's attempt; `data` is the value when it carries a diff (for the commit) or
 * usage (for the run's), absent when the value could not be read.
 */
export function completedAttempt(
  index: number,
  s: LaunchableItem,
  value: unknown,
): { attempt: Attempt; data?: ItemOutcomeData } {
  const data = value as ItemOutcomeData | undefined;
  if (!data || typeof data !== 'object' || data.format !== JOB_FORMAT) {
    const reason = `the worker sent back a result this murmur cannot read (format ${JSON.stringify(data?.format)})`;
    return { attempt: { kind: 'done', result: plainResult(index, s, 'failed', reason) } };
  }
  if (data.kind === 'rate_limited') {
    // The next launch is a new job (from the base commit: the limited job's work is not sent back); the
    // controller decides when.
    const attempt: Attempt = {
      kind: 'rate_limited',
      ...(data.retryAfterMs !== undefined ? { retryAfterMs: data.retryAfterMs } : {}),
      text: data.text,
    };
    return { attempt, data };
  }
  const result: ItemResult = {
    index,
    item: s.item,
    outcome: data.outcome,
    rounds: data.rounds,
    text: data.text,
    host: data.host,
    model: data.model,
  };
  if (data.verdict) result.verdict = data.verdict;
  if (data.reason !== undefined) result.reason = data.reason;
  if (data.output !== undefined) result.output = data.output;
  // What the worker's agents used for this attempt: the row's usage (its agents are not in this run's tree).
  if (data.usage) result.usage = { ...data.usage };
  return { attempt: { kind: 'done', result }, data };
}
