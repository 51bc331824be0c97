// Retries for rate limits, server errors, dropped connections and malformed answers: exponential backoff with
// jitter, honouring Retry-After, bounded attempts. Each retry is reported so it can become a model.retry event.
import { type Clock, sleep, systemClock } from '../clock.js';
import { describedAs, type ModelError, type ModelProvider, type ModelRequest, type ModelResult } from './provider.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Retries of a call for `malformed` answers, whatever maxAttempts allows. */
export const MALFORMED_RETRIES = 1;

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 30_000 };

export interface RetryNotice {
  agentId: string;
  attempt: number;
  delayMs: number;
  error: ModelError;
}

export function retryDelay(policy: RetryPolicy, attempt: number, error: ModelError, random: () => number): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, policy.maxDelayMs);
  const exponential = policy.baseDelayMs * 2 ** (attempt - 1);
  // Full jitter in [50%, 100%] of the exponential step keeps many agents from retrying in lockstep.
  return Math.min(policy.maxDelayMs, Math.round(exponential * (0.5 + random() / 2)));
}

export function withRetries(
  provider: ModelProvider,
  policy: RetryPolicy,
  onRetry: (notice: RetryNotice) => void,
  clock: Clock = systemClock,
  random: () => number = Math.random,
): ModelProvider {
  return {
    ...describedAs(provider),
    async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResult> {
      let malformed = 0;
      for (let attempt = 1; ; attempt++) {
        const result = await provider.complete(request, signal);
        if (result.ok || !result.error.retryable || attempt >= policy.maxAttempts || signal.aborted) return result;
        // A server that answered garbage twice will answer it again: one retry, not the whole budget.
        if (result.error.kind === 'malformed' && ++malformed > MALFORMED_RETRIES) return result;
        const delayMs = retryDelay(policy, attempt, result.error, random);
        onRetry({ agentId: request.agent.id, attempt, delayMs, error: result.error });
        try {
          await sleep(delayMs, signal, clock);
        } catch {
          return { ok: false, error: { kind: 'aborted', message: 'aborted while waiting to retry', retryable: false } };
        }
      }
    },
  };
}
