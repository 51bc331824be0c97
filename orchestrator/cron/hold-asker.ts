// The asker of a scheduled run: nobody is there to answer, yet a request is not denied — it is held. The
// owner saves the session at that call and ends the run as "waiting for approval"; `murmur resume` (or an answer
// given in the web console) then carries on (see held.ts). A held call keeps what its card shows — the same words
// as the terminal's — so a person can answer it elsewhere. The request's promise only settles if the agent stops.
import type { ApprovalAnswer, Asker } from '../permissions/asker.js';
import { describeRequester } from '../permissions/asker.js';
import type { PlanDecision, PlanOption, QuestionReply, UserQuestion } from '../../tools/adapters-interaction.js';

/** A person's answer to a held call, recorded with it (the console) and replayed by the resume. */
export type HeldAnswer = ApprovalAnswer | QuestionReply | PlanDecision;

export interface HeldCall {
  kind: 'approval' | 'question' | 'plan';
  agentId: string;
  callId: string;
  /** What was asked, in one line. */
  summary: string;
  /** Who asks: the agent and its parent chain (`a-2 (worker) ← main`). */
  requester?: string;
  /** An approval: the tool, the exact call, its arguments, why it is asked, and what "allow always" adds. */
  tool?: string;
  call?: string;
  detail?: string;
  reason?: string;
  alwaysRules?: readonly string[];
  /** A card in plain words (create_scheduled_task's): approved or rejected, never "allow always". */
  card?: string;
  /** A question: what ask_user_question asked. */
  questions?: readonly UserQuestion[];
  /** A plan: its file, its text and the alternatives offered. */
  plan?: { path: string; text: string; options: readonly PlanOption[] };
  /** The person's answer, once given in the console. */
  answer?: HeldAnswer;
  answeredAt?: number;
}

export function holdAsker(onHold: (held: HeldCall) => void): Asker {
  const wait = (signal: AbortSignal) =>
    new Promise<undefined>((resolve) => {
      if (signal.aborted) resolve(undefined);
      else signal.addEventListener('abort', () => resolve(undefined), { once: true });
    });
  return {
    approve(request, signal) {
      onHold({
        kind: 'approval',
        agentId: request.requester.agentId,
        callId: request.callId,
        summary: `${request.summary} (${request.reason})`,
        requester: describeRequester(request.requester),
        tool: request.tool,
        call: request.summary,
        detail: request.detail,
        reason: request.reason,
        alwaysRules: request.alwaysRules,
        ...(request.card !== undefined ? { card: request.card } : {}),
      });
      return wait(signal);
    },
    question(request, requester, signal) {
      onHold({
        kind: 'question',
        agentId: requester.agentId,
        callId: request.callId,
        summary: request.questions.map((q) => q.question).join(' '),
        requester: describeRequester(requester),
        questions: request.questions,
      });
      return wait(signal);
    },
    plan(request, signal) {
      onHold({
        kind: 'plan',
        agentId: request.requester.agentId,
        callId: request.callId,
        summary: `plan ${request.planPath}`,
        requester: describeRequester(request.requester),
        plan: { path: request.planPath, text: request.plan, options: request.options },
      });
      return wait(signal);
    },
  };
}
