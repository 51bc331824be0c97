// An agent's transcript in the console (`/sessions/ID/agents/AGENT`): what the timeline's rows and the agent tree
// open. An agent that did not complete starts with why (its reason, its last tool error, its item's reason); then
// each message as its role, text, tool calls and tool results; long texts are cut, and a very long conversation
// shows its last messages (the page says how many were left out).
import type { Hono } from 'hono';
import { userText, type Message } from '../../orchestrator/types.js';
import { agentFailure, cachedModel, failureHtml, type AgentFailure } from './agent-failure.js';
import type { SessionCache } from './session-routes.js';
import { h, layout, type Assets } from './pages.js';
import { isSessionId, readTranscript } from './session-source.js';
import { plural } from '../plural.js';

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
<p class="meta">${plural(messages.length, 'message')} in session ${h(sessionId)}</p>
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

export function addTranscriptRoutes(app: Hono, options: { home: string; assets: Assets; cache: SessionCache }): void {
  app.get('/sessions/:id/agents/:agent', async (c) => {
    const id = c.req.param('id');
    const agent = c.req.param('agent');
    if (!isSessionId(id) || !isSessionId(agent))
      return c.html(
        layout('Not found — murmur', '<h1>No such agent</h1>', { nav: 'sessions', assets: options.assets }),
        404,
      );
    const model = await cachedModel(options.home, options.cache, id);
    const failure = model && agentFailure(model, agent);
    return c.html(transcriptPage(id, agent, readTranscript(options.home, id, agent), options.assets, failure));
  });
}
