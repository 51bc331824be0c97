// An agent as the reports, the saved state and the events show it: id, role, status, usage and counts.
import type { AgentRecord } from './agent-tree.js';
import type { AgentSummary } from './types.js';

export function summaryOf(record: AgentRecord): AgentSummary {
  const { agent } = record;
  const summary: AgentSummary = {
    id: record.id,
    role: record.profile.name,
    status: agent.status,
    usage: { ...agent.state.usage },
    turns: agent.state.turns,
    toolCalls: agent.state.toolCalls,
  };
  if (record.parentId !== undefined) summary.parentId = record.parentId;
  if (record.description !== undefined) summary.description = record.description;
  if (record.item !== undefined) summary.item = record.item;
  if (record.attempt !== undefined) summary.attempt = record.attempt;
  if (agent.reason !== undefined) summary.reason = agent.reason;
  return summary;
}
