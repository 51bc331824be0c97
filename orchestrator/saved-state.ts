// A session's saved state (`sessions/<id>/state.json`): the version this murmur writes (the format's types are
// protocol/run-state.ts's), and the one reader every resume goes through. A file of an older version is migrated on reading; one from a newer murmur, or one that is not a
// session's state at all, is an error as a value that names the file and what is wrong, never a crash halfway
// through a resume. test/fixtures/saved-state/ keeps a session of every version, and a test resumes each.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Interruption } from '../protocol/interruptions.js';
import type { SavedStateVersion, SessionState } from '../protocol/run-state.js';
import type { SessionStatus } from '../protocol/run-status.js';
import { listQueued } from './queued-items.js';
import { replayJournal } from './session-journal.js';
import { withSettled } from './settled-log.js';

export type { RunSegment, RunSettings, SavedAgent, SavedStateVersion, SessionState } from '../protocol/run-state.js';

/**
 * The version this murmur writes. Raise it (and add a migration and a fixture) when the format changes; it and
 * protocol/run-state.ts's SavedStateVersion change together.
 */
export const SAVED_STATE_VERSION: SavedStateVersion = 4;

export type SavedStateRead = { ok: true; state: SessionState } | { ok: false; error: string };

/** A v1 session held at calls for a person kept them in held.json beside its state. */
const V1_HELD_FILE = 'held.json';

/**
 * v1 → v2: a session held for a person (`waiting-for-approval`, held.json) waits as data: its held calls are its
 * interruptions, the agents that made them (and the parents waiting on them) are `waiting`; one segment from its
 * start to its last save.
 */
function v1ToV2(state: Record<string, unknown>, held: unknown[] | undefined): Record<string, unknown> {
  const next: Record<string, unknown> = { ...state };
  const createdAt = typeof state.createdAt === 'number' ? state.createdAt : undefined;
  const updatedAt = typeof state.updatedAt === 'number' ? state.updatedAt : createdAt;
  const wasHeld = state.status === 'waiting-for-approval';
  if (wasHeld) next.status = 'waiting';
  if (createdAt !== undefined)
    next.segments = [{ startedAt: createdAt, endedAt: updatedAt, ended: wasHeld ? 'waiting' : state.status }];
  const calls = (held ?? []).filter(
    (c): c is Interruption =>
      typeof c === 'object' &&
      c !== null &&
      typeof (c as Interruption).agentId === 'string' &&
      typeof (c as Interruption).callId === 'string',
  );
  if (calls.length === 0 || !Array.isArray(state.agents)) return next;
  next.interruptions = calls.map(({ replay: _replay, ...call }: Interruption & { replay?: unknown }) => call);
  const agents = (state.agents as Record<string, unknown>[]).map((a) => ({ ...a }));
  const byId = new Map(agents.map((a) => [a.id, a]));
  for (const call of calls) {
    // The asking agent, then each parent that was waiting on it, was still `running` when the hold saved the state.
    for (let a = byId.get(call.agentId); a && a.status === 'running'; a = byId.get(a.parentId)) a.status = 'waiting';
  }
  next.agents = agents;
  return next;
}

/**
 * v2 → v3: nothing moves. Version 3 may leave settled agents and ended items out (`null` items) for the settled
 * log, which the reader has put back before this; a v2 state lists everything.
 */
function v2ToV3(state: Record<string, unknown>): Record<string, unknown> {
  return state;
}

/**
 * v3 → v4: nothing moves. Version 4 may list only a swarm's first items and name the file of the rest, as queued
 * (`swarm.queuedItems`), which the reader has listed again before this; a v3 state lists every item.
 */
function v3ToV4(state: Record<string, unknown>): Record<string, unknown> {
  return state;
}

/** Each past version's step to the next one, by the version it reads (with the v1 held calls, for v1 → v2). */
const MIGRATIONS: Record<
  number,
  (state: Record<string, unknown>, held: unknown[] | undefined) => Record<string, unknown>
> = { 1: v1ToV2, 2: v2ToV3, 3: v3ToV4 };

function shapeProblem(state: Record<string, unknown>): string | undefined {
  if (typeof state.id !== 'string' || state.id === '') return '"id" is missing';
  if (state.kind !== 'run' && state.kind !== 'swarm')
    return `"kind" is ${JSON.stringify(state.kind)}, not "run" or "swarm"`;
  if (typeof state.status !== 'string') return '"status" is missing';
  if (!Array.isArray(state.agents)) return '"agents" is not a list';
  for (const agent of state.agents as unknown[]) {
    const a = agent as Record<string, unknown> | null;
    if (!a || typeof a.id !== 'string' || typeof a.profile !== 'string' || typeof a.depth !== 'number')
      return `an agent entry lacks "id", "profile" or "depth": ${JSON.stringify(agent).slice(0, 120)}`;
  }
  if (!Array.isArray(state.tasks)) return '"tasks" is not a list';
  return undefined;
}

/**
 * Reads and checks a saved state given as parsed JSON, migrating an older version; `file` names it in errors.
 * `held`: a v1 session's held calls (its held.json), which become its interruptions.
 */
export function parseSavedState(raw: unknown, file: string, held?: unknown[]): SavedStateRead {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, error: `${file} is not a session's saved state (not a JSON object)` };
  let state = raw as Record<string, unknown>;
  const version = state.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1)
    return { ok: false, error: `${file} has no valid "version" (got ${JSON.stringify(version)})` };
  if (version > SAVED_STATE_VERSION) {
    return {
      ok: false,
      error: `${file} was saved by a newer murmur (state version ${version}); this murmur reads versions 1 to ${SAVED_STATE_VERSION}: upgrade murmur to resume it`,
    };
  }
  for (let v = version; v < SAVED_STATE_VERSION; v++) state = { ...MIGRATIONS[v]!(state, held), version: v + 1 };
  const problem = shapeProblem(state);
  if (problem) return { ok: false, error: `${file} is not a valid saved state: ${problem}` };
  return { ok: true, state: state as unknown as SessionState };
}

/** state.json's text parsed, or why it could not be (the file named). */
function readRawState(file: string): { ok: true; raw: unknown } | { ok: false; error: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { ok: false, error: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
  try {
    return { ok: true, raw: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: `${file} is not valid JSON: ${(error as Error).message}` };
  }
}

/** The saved state of the session in `dir`. */
export function readSavedState(dir: string): SavedStateRead {
  const file = join(dir, 'state.json');
  const text = readRawState(file);
  if (!text.ok) return text;
  let raw = text.raw;
  // Version 3 leaves settled agents and ended items out of state.json: they are in the settled log.
  if (typeof raw === 'object' && raw !== null) {
    const merged = withSettled(dir, raw as Record<string, unknown>);
    if (!merged.ok) return { ok: false, error: `${file}: ${merged.error}` };
    // Version 4 may leave a swarm's waiting items out too: they are in its queued-<swarm>.jsonl.
    const listed = listQueued(dir, merged.state);
    if (!listed.ok) return { ok: false, error: `${file}: ${listed.error}` };
    raw = listed.state;
  }
  const read = parseSavedState(raw, file, readV1Held(dir));
  if (!read.ok || read.state.swarm === undefined) return read;
  // The swarm's item changes since the snapshot (the journal's lines after its position) are part of the state.
  const swarm = replayJournal(dir, read.state);
  return swarm === read.state.swarm ? read : { ok: true, state: { ...read.state, swarm } };
}

/**
 * The session's own state as saved (an older version read as the current one), without its swarm's items read back
 * from the settled log, the queued file or the journal: what a status line or the held calls need, in milliseconds
 * for a session of a million items. Never for a resume (its swarm is the snapshot's part).
 */
export function readSavedStateHead(dir: string): SavedStateRead {
  const file = join(dir, 'state.json');
  const read = readRawState(file);
  return read.ok ? parseSavedState(read.raw, file, readV1Held(dir)) : read;
}

/** The session's status as saved (see readSavedStateHead). */
export function readSavedStatus(dir: string): SessionStatus | undefined {
  const read = readSavedStateHead(dir);
  return read.ok ? read.state.status : undefined;
}

/** A v1 session's held calls (held.json), or undefined. */
function readV1Held(dir: string): unknown[] | undefined {
  const file = join(dir, V1_HELD_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const calls = (JSON.parse(readFileSync(file, 'utf8')) as { calls?: unknown }).calls;
    return Array.isArray(calls) ? calls : undefined;
  } catch {
    return undefined;
  }
}
