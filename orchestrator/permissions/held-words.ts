// What the permission setup says when it cannot simply ask: the card of a call held for a person (what the
// terminal's prompt would show), and the messages to the model when nobody can approve a call.
import type { Interruption } from '../../protocol/interruptions.js';
import type { ApprovalRequest, Requester } from './asker.js';
import type { PlanReviewRequest, QuestionRequest } from '../../tools/adapters-interaction.js';
import { describeRequester } from './asker.js';
import { callSummary } from './call-text.js';
import type { PermissionMode } from './policy.js';
import { namesProtectedPath, type ProtectedTarget } from './protected.js';
import { isRuleProblem, parseRule } from './rules.js';
import type { CallSubject } from './subject.js';
import { tomlAllowLine } from './suggest.js';

/** The card of an approval held for a person: what the terminal's prompt would show. */
export function approvalCard(request: ApprovalRequest): Interruption {
  return {
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
  };
}

/** The card of a question held for a person. */
export function questionCard(request: QuestionRequest, requester: Requester): Interruption {
  return {
    kind: 'question',
    agentId: request.agentId,
    callId: request.callId,
    summary: request.questions.map((q) => q.question).join(' '),
    requester: describeRequester(requester),
    questions: request.questions,
  };
}

/** The card of a plan held for a person's approval. */
export function planCard(request: PlanReviewRequest, requester: Requester): Interruption {
  return {
    kind: 'plan',
    agentId: request.agentId,
    callId: request.callId,
    summary: `plan ${request.planPath}`,
    requester: describeRequester(requester),
    plan: { path: request.planPath, text: request.plan, options: request.options },
  };
}

/** Whether a suggested rule's text names the protected path (so "allow always" may offer it). */
export function namesPath(text: string, subject: CallSubject, target: ProtectedTarget): boolean {
  const rule = parseRule(text, 'allow', 'session');
  return !isRuleProblem(rule) && namesProtectedPath(rule, subject, target);
}

/**
 * The message to the model when nobody can approve a write or edit of a protected path: `permissions.headless =
 * "allow"` does not cover it, so only a rule in murmur.toml that names the path pre-approves it.
 */
export function protectedHeadlessDenial(
  subject: CallSubject,
  why: string,
  headlessReason: string,
  wouldAllow: readonly string[],
): string {
  const summary = callSummary(subject);
  const how =
    wouldAllow.length > 0
      ? `To pre-approve this path, add a rule that names it to murmur.toml: ${tomlAllowLine(wouldAllow)} ` +
        `(a generic rule such as "${subject.tool}" or "${subject.tool}(**)" does not cover protected paths).`
      : 'Its path goes through a symbolic link into a protected path, so no rule can pre-approve it; a rule can name ' +
        'the path the link leads to, for writes made to that path itself.';
  return (
    `Not run: ${summary} needs a person's approval (${why}), but nobody can approve it here (${headlessReason}); ` +
    'permissions.headless = "allow" does not cover protected paths. ' +
    `${how} Do not retry it as is: carry on without it, or say in your reply what you need.`
  );
}

/** The message to the model when nobody can approve: why, and the rule that would allow the call. */
export function headlessDenial(
  subject: CallSubject,
  why: string,
  headlessReason: string,
  wouldAllow: readonly string[],
  mode: PermissionMode,
): string {
  const summary = callSummary(subject);
  const ways = [`add ${tomlAllowLine(wouldAllow)} to murmur.toml`];
  if (subject.tool === 'agent_swarm') ways.push('run with --swarm-mode (or swarm.swarmMode = true)');
  else if (
    mode === 'manual' &&
    (subject.tool === 'write' || subject.tool === 'edit') &&
    subject.path?.relative !== undefined
  ) {
    ways.push('run with --permission-mode auto (edits inside the workspace)');
  }
  ways.push('set permissions.headless = "allow" to allow such calls when nobody can answer');
  return (
    `Not run: ${summary} needs approval (${why}), but nobody can approve it here (${headlessReason}), so it is denied by policy. ` +
    `The rule that would allow it: ${wouldAllow.map((r) => JSON.stringify(r)).join(', ')} — to allow it, ${ways.join('; or ')}. ` +
    'Do not retry it as is: carry on without it, or say in your reply what you need.'
  );
}
