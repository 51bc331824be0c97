// An agent's transcript in the console (`/sessions/ID/agents/AGENT`): what the timeline's rows and the agent tree
// open. An agent that did not complete starts with why (its reason, its last tool error, its item's reason); then
// each message as its role, text, tool calls and tool results; long texts are cut, and a very long conversation
// shows its last messages (the page says how many were left out).
import type { Hono } from 'hono';
import { userText, type Message } from '../../orchestrator/types.js';
import { h, layout, type Assets } from './pages.js';
import { isSessionId, readTranscript, SessionSource } from './session-source.js';
import { cutReason, type ToolError } from './fold-errors.js';
import type { SessionCache } from './session-routes.js';
import { ITEM_STATES, type AgentRow, type SessionModel } from './session-model.js';

/** Messages shown at most (the last ones), and characters of one text. */
const MAX_MESSAGES = 400;
const MAX_CHARS = 20_000;

function cut(text: string): string {
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}\n… (${text.length - MAX_CHARS} more characters)` : text;
}

function messageHtml(m: Message, n: number): string {
  let title: string;
  let body = '';
  if (m.role === 'user') {
    title = m.synthetic ? `Synthetic message (${m.synthetic.kind})` : 'Task';
    body = `<pre>${h(cut(userText(m)))}</pre>`;
  } else if (m.role === 'assistant') {
    title = 'Assistant';
    if (m.text.trim()) body += `<pre>${h(cut(m.text))}</pre>`;
    for (const call of m.toolCalls)
      body += `<p class="call">Calls <code>${h(call.name)}</code></p><pre class="args">${h(cut(call.arguments))}</pre>`;
  } else {
    title = `Result of ${m.toolName}${m.isError ? ' (error)' : ''}`;
    const text = m.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
    body = `<pre>${h(cut(text))}</pre>`;
  }
  return `<article class="message message-${m.role}" data-n="${n}"><h2>${h(title)}</h2>${body}</article>`;
}

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

function failureHtml(failure: AgentFailure, messages: readonly Message[]): string {
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

export function transcriptPage(
  sessionId: string,
  agentId: string,
  messages: readonly Message[],
  assets: Assets,
  failure?: AgentFailure,
): string {
  const shown = messages.slice(-MAX_MESSAGES);
  const skipped = messages.length - shown.length;
  const list =
    messages.length === 0
      ? '<p class="empty">This agent has no transcript yet (it has not started, or wrote nothing).</p>'
      : `${skipped > 0 ? `<p class="meta">The first ${skipped} messages are left out; the last ${shown.length} follow.</p>` : ''}${shown.map((m, i) => messageHtml(m, skipped + i + 1)).join('')}`;
  const body = `<header class="bar"><h1>Transcript of ${h(agentId)}</h1><a class="button" href="/sessions/${h(sessionId)}">Session ${h(sessionId)}</a></header>
<p class="meta">${messages.length} message${messages.length === 1 ? '' : 's'} in session ${h(sessionId)}</p>
<div class="transcript">${list}</div>`;
  // Why it did not complete comes first, right under the heading.
  const page = failure ? body.replace('</header>\n', `</header>\n${failureHtml(failure, messages)}\n`) : body;
  return layout(`${agentId} — transcript — murmur`, page, { nav: 'sessions', assets });
}

export const TRANSCRIPT_CSS = `
.transcript .message{background:#fff;border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin:8px 0}
.transcript h2{font-size:13px;margin:0 0 4px;color:var(--muted)}.transcript pre{white-space:pre-wrap;word-break:break-word;margin:4px 0;font-size:13px}
.failure{background:#fff;border:1px solid #e6b8b4;border-left:4px solid #b3261e;border-radius:8px;padding:8px 12px;margin:8px 0 12px}
.failure h2{font-size:15px;margin:0 0 4px;color:#b3261e}.failure p{margin:4px 0}.failure pre{white-space:pre-wrap;word-break:break-word;margin:4px 0;font-size:13px;background:#f3f3f1;padding:6px}
.transcript .message-assistant{border-left:3px solid var(--accent)}.transcript .call{margin:6px 0 0;font-size:13px}.transcript .args{background:#f3f3f1;padding:6px}`;

/** The session's folded model, from the console's cache (a session read here is cached like its page). */
async function modelOf(home: string, cache: SessionCache, id: string): Promise<SessionModel | undefined> {
  const known = cache.get(id);
  const source = known ?? (SessionSource.exists(home, id) ? new SessionSource(home, id) : undefined);
  if (!source) return undefined;
  const { model } = await source.view();
  cache.set(id, source, source.approxBytes());
  return model;
}

export function addTranscriptRoutes(app: Hono, options: { home: string; assets: Assets; cache: SessionCache }): void {
  app.get('/sessions/:id/agents/:agent', async (c) => {
    const id = c.req.param('id');
    const agent = c.req.param('agent');
    if (!isSessionId(id) || !isSessionId(agent))
      return c.html(
        layout('Not found — murmur', '<h1>No such agent</h1>', { nav: 'sessions', assets: options.assets }),
        404,
      );
    const model = await modelOf(options.home, options.cache, id);
    const failure = model && agentFailure(model, agent);
    return c.html(transcriptPage(id, agent, readTranscript(options.home, id, agent), options.assets, failure));
  });
}
