// One session as the console reads it from disk: state.json (what was saved), events.jsonl (tailed from where
// it was last read, so a live session costs only its new lines) folded by session-model.ts, and each finished
// agent's final message from its transcript. A session from before events.jsonl existed still shows its agents
// from state.json.
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sessionFold, type AgentRow, type SessionFold, type SessionModel } from './session-model.js';
import { SESSION_EVENTS_FILE } from '../../orchestrator/session-events.js';
import { readTranscriptFile } from '../../orchestrator/session.js';
import type { MurmurEvent } from '../../orchestrator/events.js';
import type { Message, ToolResultMessage } from '../../orchestrator/types.js';
import type { SessionState } from '../../orchestrator/engine.js';

const FINAL_CHARS = 600;
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$/;

export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id) && !id.includes('..');
}

export function sessionDir(home: string, id: string): string {
  return join(home, 'sessions', id);
}

export function readState(home: string, id: string): SessionState | undefined {
  try {
    return JSON.parse(readFileSync(join(sessionDir(home, id), 'state.json'), 'utf8')) as SessionState;
  } catch {
    return undefined;
  }
}

/** The messages of an agent's transcript (up to a line cut by a killed process). */
export function readTranscript(home: string, id: string, agentId: string): Message[] {
  return readTranscriptFile(join(sessionDir(home, id), 'agents', agentId, 'transcript.jsonl')).messages;
}

/** The agent's last assistant text (its answer), or undefined. */
export function finalMessage(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'assistant' && m.text.trim()) return m.text.trim();
  }
  return undefined;
}

/** The agent_swarm reports an agent received, in the order they came. */
export function swarmReportsIn(messages: readonly Message[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (m.role !== 'tool' || (m as ToolResultMessage).toolName !== 'agent_swarm') continue;
    const text = (m as ToolResultMessage).content
      .map((c) => ('text' in c && typeof c.text === 'string' ? c.text : ''))
      .join('');
    if (text.includes('<agent_swarm_result>')) out.push(text);
  }
  return out;
}

export class SessionSource {
  readonly dir: string;
  private fold: SessionFold;
  private offset = 0;
  private rest = '';
  private readonly finals = new Map<string, string>();
  private readonly finalsTried = new Set<string>();
  /** Polls in a row that found nothing new. */
  private idlePolls = 0;

  constructor(
    readonly home: string,
    readonly id: string,
  ) {
    this.dir = sessionDir(home, id);
    this.fold = sessionFold(id);
  }

  get hasEvents(): boolean {
    return existsSync(join(this.dir, SESSION_EVENTS_FILE));
  }

  /** Reads and folds the lines appended since the last call; returns how many events were new. */
  poll(): number {
    const file = join(this.dir, SESSION_EVENTS_FILE);
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      return 0;
    }
    if (size < this.offset) {
      // Replaced (not appended): start over.
      this.fold = sessionFold(this.id);
      this.offset = 0;
      this.rest = '';
    }
    if (size === this.offset) {
      this.idlePolls++;
      return 0;
    }
    this.idlePolls = 0;
    const fd = openSync(file, 'r');
    let text: string;
    try {
      const buffer = Buffer.alloc(size - this.offset);
      const n = readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset += n;
      text = this.rest + buffer.subarray(0, n).toString('utf8');
    } finally {
      closeSync(fd);
    }
    const lines = text.split('\n');
    this.rest = lines.pop() ?? '';
    let added = 0;
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        this.fold.add(JSON.parse(line) as MurmurEvent);
        added++;
      } catch {
        // Not an event line: skipped.
      }
    }
    return added;
  }

  get version(): number {
    return this.fold.version;
  }

  /** The model now, with final messages of the agents that ended (each transcript read once). */
  model(): SessionModel {
    const hasEvents = this.hasEvents;
    let model = hasEvents ? this.fold.model(this.finals) : fromState(this.id, readState(this.home, this.id));
    const live = model.status === 'running';
    // While a session runs, only its own agents' answers are read (not a thousand swarm items' transcripts).
    for (const agent of model.agents) {
      if (live && agent.swarmId !== undefined) continue;
      if (agent.endedAt === undefined && !['completed', 'failed', 'aborted'].includes(agent.state)) continue;
      if (this.finalsTried.has(agent.id)) continue;
      this.finalsTried.add(agent.id);
      const final = finalMessage(readTranscript(this.home, this.id, agent.id));
      if (final) this.finals.set(agent.id, final.length > FINAL_CHARS ? `${final.slice(0, FINAL_CHARS - 1)}…` : final);
    }
    for (const agent of model.agents) {
      const final = this.finals.get(agent.id);
      if (final) agent.final = final;
    }
    // A process killed before run.end: its saved status says more than "running" (read only when the events
    // stopped coming, so a live session is never re-parsed from state.json).
    if (hasEvents && live && this.idlePolls >= 2) {
      const state = readState(this.home, this.id);
      if (state && state.status !== 'running' && state.status !== 'idle') model = { ...model, status: state.status };
    }
    return model;
  }
}

/** A session without events.jsonl: its agents as saved, no timeline. */
function fromState(id: string, state: SessionState | undefined): SessionModel {
  const agents: AgentRow[] = (state?.agents ?? []).map((a) => {
    const row: AgentRow = {
      id: a.id,
      role: a.role,
      state: a.status,
      turns: a.turns,
      tokens: a.usage.input + a.usage.output,
      startedAt: a.startedAt ?? 0,
    };
    if (a.parentId !== undefined) row.parentId = a.parentId;
    if (a.item !== undefined) row.item = a.item;
    if (a.swarmId !== undefined) row.swarmId = a.swarmId;
    if (a.endedAt !== undefined) row.endedAt = a.endedAt;
    if (a.reason !== undefined) row.reason = a.reason;
    if (a.usage.cost !== undefined) row.cost = a.usage.cost;
    return row;
  });
  const model: SessionModel = {
    id,
    title: state?.task ?? '',
    model: state?.model ?? '',
    status: state?.status ?? 'unknown',
    t0: state?.createdAt ?? 0,
    startedAt: state?.createdAt ?? 0,
    lastTs: state?.updatedAt ?? 0,
    tokens: agents.reduce((n, a) => n + a.tokens, 0),
    agents,
    swarms: [],
    events: 0,
  };
  if (state?.kind) model.mode = state.kind;
  return model;
}

/**
 * The status of the run.end that closes a session's events.jsonl, if it has one (read from the last 4 KB): a
 * list shows a session "running" by its state.json until a later save, the events file knows it ended.
 */
export function endedStatus(home: string, id: string): string | undefined {
  const file = join(sessionDir(home, id), SESSION_EVENTS_FILE);
  let fd: number | undefined;
  try {
    const size = statSync(file).size;
    const length = Math.min(size, 4096);
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').trimEnd().split('\n');
    const last = lines.at(-1);
    if (!last?.includes('"run.end"')) return undefined;
    const event = JSON.parse(last) as { type?: string; status?: string };
    return event.type === 'run.end' ? event.status : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
