// The asker of a scheduled run: nobody is there to answer, yet a request is not denied — it is held. The
// owner saves the session at that call and ends the run as "waiting for approval"; `murmur resume` then
// asks a person and carries on (see held.ts). The request's promise only settles if the agent is stopped.
import type { Asker } from '../permissions/asker.js';

export interface HeldCall {
  kind: 'approval' | 'question' | 'plan';
  agentId: string;
  callId: string;
  /** What was asked, in one line. */
  summary: string;
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
      });
      return wait(signal);
    },
    question(request, requester, signal) {
      onHold({
        kind: 'question',
        agentId: requester.agentId,
        callId: request.callId,
        summary: request.questions.map((q) => q.question).join(' '),
      });
      return wait(signal);
    },
    plan(request, signal) {
      onHold({
        kind: 'plan',
        agentId: request.requester.agentId,
        callId: request.callId,
        summary: `plan ${request.planPath}`,
      });
      return wait(signal);
    },
  };
}
