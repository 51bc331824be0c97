// What the library checks of a run's own options at the call (in its words: option names), and the asker made of
// the instance's onApproval / onQuestion handlers.
import type { Asker } from '../host/asker.js';
import type { MurmurOptions } from './options.js';
import { fail } from './option-error.js';

export function askerFrom(options: MurmurOptions): Asker | undefined {
  const { onApproval, onQuestion } = options;
  if (!onApproval && !onQuestion) return undefined;
  return {
    approve: async (request, signal) =>
      onApproval ? onApproval(request, signal) : { kind: 'deny', feedback: 'this host answers no permission requests' },
    question: async (request, requester, signal) =>
      onQuestion
        ? onQuestion(request, requester, signal)
        : { kind: 'declined', reason: 'this host answers no questions' },
    plan: async () => ({
      kind: 'reject',
      reason: 'this host approves no plans (set permissions.approvePlans to approve them)',
    }),
  };
}

export function checkSignal(option: string, signal: unknown): void {
  if (signal !== undefined && !(signal instanceof AbortSignal)) fail(option, 'must be an AbortSignal.');
}

/** A swarm's maxConcurrency and maxRounds (whole numbers, at least 1) and its isolation. */
export function checkSwarmNumbers(options: { maxConcurrency?: number; maxRounds?: number; isolation?: string }): void {
  for (const key of ['maxConcurrency', 'maxRounds'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isInteger(value) || value < 1))
      fail(`swarm.${key}`, `${JSON.stringify(value)} is not accepted; give a whole number, at least 1.`);
  }
  if (options.isolation !== undefined && options.isolation !== 'none' && options.isolation !== 'worktree')
    fail('swarm.isolation', `${JSON.stringify(options.isolation)} is not accepted; use none or worktree.`);
}
