// One session as the console reads it from disk: state.json (what was saved), events.jsonl (tailed from where
// it was last read, so a live session costs only its new lines; read and folded by session-model.ts in slices that
// yield to the event loop, so a huge log holds no other request), and each finished agent's final message from
// its transcript. A session from before events.jsonl existed still shows its agents
// from state.json.
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { forEachLine, readTail, Slicer } from './event-log.js';
import { modelJson } from './model-json.js';
import { agentRow, sessionFold, type AgentRow, type SessionFold, type SessionModel } from './session-model.js';
import { SESSION_EVENTS_FILE } from '../../orchestrator/session-events.js';
import { readSessionTranscripts } from '../../orchestrator/session.js';
import { packedFinalMessages } from '../../orchestrator/transcript-pack.js';
import { readSavedState, readSavedStatus } from '../../orchestrator/saved-state.js';
import { bigSessionModel, bigSignature, bigSwarmIds } from './big-session.js';
import { fromState } from './state-model.js';
import type { MurmurEvent } from '../../orchestrator/events.js';
import type { Message, ToolResultMessage } from '../../orchestrator/types.js';
import type { SessionState } from '../../protocol/run-state.js';

const FINAL_CHARS = 600;
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$/;

export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id) && !id.includes('..');
}

export function sessionDir(home: string, id: string): string {
  return join(home, 'sessions', id);
}

export function eventsFileOf(home: string, id: string): string {
  return join(sessionDir(home, id), SESSION_EVENTS_FILE);
}

export function readState(home: string, id: string): SessionState | undefined {
  // Through the one reader: an older session reads as the current version (a v1 session held for a person waits).
  const read = readSavedState(sessionDir(home, id));
  return read.ok ? read.state : undefined;
}

/** The session's status as saved, without reading back its items (a million of them cost seconds). */
export function readStatus(home: string, id: string): string | undefined {
  return readSavedStatus(sessionDir(home, id));
}

/** The messages of an agent's transcript (up to a line cut by a killed process). */
export function readTranscript(home: string, id: string, agentId: string): Message[] {
  return readSessionTranscripts(sessionDir(home, id), [agentId]).get(agentId)!.messages;
}

/** The messages of several agents' transcripts, read in one pass over the session's packs. */
export function readTranscripts(home: string, id: string, agentIds: Iterable<string>): Map<string, Message[]> {
  const read = readSessionTranscripts(sessionDir(home, id), agentIds);
  return new Map([...read].map(([agentId, transcript]) => [agentId, transcript.messages]));
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

/** What a fold has read of events.jsonl: which file (inode), and its size and mtime then. */
interface FileMark {
  ino: number;
  size: number;
  mtimeMs: number;
}

/** Transcripts read at once while looking for finished agents' answers. */
const FINALS_AT_ONCE = 8;

export class SessionSource {
  readonly dir: string;
  readonly eventsFile: string;
  private fold: SessionFold;
  /** The byte offset after the last complete line folded. */
  private offset = 0;
  private mark: FileMark | undefined;
  private readonly finals = new Map<string, string>();
  /** Agents whose answer was read, by id and end: one that goes on after a stop or a wait is read again when it ends. */
  private readonly finalsTried = new Set<string>();
  private finalsChars = 0;
  /** Polls in a row that found nothing new. */
  private idlePolls = 0;
  /**
   * Work on the fold runs one piece after another: a second request waits for the first one's fold (then reads
   * only what is new), and no fold changes the snapshot while a model is made from it a slice at a time.
   */
  private queue: Promise<unknown> = Promise.resolve();
  private cached: { fold: SessionFold; version: number; model: SessionModel } | undefined;
  private cachedJson: { model: SessionModel; finals: number; text: string } | undefined;
  private bigCached: { signature: string; model: SessionModel } | undefined;

  constructor(
    readonly home: string,
    readonly id: string,
  ) {
    this.dir = sessionDir(home, id);
    this.eventsFile = eventsFileOf(home, id);
    this.fold = sessionFold(id);
  }

  /** Whether the id names a session on disk (its state.json or its events.jsonl). */
  static exists(home: string, id: string): boolean {
    return existsSync(join(sessionDir(home, id), 'state.json')) || existsSync(eventsFileOf(home, id));
  }

  get hasEvents(): boolean {
    return existsSync(this.eventsFile);
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Folds the lines appended since the last call (in slices that yield to the event loop); returns how many events
   * were new. A file replaced (another inode, shorter, or rewritten at the same size) is folded again from the start.
   */
  private async foldNew(): Promise<number> {
    let now: FileMark;
    try {
      const { ino, size, mtimeMs } = await stat(this.eventsFile);
      now = { ino, size, mtimeMs };
    } catch {
      return 0;
    }
    const seen = this.mark;
    if (seen && now.ino === seen.ino && now.size === seen.size && now.mtimeMs === seen.mtimeMs) {
      this.idlePolls++;
      return 0;
    }
    if (seen && (now.ino !== seen.ino || now.size < this.offset || now.size === seen.size)) {
      this.fold = sessionFold(this.id);
      this.offset = 0;
    }
    let added = 0;
    const fold = this.fold;
    this.offset = await forEachLine(this.eventsFile, this.offset, now.size, (line) => {
      if (!line.trim()) return;
      try {
        fold.add(JSON.parse(line) as MurmurEvent);
        added++;
      } catch {
        // Not an event line: skipped.
      }
    });
    this.mark = now;
    this.idlePolls = added === 0 ? this.idlePolls + 1 : 0;
    return added;
  }

  /** About how many bytes this source keeps in memory. */
  approxBytes(): number {
    return this.fold.approxBytes() + this.finalsChars * 2 + (this.cachedJson?.text.length ?? 0) * 2;
  }

  /**
   * The model now and its JSON text: new lines folded first, then the final messages of the agents that ended
   * (each transcript read once, a few at a time). Both are made in slices and kept until another event comes.
   */
  view(): Promise<{ model: SessionModel; json: string }> {
    return this.serial(() => this.viewNow());
  }

  private async viewNow(): Promise<{ model: SessionModel; json: string }> {
    const big = bigSwarmIds(this.dir);
    if (big.length > 0) return this.bigView(big);
    await this.foldNew();
    const hasEvents = this.hasEvents;
    let model: SessionModel;
    if (hasEvents) {
      const { fold } = this;
      if (this.cached?.fold !== fold || this.cached.version !== fold.version)
        this.cached = { fold, version: fold.version, model: await this.modelOf(fold) };
      model = this.cached.model;
    } else model = fromState(this.id, readState(this.home, this.id));
    await this.readFinals(model);
    // A process killed before run.end: its saved status says more than "running" (read only when the events
    // stopped coming, so a live session is never re-parsed from state.json).
    if (hasEvents && this.cached && model.status === 'running' && this.idlePolls >= 2) {
      const status = readStatus(this.home, this.id);
      // (A session of an older murmur may say `idle`: as uninformative as `running`.)
      if (status && status !== 'running' && status !== 'idle') model = this.cached.model = { ...model, status };
    }
    const known = this.cachedJson;
    if (known?.model === model && known.finals === this.finals.size) return { model, json: known.text };
    const json = await modelJson(model);
    this.cachedJson = { model, finals: this.finals.size, text: json };
    return { model, json };
  }

  /**
   * A session with a big swarm: from state.json and the timeline files (made again only when they changed). The fold
   * of its events is let go: a live session that grew a big swarm stops folding a gigabyte of lines.
   */
  private async bigView(swarmIds: readonly string[]): Promise<{ model: SessionModel; json: string }> {
    if (this.offset > 0) {
      this.fold = sessionFold(this.id);
      this.offset = 0;
      this.mark = undefined;
      this.cached = undefined;
    }
    const signature = bigSignature(this.dir, swarmIds);
    const known = this.bigCached;
    const model = known?.signature === signature ? known.model : bigSessionModel(this.dir, this.id, swarmIds);
    if (known?.model !== model) this.bigCached = { signature, model };
    await this.readFinals(model);
    const json = this.cachedJson;
    if (json?.model === model && json.finals === this.finals.size) return { model, json: json.text };
    const text = JSON.stringify(model);
    this.cachedJson = { model, finals: this.finals.size, text };
    return { model, json: text };
  }

  /** The fold's model, its agents made rows a slice at a time (a swarm of 150,000 items has as many). */
  private async modelOf(fold: SessionFold): Promise<SessionModel> {
    const { rest, agents: views } = fold.parts();
    const slicer = new Slicer();
    const agents: AgentRow[] = [];
    for (const view of views) {
      agents.push(agentRow(view, this.finals));
      if (slicer.due()) await slicer.pause();
    }
    return { ...rest, agents };
  }

  private keepFinal(agentId: string, final: string | undefined): void {
    if (!final) return;
    const short = final.length > FINAL_CHARS ? `${final.slice(0, FINAL_CHARS - 1)}…` : final;
    this.finalsChars += short.length - (this.finals.get(agentId)?.length ?? 0);
    this.finals.set(agentId, short);
  }

  /** Reads the answers of the agents that ended since the last call and puts every known answer on the model. */
  private async readFinals(model: SessionModel): Promise<void> {
    const live = model.status === 'running';
    // While a session runs, only its own agents' answers are read (not a thousand swarm items' transcripts).
    const wanted = model.agents.filter(
      (agent) =>
        !(live && agent.swarmId !== undefined) &&
        (agent.endedAt !== undefined || ['completed', 'failed', 'aborted'].includes(agent.state)) &&
        !this.finalsTried.has(`${agent.id}@${agent.endedAt ?? agent.state}`),
    );
    for (const agent of wanted) this.finalsTried.add(`${agent.id}@${agent.endedAt ?? agent.state}`);
    // One listing of agents/ instead of a failed open per agent that never wrote a transcript.
    const written = wanted.length > 0 ? new Set(await readdir(join(this.dir, 'agents')).catch(() => [])) : new Set();
    const readable = wanted.filter((agent) => written.has(agent.id));
    for (let i = 0; i < readable.length; i += FINALS_AT_ONCE) {
      const batch = readable.slice(i, i + FINALS_AT_ONCE);
      const answers = await Promise.all(batch.map((agent) => readFinalMessage(this.home, this.id, agent.id)));
      batch.forEach((agent, j) => this.keepFinal(agent.id, answers[j]));
    }
    // Swarm items' transcripts are packed: one pass over the packs for all of them.
    const packed = new Set(wanted.filter((agent) => !written.has(agent.id)).map((agent) => agent.id));
    if (packed.size > 0)
      for (const [agentId, final] of await packedFinalMessages(this.dir, packed)) this.keepFinal(agentId, final);
    if (this.finals.size === 0) return;
    for (const agent of model.agents) {
      const final = this.finals.get(agent.id);
      if (final) agent.final = final;
    }
  }
}

/**
 * An agent's answer: the last assistant message with text in its transcript, read without blocking and parsed
 * from the end (a transcript of 10,000 messages costs its last few lines, not 10,000 parses).
 */
export async function readFinalMessage(home: string, id: string, agentId: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(join(sessionDir(home, id), 'agents', agentId, 'transcript.jsonl'), 'utf8');
  } catch {
    return undefined;
  }
  for (let end = text.length; end > 0;) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end);
    end = start - 1;
    if (!line.includes('"assistant"')) continue;
    try {
      const message = JSON.parse(line) as Message;
      if (message.role === 'assistant' && message.text.trim()) return message.text.trim();
    } catch {
      // A line cut by a killed process.
    }
  }
  return undefined;
}

/**
 * The status of the run.end that closes a session's events.jsonl, if it has one (read from the last 4 KB): a
 * list shows a session "running" by its state.json until a later save, the events file knows it ended.
 */
export function endedStatus(home: string, id: string): string | undefined {
  const last = readTail(join(sessionDir(home, id), SESSION_EVENTS_FILE), 4096)
    ?.trimEnd()
    .split('\n')
    .at(-1);
  if (!last?.includes('"run.end"')) return undefined;
  try {
    const event = JSON.parse(last) as { type?: string; status?: string };
    return event.type === 'run.end' ? event.status : undefined;
  } catch {
    return undefined;
  }
}
