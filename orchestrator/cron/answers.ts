// Answers given elsewhere (the web console) to the calls a session was held at. The answer is recorded with its
// held call in `held.json`; the resume that answering starts replays it through `answeringAsker`, so the held
// call goes through the same permission check as in a terminal, answered by what the person chose. A request
// without a recorded answer goes to the fallback (a terminal, or the hold asker, which holds it again).
import type { ApprovalAnswer, Asker } from '../permissions/asker.js';
import type { PlanDecision, QuestionReply } from '../../tools/adapters-interaction.js';
import { readHeld, writeHeld } from './held.js';
import type { HeldAnswer, HeldCall } from './hold-asker.js';

/** Replays the recorded answers by call id; other requests go to `fallback` (none: left unanswered). */
export function answeringAsker(calls: readonly HeldCall[], fallback: Asker | undefined): Asker {
  // By agent and call id: ids are unique per agent only (a scripted model's, call_1_1, repeat across a swarm's items).
  const answerOf = (agentId: string, callId: string, kind: HeldCall['kind']) =>
    calls.find((c) => c.agentId === agentId && c.callId === callId && c.kind === kind && c.answer !== undefined)
      ?.answer;
  return {
    async approve(request, signal) {
      const answer = answerOf(request.requester.agentId, request.callId, 'approval');
      if (answer) return answer as ApprovalAnswer;
      return fallback ? fallback.approve(request, signal) : undefined;
    },
    async question(request, requester, signal) {
      const answer = answerOf(requester.agentId, request.callId, 'question');
      if (answer) return answer as QuestionReply;
      return fallback ? fallback.question(request, requester, signal) : undefined;
    },
    async plan(request, signal) {
      const answer = answerOf(request.requester.agentId, request.callId, 'plan');
      if (answer) return answer as PlanDecision;
      return fallback ? fallback.plan(request, signal) : undefined;
    },
  };
}

export type Recorded =
  | { ok: true; call: HeldCall; calls: HeldCall[]; unanswered: number }
  | { ok: false; status: 400 | 404 | 409; error: string };

/**
 * Records `answer` with the held call `callId` of the session in `sessionDir` (the caller holds off anyone else
 * running the session). Refused when the session waits for no such call, it was answered already, or `answer`
 * says what is wrong with the answer for that call.
 */
export function recordAnswer(
  sessionDir: string,
  callId: string,
  answer: (call: HeldCall) => HeldAnswer | string,
  now = Date.now(),
  /** The asking agent, when given: call ids repeat across agents (a swarm's items). */
  agentId?: string,
): Recorded {
  const calls = readHeld(sessionDir);
  const call = calls.find((c) => c.callId === callId && (agentId === undefined || c.agentId === agentId));
  if (!call)
    return {
      ok: false,
      status: 404,
      error: `this session is not waiting for an answer to call ${JSON.stringify(callId)}${calls.length === 0 ? ' (it waits for nothing)' : ''}`,
    };
  if (call.answer !== undefined)
    return { ok: false, status: 409, error: `call ${JSON.stringify(callId)} was answered already` };
  const given = answer(call);
  if (typeof given === 'string') return { ok: false, status: 400, error: given };
  call.answer = given;
  call.answeredAt = now;
  writeHeld(sessionDir, calls);
  return { ok: true, call, calls, unanswered: calls.filter((c) => c.answer === undefined).length };
}
