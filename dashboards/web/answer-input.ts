// The body of `POST /api/sessions/:id/answers` checked against the held call it answers, as the terminal's prompt
// would: an approval takes allow_once | allow_always | deny (with an optional feedback for the agent; no "allow
// always" for a card); a question one answer per question among its options (or declined); a plan the plan
// answers. A bad value is a message naming it and what is accepted.
import type { Interruption as HeldCall, InterruptionAnswer as HeldAnswer } from '../../protocol/interruptions.js';

type QuestionAnswer = { -readonly [K in keyof Answered]: Answered[K] };
type Answered = Extract<HeldAnswer, { kind: 'answered' }>['answers'][number];

const MAX_TEXT = 4_000;

function text(value: unknown, name: string): string | undefined | { error: string } {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') return { error: `${name} must be text` };
  if (value.length > MAX_TEXT) return { error: `${name} is over ${MAX_TEXT} characters` };
  return value.trim() || undefined;
}

function approval(call: HeldCall, body: Record<string, unknown>): HeldAnswer | string {
  const feedback = text(body.feedback, 'feedback');
  if (typeof feedback === 'object') return feedback.error;
  const always = !call.card && (call.alwaysRules?.length ?? 0) > 0;
  const kinds = always ? ['allow_once', 'allow_always', 'deny'] : ['allow_once', 'deny'];
  if (!kinds.includes(body.kind as string))
    return `kind ${JSON.stringify(body.kind)} is not one of ${kinds.join(', ')} for this ${call.card ? 'card' : 'call'}`;
  if (body.kind === 'deny') return feedback ? { kind: 'deny', feedback } : { kind: 'deny' };
  return { kind: body.kind as 'allow_once' | 'allow_always' };
}

function question(call: HeldCall, body: Record<string, unknown>): HeldAnswer | string {
  if (body.kind === 'declined') return { kind: 'declined', reason: 'the user declined to answer (in the console)' };
  const questions = call.questions ?? [];
  const given = body.answers;
  if (!Array.isArray(given) || given.length !== questions.length)
    return `answers must be a list with one answer for each of the ${questions.length} question(s), or kind "declined"`;
  const answers: QuestionAnswer[] = [];
  for (const [i, q] of questions.entries()) {
    const a = given[i] as { selected?: unknown; otherText?: unknown } | null;
    const labels = q.options.map((o) => o.label);
    const selected = Array.isArray(a?.selected) ? (a.selected as unknown[]) : [];
    if (selected.length === 0 || selected.some((s) => typeof s !== 'string' || !labels.includes(s)))
      return `answer ${i + 1} must select among ${labels.map((l) => JSON.stringify(l)).join(', ')}`;
    if (!q.multiSelect && selected.length > 1) return `question ${i + 1} takes one choice, got ${selected.length}`;
    const other = text(a?.otherText, `answer ${i + 1}'s own text`);
    if (typeof other === 'object') return other.error;
    const answer: QuestionAnswer = { question: q.question, selected: [...new Set(selected as string[])] };
    if (other && selected.includes('Other')) answer.otherText = other;
    answers.push(answer);
  }
  return { kind: 'answered', answers };
}

function plan(call: HeldCall, body: Record<string, unknown>): HeldAnswer | string {
  const feedback = text(body.feedback, 'feedback');
  if (typeof feedback === 'object') return feedback.error;
  switch (body.kind) {
    case 'approve':
      return { kind: 'approve' };
    case 'reject':
    case 'reject_and_exit':
      return feedback ? { kind: body.kind, reason: feedback } : { kind: body.kind };
    case 'revise':
      return {
        kind: 'revise',
        feedback: feedback ?? 'no note given; look for gaps and risks, and make the plan more concrete',
      };
    case 'option': {
      const label = (call.plan?.options ?? []).find((o) => o.label === body.label)?.label;
      return label ? { kind: 'option', label } : `label ${JSON.stringify(body.label)} is not one of the plan's options`;
    }
    default:
      return `kind ${JSON.stringify(body.kind)} is not one of approve, option, revise, reject, reject_and_exit`;
  }
}

/** The answer the body gives for `call`, or what is wrong with it. */
export function answerFor(call: HeldCall, body: Record<string, unknown>): HeldAnswer | string {
  if (call.kind === 'approval') return approval(call, body);
  if (call.kind === 'question') return question(call, body);
  return plan(call, body);
}

/** What an answer was, in a few words (for the run's history). */
export function answerWords(answer: HeldAnswer): string {
  switch (answer.kind) {
    case 'allow_once':
      return 'approved';
    case 'allow_always':
      return 'always allowed';
    case 'deny':
      return 'denied';
    case 'answered':
      return 'answered';
    case 'declined':
      return 'declined';
    default:
      return `plan: ${answer.kind.replace(/_/g, ' ')}`;
  }
}
