// An agent whose transcript could not be written to the end: one rule for a live agent (Agent.markRecordLost) and
// a settled one's saved row (AgentTree.markRecordLost).
import type { AgentStatus } from '../protocol/agents.js';

/**
 * The status and reason after a loss: a completed agent counts as failed, any other keeps its status; the reason
 * gains the loss once. Undefined when the loss is in the reason already.
 */
export function afterRecordLoss(
  status: AgentStatus | 'idle',
  reason: string | undefined,
  loss: string,
): { status: AgentStatus | 'idle'; reason: string } | undefined {
  if (reason?.includes(loss)) return undefined;
  return {
    status: status === 'completed' ? 'failed' : status,
    reason: reason === undefined ? loss : `${reason}; ${loss}`,
  };
}
