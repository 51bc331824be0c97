// An agent as the reports, the saved state and the events show it: id, role, status, usage and counts; and as
// saved (its summary plus what a resume rebuilds it from), which is also all a settled swarm item's agent keeps.
import type { SavedAgent } from '../protocol/run-state.js';
import type { AgentRecord } from './agent-tree-types.js';
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

/** One agent as saved: its summary plus what a resume needs to rebuild it. */
export function savedAgentOf(r: AgentRecord): SavedAgent {
  // Built on the summary's own object, not spread into a new one: a spread copy here got a hidden class of its own
  // per agent (about 400 bytes each, most of a settled agent's row in a big swarm).
  const entry = summaryOf(r) as SavedAgent;
  entry.profile = r.profile.name;
  entry.depth = r.depth;
  if (r.swarmId !== undefined) entry.swarmId = r.swarmId;
  if (r.taskId !== undefined) entry.taskId = r.taskId;
  if (r.agent.startedAt !== undefined) entry.startedAt = r.agent.startedAt;
  if (r.agent.endedAt !== undefined) entry.endedAt = r.agent.endedAt;
  if (r.workspaceRoot !== undefined) entry.workspaceRoot = r.workspaceRoot;
  if (r.profile.output) entry.output = true;
  if (r.callId !== undefined) entry.callId = r.callId;
  return entry;
}

/** The summary part of a saved agent (a settled one's row): the row without what only a resume reads. */
export function summaryOfSaved(row: SavedAgent): AgentSummary {
  const { profile, swarmId, taskId, startedAt, endedAt, depth, workspaceRoot, output, callId, ...summary } = row;
  return { ...summary, usage: { ...row.usage } };
}
