// What a run waits for, as data: a call that needs a person (an approval, a question, a plan to approve) with nobody
// there to answer is an interruption. The run keeps it in its state; it ends `waiting`, and a resume given an answer
// runs the call exactly where it stopped. The answers a person gives are the same shapes as a live prompt's.

/** A question's choice as ask_user_question offers it. */
export interface QuestionOption {
  label: string;
  description: string;
}

/** One question as the host shows it. `options` already ends with the "Other" choice (free text). */
export interface UserQuestion {
  question: string;
  /** A short tag shown above the question (at most 12 characters). */
  header?: string;
  options: readonly QuestionOption[];
  multiSelect: boolean;
}

export interface QuestionAnswer {
  question: string;
  /** Labels of the chosen options (one unless multiSelect); may include "Other". */
  selected: readonly string[];
  /** The free text typed with "Other". */
  otherText?: string;
}

/** A person's reply to an agent's question: the options chosen and any text, or declined. */
export type QuestionReply =
  | { kind: 'answered'; answers: readonly QuestionAnswer[] }
  /** The user closed the prompt without answering. */
  | { kind: 'declined'; reason?: string };

/** An alternative the agent offers beside its plan (exit_plan_mode `options`). */
export interface PlanOption {
  label: string;
  description: string;
}

/**
 * The user's answer to a plan. `reject` keeps the agent in plan mode; `reject_and_exit` leaves plan mode and the
 * plan is dropped; `revise` keeps plan mode with feedback; `approve` and `option` leave plan mode to carry it out.
 */
export type PlanDecision =
  | { kind: 'approve' }
  | { kind: 'option'; label: string }
  | { kind: 'reject'; reason?: string }
  | { kind: 'reject_and_exit'; reason?: string }
  | { kind: 'revise'; feedback: string };

/** A permission's answer: once, for the session (the call's "allow always" rules), or no (with what to say). */
export type ApprovalAnswer = { kind: 'allow_once' } | { kind: 'allow_always' } | { kind: 'deny'; feedback?: string };

/** A person's answer to an interruption: an approval's, a question's or a plan's. */
export type InterruptionAnswer = ApprovalAnswer | QuestionReply | PlanDecision;

/** A call that waits for a person. Its card holds what the terminal's prompt would show. */
export interface Interruption {
  kind: 'approval' | 'question' | 'plan';
  /** The asking agent and its call (call ids are unique per agent only: a swarm's items repeat them). */
  agentId: string;
  callId: string;
  /** When it was asked (epoch ms). */
  at?: number;
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
  /** The person's answer, once given (the console, `murmur resume --approve`, the library's `answers`). */
  answer?: InterruptionAnswer;
  answeredAt?: number;
}

/** How a caller names an interruption it answers: `agentId/callId`, or the call id alone when it is unique. */
export function interruptionId(interruption: Pick<Interruption, 'agentId' | 'callId'>): string {
  return `${interruption.agentId}/${interruption.callId}`;
}
