// The approval broker: every request for the user — a permission, a question, a plan — from any agent at any
// depth joins one queue in front of the one asker, so prompts never overlap. Only the asking agent waits: its
// call awaits the answer while every other agent goes on. A request whose agent is stopped leaves the queue.
import PQueue from 'p-queue';
import type { PlanDecision, QuestionReply, QuestionRequest } from '../../tools/adapters-interaction.js';
import type { ApprovalAnswer, ApprovalRequest, Asker, PlanApprovalRequest, Requester } from './asker.js';

/** The outcome of a request that never reached the user (withdrawn while queued, or the asker failed). */
export interface Unanswered {
  kind: 'unanswered';
  reason: string;
}

export interface ApprovalHooks {
  settled?: () => ApprovalAnswer | undefined;
  answered?: (answer: ApprovalAnswer) => void;
}

export class ApprovalBroker {
  private readonly queue = new PQueue({ concurrency: 1 });

  constructor(readonly asker: Asker | undefined) {}

  /** Requests waiting for their turn plus the one on screen. */
  get waiting(): number {
    return this.queue.size + this.queue.pending;
  }

  /**
   * Asks for a permission. `settled` runs when the request reaches the front: an answer it returns (a session
   * rule added meanwhile covers the call) is used without asking again. `answered` runs before the next request
   * is shown, so a rule it adds already settles the requests queued behind.
   */
  approve(
    request: ApprovalRequest,
    signal: AbortSignal,
    hooks: ApprovalHooks = {},
  ): Promise<ApprovalAnswer | Unanswered> {
    return this.run(signal, async (asker, s) => {
      const answer = hooks.settled?.() ?? (await asker.approve(request, s));
      if (answer !== undefined && !s.aborted) hooks.answered?.(answer);
      return answer;
    });
  }

  question(request: QuestionRequest, requester: Requester, signal: AbortSignal): Promise<QuestionReply | Unanswered> {
    return this.run(signal, (asker, s) => asker.question(request, requester, s));
  }

  plan(request: PlanApprovalRequest, signal: AbortSignal): Promise<PlanDecision | Unanswered> {
    return this.run(signal, (asker, s) => asker.plan(request, s));
  }

  private async run<T>(
    signal: AbortSignal,
    ask: (asker: Asker, signal: AbortSignal) => Promise<T | undefined> | T,
  ): Promise<T | Unanswered> {
    const asker = this.asker;
    if (!asker) return { kind: 'unanswered', reason: 'nobody can answer here' };
    if (signal.aborted) return withdrawn();
    try {
      const answer = await this.queue.add(
        async () => {
          if (signal.aborted) return undefined;
          return ask(asker, signal);
        },
        { signal },
      );
      if (answer === undefined)
        return signal.aborted
          ? withdrawn()
          : { kind: 'unanswered', reason: 'the prompt was dismissed without an answer' };
      return answer;
    } catch (error) {
      if (signal.aborted) return withdrawn();
      return {
        kind: 'unanswered',
        reason: `the prompt failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }
}

function withdrawn(): Unanswered {
  return { kind: 'unanswered', reason: 'the request was withdrawn because the agent was stopped' };
}

export function isUnanswered(value: unknown): value is Unanswered {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'unanswered';
}
