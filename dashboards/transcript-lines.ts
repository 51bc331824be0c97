// How agent text becomes transcript lines: bounded in number (the ring) and in length, stripped of terminal
// escapes, with streamed text split into lines as it arrives. Used by the reducer in view-model.ts.
import { sanitize, truncate } from './format.js';
import type { AgentView, Snapshot } from './view-types.js';

export function recordMessage(
  s: Snapshot,
  agent: AgentView,
  role: 'user' | 'assistant' | 'tool',
  message: unknown,
): void {
  const m = (message ?? {}) as { content?: unknown; text?: unknown; isError?: unknown; synthetic?: unknown };
  if (role === 'user') {
    if (m.synthetic) return; // message.synthetic already said so
    pushBlock(s, agent, '› ', contentText(m.content), 6);
  } else if (role === 'assistant') {
    const text = typeof m.text === 'string' ? m.text : '';
    if (agent.streamed) flushPartial(s, agent);
    else if (text) {
      pushBlock(s, agent, '', text, 40);
      agent.lastLine = truncate(lastNonEmptyLine(text), s.limits.lineChars);
    }
    agent.streamed = false;
  } else {
    const mark = m.isError === true ? '✗' : '✓';
    pushBlock(s, agent, `  ${mark} `, contentText(m.content), 3);
  }
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const block of content) {
    const b = block as { type?: unknown; text?: unknown };
    if (b.type === 'text' && typeof b.text === 'string') out += (out ? '\n' : '') + b.text;
    else if (b.type === 'image' || b.type === 'video') out += (out ? '\n' : '') + `[${String(b.type)}]`;
  }
  return out;
}

/** Adds up to `maxLines` lines of `text`, the first prefixed; says how many were left out. */
function pushBlock(s: Snapshot, agent: AgentView, prefix: string, text: string, maxLines: number): void {
  const lines = sanitize(text)
    .split('\n')
    .filter((line) => line.trim() !== '');
  const shown = lines.slice(0, maxLines);
  shown.forEach((line, i) => pushLine(s, agent, (i === 0 ? prefix : ' '.repeat(prefix.length)) + line));
  if (lines.length > shown.length)
    pushLine(s, agent, `${' '.repeat(prefix.length)}… ${lines.length - shown.length} more lines`);
}

export function pushLine(s: Snapshot, agent: AgentView, line: string): void {
  agent.transcript.push(truncate(line, s.limits.lineChars));
}

/** Streamed text: whole lines join the transcript; the unfinished one waits in `partial` (its newest end kept). */
export function appendStreamed(s: Snapshot, agent: AgentView, text: string): void {
  const clean = sanitize(text);
  const parts = (agent.partial + clean).split('\n');
  agent.partial = keepTail(parts.pop() ?? '', s.limits.lineChars);
  for (const line of parts) if (line.trim() !== '') pushLine(s, agent, line);
  const latest = agent.partial.trim() !== '' ? agent.partial : lastNonEmptyLine(parts.join('\n'));
  if (latest) agent.lastLine = keepTail(latest.trim(), s.limits.lineChars);
}

/**
 * Streamed reasoning: marks the agent as thinking and keeps the newest line of it for the activity column. The
 * reasoning itself stays out of the transcript (it can be long, and the answer follows); one line notes it.
 */
export function appendThinking(s: Snapshot, agent: AgentView, text: string): void {
  if (agent.thinking === undefined) {
    flushPartial(s, agent);
    pushLine(s, agent, '∴ thinking…');
    agent.thinking = '';
  }
  const parts = (agent.thinking + sanitize(text)).split('\n');
  const latest = parts[parts.length - 1]!.trim() !== '' ? parts[parts.length - 1]! : lastNonEmptyLine(parts.join('\n'));
  agent.thinking = keepTail(latest.trimStart(), s.limits.lineChars);
}

/** The newest `max` characters of a line that keeps growing, marked where it was cut. */
function keepTail(text: string, max: number): string {
  return text.length > max ? `…${text.slice(text.length - max + 1)}` : text;
}

export function flushPartial(s: Snapshot, agent: AgentView): void {
  if (agent.partial.trim() !== '') pushLine(s, agent, agent.partial);
  agent.partial = '';
}

export function lastNonEmptyLine(text: string): string {
  const lines = sanitize(text).split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line) return line;
  }
  return '';
}
