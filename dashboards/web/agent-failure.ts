// Why an agent did not complete, for the top of its transcript page: its end and reason and its last tool error as
// the session's fold keeps them (or, for a session without events, the transcript's last error result), and its
// swarm item's end when that went wrong (a worker whose item failed its verification).
import { h } from './pages.js';
import { SessionSource } from './session-source.js';
import { cutReason, type ToolError } from './fold-errors.js';
import { ITEM_STATES, type AgentRow, type SessionModel } from './session-model.js';
import type { SessionCache } from './session-routes.js';
import type { Message } from '../../orchestrator/types.js';

/** Why an agent did not complete, as the session's fold knows it, and its item's end when that went wrong. */
export interface AgentFailure {
  state: string;
  reason?: string;
  lastToolError?: ToolError;
  item?: { label: string; state: string; reason: string };
}

const ENDED_BADLY: Record<string, string> = {
  failed: 'Failed',
  timeout: 'Timed out',
  aborted: 'Aborted',
  budget: 'Stopped by its budget',
};
const ITEM_BAD = new Set(['failed', 'aborted', 'conflict']);

/** What the fold says of the agent and of the item it worked on (undefined when all went well). */
export function agentFailure(model: SessionModel, agentId: string): AgentFailure | undefined {
  const row: AgentRow | undefined = model.agents.find((a) => a.id === agentId);
  const failure: AgentFailure = { state: row?.state ?? '' };
  if (row?.reason) failure.reason = row.reason;
  if (row?.lastToolError) failure.lastToolError = row.lastToolError;
  for (const s of model.swarms) {
    const i = s.agentIds.indexOf(agentId);
    if (i < 0) continue;
    let state = '';
    for (let k = s.changes.length - 3; k >= 0; k -= 3)
      if (s.changes[k] === i) {
        state = ITEM_STATES[s.changes[k + 2]!] ?? '';
        break;
      }
    if (ITEM_BAD.has(state) || s.verdicts[i] === 2)
      failure.item = {
        label: s.items[i]!,
        state: s.verdicts[i] === 2 && !ITEM_BAD.has(state) ? 'verdict fail' : state,
        reason: s.reasons[i] ?? '',
      };
  }
  return ENDED_BADLY[failure.state] || failure.item ? failure : undefined;
}

/** The last error result of a tool in the transcript (for a session whose events do not say it). */
function lastToolErrorIn(messages: readonly Message[]): ToolError | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'tool' && m.isError)
      return { tool: m.toolName, error: cutReason(m.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')) };
  }
  return undefined;
}

export function failureHtml(failure: AgentFailure, messages: readonly Message[]): string {
  const title = ENDED_BADLY[failure.state];
  const toolError = title ? (failure.lastToolError ?? lastToolErrorIn(messages)) : undefined;
  let body = '';
  if (title) body += `<p class="reason">${h(failure.reason || 'No reason was recorded.')}</p>`;
  if (toolError)
    body += `<p class="tool-error-head">Last tool error, from <code>${h(toolError.tool)}</code>:</p><pre class="tool-error">${h(toolError.error || '(no message)')}</pre>`;
  const item = failure.item;
  if (item && item.reason !== failure.reason)
    body += `<p class="item-reason">Item <b>${h(item.label)}</b> ended ${h(item.state)}${item.reason ? `: ${h(item.reason)}` : ''}</p>`;
  const heading = title ?? `Item ${item!.state}`;
  return `<section class="failure" aria-labelledby="failure-title"><h2 id="failure-title">${h(heading)}</h2>${body}</section>`;
}

/** The session's folded model, from the console's cache (a session read here is cached like its page). */
export async function cachedModel(home: string, cache: SessionCache, id: string): Promise<SessionModel | undefined> {
  const known = cache.get(id);
  const source = known ?? (SessionSource.exists(home, id) ? new SessionSource(home, id) : undefined);
  if (!source) return undefined;
  const { model } = await source.view();
  cache.set(id, source, source.approxBytes());
  return model;
}
