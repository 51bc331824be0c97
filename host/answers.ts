// Answers to what a run waits for, given from code or flags (the library's `answers`, `murmur resume --approve` /
// `--deny`): each names an interruption (`agentId/callId`, or the call id alone when one agent made it) and is
// checked against its kind before the resume starts, so a wrong answer is an error naming it, never a lost call.
import { interruptionId, type Interruption, type InterruptionAnswer } from '../protocol/interruptions.js';
import { findInterruption } from '../orchestrator/permissions/interruption-desk.js';

/** Finds the interruption an answer names (`agentId/callId`, or the call id alone), or says why none fits. */
export { findInterruption };

/** Answers by interruption: `agentId/callId` (or the call id alone) → the person's answer. */
export type Answers = Record<string, InterruptionAnswer>;

export type Answered = { ok: true; interruptions: Interruption[] } | { ok: false; error: string };

const APPROVAL_KINDS = ['allow_once', 'allow_always', 'deny'];
const QUESTION_KINDS = ['answered', 'declined'];
const PLAN_KINDS = ['approve', 'option', 'reject', 'reject_and_exit', 'revise'];

/** What is wrong with `answer` for this interruption, or undefined. */
export function answerProblem(interruption: Interruption, answer: unknown): string | undefined {
  const kind = typeof answer === 'object' && answer !== null ? (answer as { kind?: unknown }).kind : undefined;
  const accepted =
    interruption.kind === 'approval' ? APPROVAL_KINDS : interruption.kind === 'question' ? QUESTION_KINDS : PLAN_KINDS;
  if (typeof kind !== 'string' || !accepted.includes(kind))
    return `the answer to ${interruption.kind} ${interruptionId(interruption)} has kind ${JSON.stringify(kind)}; accepted: ${accepted.join(', ')}`;
  const a = answer as Record<string, unknown>;
  if (kind === 'answered' && !Array.isArray(a.answers))
    return `an "answered" reply to question ${interruption.callId} needs "answers": one { question, selected } per question`;
  if (kind === 'option' && typeof a.label !== 'string')
    return `an "option" answer to plan ${interruption.callId} needs the "label" of one of its options`;
  if (kind === 'revise' && typeof a.feedback !== 'string')
    return `a "revise" answer to plan ${interruption.callId} needs "feedback"`;
  return undefined;
}

/** The interruptions with `answers` recorded on them; an answer naming nothing that waits, or of the wrong kind, is an error. */
export function applyAnswers(list: readonly Interruption[], answers: Readonly<Answers>, now = Date.now()): Answered {
  const out = list.map((i) => ({ ...i }));
  for (const [name, answer] of Object.entries(answers)) {
    const found = findInterruption(out, name);
    if (!found.ok) return found;
    const problem = answerProblem(found.interruption, answer);
    if (problem) return { ok: false, error: problem };
    found.interruption.answer = answer;
    found.interruption.answeredAt = now;
  }
  return { ok: true, interruptions: out };
}
