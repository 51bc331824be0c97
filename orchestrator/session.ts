// A session on disk: `.murmur/sessions/<id>/` with state.json (atomic), the transcripts (appended as messages
// happen, by the TranscriptWriter of transcript-writer.ts: one file per agent, swarm items' packed together), task
// logs and spilled tool outputs. A killed process leaves a session that can be resumed.
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { type Clock, systemClock } from './clock.js';
import type { Message } from './types.js';
import type { Environment } from './environment.js';
import { DEFAULT_TRANSIENT_RETRY, fsErrorText, retryTransient, type TransientRetry } from './append-fs.js';
import { isQueuedFile } from './queued-items.js';
import { SettledLog } from './settled-log.js';
import { SnapshotCompactor } from './snapshot-compactor.js';
import { ItemJournal, type JournalLine, type JournalPosition } from './session-journal.js';
import { nextPackPath, packLine, readPacked, resetLine, type Transcript } from './transcript-pack.js';

export interface SessionLocation {
  /** The state folder: `MURMUR_HOME`, else `<workspace>/.murmur`. */
  home: string;
  id: string;
}

export function stateHome(workspace: string, env: Environment = process.env): string {
  return env.MURMUR_HOME ? resolve(workspace, env.MURMUR_HOME) : join(workspace, '.murmur');
}

/** `20261130-021503-ab12`: the time (UTC, from the caller's clock) and a random suffix. */
export function newSessionId(now: number | Date = systemClock.now()): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

const STATE_WRITE_INTERVAL_MS = 200;
/**
 * A snapshot holds every agent and item: a big one waits this many times what the last one's text cost to make, so
 * snapshots never hold the event loop more than a tenth of the run. The journal has each item's change meanwhile.
 */
const STATE_COST_FACTOR = 10;

export class SessionStore {
  readonly dir: string;
  readonly toolOutputsDir: string;
  /** Where this process appends swarm items' transcripts (transcript-pack.ts). */
  readonly transcriptPack: string;
  private pendingState: (() => unknown) | undefined;
  private stateTimer: unknown;
  private stateWrite: Promise<void> = Promise.resolve();
  /** state.json exists (a reopened session's, or written by this store). */
  private stateOnDisk: boolean;
  /** Why the last write of state.json failed (cleared by a later one that succeeds). */
  private stateFailure: string | undefined;
  /** How a state write waits out a shortage of file handles (tests shorten it). */
  stateRetry: TransientRetry = DEFAULT_TRANSIENT_RETRY;
  /** The session's own swarm's item changes, appended as they happen (session-journal.ts). */
  private readonly journal: ItemJournal;
  /** Settled agents' rows and ended items' records, each appended once (settled-log.ts). */
  private readonly settledLog: SettledLog;
  private readonly compactor: SnapshotCompactor;
  /** What the last snapshot's text cost to make (clock ms): spaces the next one. */
  private stateCostMs = 0;

  private constructor(
    readonly home: string,
    readonly id: string,
    private readonly clock: Clock,
    /** Made by this process (create), not reopened (open). */
    private readonly created: boolean,
  ) {
    this.dir = join(home, 'sessions', id);
    this.toolOutputsDir = join(this.dir, 'tool-outputs');
    this.transcriptPack = nextPackPath(this.dir);
    this.journal = new ItemJournal(this.dir);
    this.settledLog = new SettledLog(this.dir);
    this.compactor = new SnapshotCompactor(this.settledLog);
    this.stateOnDisk = !created;
  }

  /** A new session under `home`; its id is made from the clock's time unless given. */
  static create(home: string, id?: string, clock: Clock = systemClock): SessionStore {
    const store = new SessionStore(home, id ?? newSessionId(clock.now()), clock, true);
    ignoreRunState(home);
    mkdirSync(store.toolOutputsDir, { recursive: true });
    mkdirSync(join(store.dir, 'agents'), { recursive: true });
    mkdirSync(join(store.dir, 'tasks'), { recursive: true });
    return store;
  }

  /** Opens an existing session; throws a message naming the id and listing the known ones when it is missing. */
  static open(home: string, id: string, clock: Clock = systemClock): SessionStore {
    // An id names a folder under sessions/: never a path (`../x` would reach outside the state folder).
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id))
      throw new Error(`"${id}" is not a session id (letters, digits, ".", "_" and "-"; see murmur sessions)`);
    const store = new SessionStore(home, id, clock, false);
    if (!existsSync(join(store.dir, 'state.json'))) {
      const known = listSessions(home);
      const hint =
        known.length > 0
          ? ` Known sessions: ${known.slice(-10).join(', ')}.`
          : ` No sessions exist under ${join(home, 'sessions')}.`;
      throw new Error(`no session "${id}" (looked for ${join(store.dir, 'state.json')}).${hint}`);
    }
    mkdirSync(store.toolOutputsDir, { recursive: true });
    return store;
  }

  agentDir(agentId: string): string {
    return join(this.dir, 'agents', agentId);
  }

  transcriptPath(agentId: string): string {
    return join(this.agentDir(agentId), 'transcript.jsonl');
  }

  /** The messages of a transcript, and whether its end was damaged (a line cut by a killed process). */
  readTranscript(agentId: string): Transcript {
    return readSessionTranscripts(this.dir, [agentId]).get(agentId)!;
  }

  /** The transcripts of `ids`, read in one pass over the packs. */
  readTranscripts(ids: Iterable<string>): Map<string, Transcript> {
    return readSessionTranscripts(this.dir, ids);
  }

  /**
   * Replaces a transcript at once: after a repair, before the agent runs again, so later appends follow whole
   * lines and the transcript is the conversation the agent continues from. A swarm item's (`packed`) goes to this
   * process's pack after a reset line; another's file is rewritten atomically.
   */
  replaceTranscript(agentId: string, messages: readonly Message[], packed = false): void {
    if (packed) {
      appendFileSync(this.transcriptPack, resetLine(agentId) + messages.map((m) => packLine(agentId, m)).join(''));
      return;
    }
    mkdirSync(this.agentDir(agentId), { recursive: true });
    writeFileAtomic.sync(this.transcriptPath(agentId), messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
  }

  /**
   * Schedules an atomic write of the state; writes coalesce so a burst of changes costs one write. The first one
   * of a new session is written at once: from then on the session can be resumed (its journal replays onto it).
   */
  saveState(snapshot: () => unknown): void {
    if (!this.stateOnDisk) {
      this.stateOnDisk = true;
      if (this.writeFirstState(snapshot)) return;
    }
    this.pendingState = snapshot;
    if (this.stateTimer !== undefined) return;
    this.stateTimer = this.clock.setTimeout(
      () => {
        this.stateTimer = undefined;
        void this.writeStateNow();
      },
      Math.max(STATE_WRITE_INTERVAL_MS, STATE_COST_FACTOR * this.stateCostMs),
    );
  }

  /**
   * Appends an item's change to the journal now (one write, before any event tells of it), so a resume reads it
   * even if the process dies before the next state.json. Never throws.
   */
  journalItem(line: JournalLine): void {
    this.journal.append(line);
    if (this.journal.failure) this.stateFailure ??= `the item journal could not be written (${this.journal.failure})`;
  }

  /** The first state of a new session, written before the call returns; false (and coalesced later) when it fails. */
  private writeFirstState(snapshot: () => unknown): boolean {
    const journal = this.journal.positionForSnapshot();
    try {
      writeFileAtomic.sync(join(this.dir, 'state.json'), this.stateText(snapshot, journal));
      return true;
    } catch {
      return false;
    }
  }

  private stateText(snapshot: () => unknown, journal: JournalPosition): string {
    // Settled agents and ended items go to the settled log once, not into every snapshot; no indentation either.
    const compact = this.compactor.compact(snapshot() as object);
    return JSON.stringify({ ...compact, journal, settled: this.settledLog.position() });
  }

  private writeStateNow(): Promise<void> {
    if (!this.pendingState) return this.stateWrite;
    const file = join(this.dir, 'state.json');
    // The snapshot is taken when the previous write is done: on a slow disk changes coalesce into the next write
    // instead of queueing a copy of a 10,000-agent state every 200 ms.
    this.stateWrite = this.stateWrite.then(() => {
      const snapshot = this.pendingState;
      this.pendingState = undefined;
      if (!snapshot) return;
      // Taken with the snapshot (same tick): journal lines after this position are newer than the snapshot.
      const journal = this.journal.positionForSnapshot();
      // The cost is the text's making, which holds the event loop; the write runs off it (and the next snapshot
      // waits for it). Timing the write too counted every other task the loop ran meanwhile: with a busy swarm a
      // big snapshot seemed to cost seconds, the next waited ten times that, and ended items waited as long to
      // leave memory for the settled log.
      const started = this.clock.now();
      const text = this.stateText(snapshot, journal);
      const cost = this.clock.now() - started;
      return retryTransient(() => writeFileAtomic(file, text), this.stateRetry).then(
        () => {
          this.stateCostMs = cost;
          this.stateFailure = undefined;
          this.journal.pruneBefore(journal);
        },
        (error: unknown) => {
          this.stateFailure = `${file} could not be saved (${fsErrorText(error)})`;
          process.emitWarning(`murmur: cannot save the session state: ${fsErrorText(error)}`);
        },
      );
    });
    return this.stateWrite;
  }

  /** Why the saved state is behind the run (its last write failed after retries), or undefined. */
  get stateLoss(): string | undefined {
    return this.stateFailure;
  }

  loadState<T>(): T {
    return JSON.parse(readFileSync(join(this.dir, 'state.json'), 'utf8')) as T;
  }

  /**
   * Removes a session made by this process for a run refused before it started: no state, no transcript, no file
   * but the log of its setup's events. A reopened session, or one holding anything else (a scheduled run's marker),
   * is kept.
   */
  discardIfUnused(): void {
    if (!this.created || existsSync(join(this.dir, 'state.json'))) return;
    if (!holdsNothing(this.dir, true)) return;
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Writes pending state now (transcripts are the TranscriptWriter's to flush). */
  async flush(): Promise<void> {
    if (this.stateTimer !== undefined) {
      this.clock.clearTimeout(this.stateTimer);
      this.stateTimer = undefined;
    }
    await this.writeStateNow();
    this.journal.close();
    this.settledLog.close();
  }
}

/**
 * Keeps sessions and worktrees out of version control and out of the agents' own grep and glob (both honour
 * nested .gitignore files); agent definitions and skills next to them stay visible. A spilled tool output is
 * still searched when named explicitly.
 */
function ignoreRunState(home: string): void {
  const file = join(home, '.gitignore');
  try {
    // One written before it named itself is brought up to date; one a person changed is theirs.
    if (existsSync(file) && readFileSync(file, 'utf8') !== OLD_IGNORE) return;
    mkdirSync(home, { recursive: true });
    writeFileSync(file, RUN_STATE_IGNORE, { flag: existsSync(file) ? 'w' : 'wx' });
  } catch {
    // Another process wrote it first, or the folder is read-only: both are fine.
  }
}

/**
 * Sessions and worktrees, and this file itself (a workspace's `git status` stays as it was); agent definitions
 * and skills beside them are left for version control.
 */
const RUN_STATE_IGNORE =
  "# murmur's run state: not for version control, nor for the agents' searches\nsessions/\nworktrees/\n.gitignore\n";
const OLD_IGNORE =
  "# murmur's run state: not for version control, nor for the agents' searches\nsessions/\nworktrees/\n";

/** What a session holds before its run starts: the events log of its setup, and a planned swarm's queued items. */
const SETUP_FILES = new Set(['events.jsonl']);
const isSetupFile = (name: string) => SETUP_FILES.has(name) || isQueuedFile(name);

/** Only empty folders (and, at the top, the files of its setup). */
function holdsNothing(dir: string, top: boolean): boolean {
  try {
    return readdirSync(dir, { withFileTypes: true }).every((entry) =>
      entry.isDirectory() ? holdsNothing(join(dir, entry.name), false) : top && isSetupFile(entry.name),
    );
  } catch {
    return false;
  }
}

export function listSessions(home: string): string[] {
  try {
    return readdirSync(join(home, 'sessions')).sort();
  } catch {
    return [];
  }
}

/**
 * The transcripts of `ids` in a session folder, without opening the session (viewers only look): each agent's own
 * file (one folder listing, not a failed open per agent), then its lines in the packs.
 */
export function readSessionTranscripts(dir: string, ids: Iterable<string>): Map<string, Transcript> {
  const own = new Set(listOrNothing(join(dir, 'agents')));
  const out = new Map<string, Transcript>();
  for (const id of ids)
    out.set(id, own.has(id) ? readTranscriptFile(join(dir, 'agents', id, 'transcript.jsonl')) : emptyTranscript());
  readPacked(dir, out);
  return out;
}

function emptyTranscript(): Transcript {
  return { messages: [], damaged: false };
}

function listOrNothing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * A transcript file's messages (none when it does not exist), read without opening a session (the web console and
 * `murmur report` only look). It stops at a damaged line: a line cut by a killed process; everything before is intact.
 */
export function readTranscriptFile(path: string): { messages: Message[]; damaged: boolean } {
  if (!existsSync(path)) return { messages: [], damaged: false };
  const text = readFileSync(path, 'utf8');
  const messages: Message[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      messages.push(JSON.parse(line) as Message);
    } catch {
      return { messages, damaged: true };
    }
  }
  return { messages, damaged: text.length > 0 && !text.endsWith('\n') };
}
