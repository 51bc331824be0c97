// Answers given elsewhere (the web console) to what a session waits for. The answer is recorded with its
// interruption in the session's saved state (state.json, read through the one reader, so a v1 session held at a
// call is answered like a new one); the resume that answering starts runs the waiting call with it, exactly where it
// stopped. The caller holds off anyone else running the session.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { Interruption, InterruptionAnswer } from '../protocol/interruptions.js';
import { readSavedState, readSavedStateHead, SAVED_STATE_VERSION } from '../host/session-store.js';

/** What the session in `sessionDir` waits for ([] when nothing, or when its state cannot be read). */
export function readInterruptions(sessionDir: string): Interruption[] {
  // The held calls are the session's own, never its swarm's items: a million of them are not read back for this.
  const read = readSavedStateHead(sessionDir);
  return read.ok ? (read.state.interruptions ?? []) : [];
}

export type Recorded =
  | { ok: true; call: Interruption; calls: Interruption[]; unanswered: number }
  | { ok: false; status: 400 | 404 | 409; error: string };

/**
 * Records `answer` with the interruption `callId` of the session in `sessionDir`. Refused when the session waits for
 * no such call, it was answered already, or `answer` says what is wrong with the answer for that call.
 */
export function recordAnswer(
  sessionDir: string,
  callId: string,
  answer: (call: Interruption) => InterruptionAnswer | string,
  now = Date.now(),
  /** The asking agent, when given: call ids repeat across agents (a swarm's items). */
  agentId?: string,
): Recorded {
  const read = readSavedState(sessionDir);
  if (!read.ok) return { ok: false, status: 404, error: read.error };
  const { state } = read;
  const calls = state.interruptions ?? [];
  const call = calls.find((c) => c.callId === callId && (agentId === undefined || c.agentId === agentId));
  if (!call)
    return {
      ok: false,
      status: 404,
      error: `this session is not waiting for an answer to call ${JSON.stringify(callId)}${calls.length === 0 ? ' (it waits for nothing)' : ''}`,
    };
  if (call.answer !== undefined)
    return { ok: false, status: 409, error: `call ${JSON.stringify(callId)} was answered already` };
  const given = answer(call);
  if (typeof given === 'string') return { ok: false, status: 400, error: given };
  call.answer = given;
  call.answeredAt = now;
  state.interruptions = calls;
  // A current-version file changes in its interruptions alone: its settled agents and ended items stay in the
  // settled log (written back whole, the next resume would append them all again). An older one is saved migrated.
  const file = join(sessionDir, 'state.json');
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const saved = raw.version === SAVED_STATE_VERSION ? { ...raw, interruptions: calls } : state;
  writeFileAtomic.sync(file, `${JSON.stringify(saved)}\n`);
  return { ok: true, call, calls, unanswered: calls.filter((c) => c.answer === undefined).length };
}
