// The console's model of a session read from its state.json alone: a session from before events.jsonl, and a session
// with a big swarm (its swarms then come from their timeline files, big-session.ts, not from a gigabyte of events).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRow, SessionModel } from './session-model.js';
import type { SessionState } from '../../protocol/run-state.js';

/**
 * state.json parsed as it is, without listing a swarm's queued or settled items again (readSavedState does, which
 * costs a million records at that size): for what a summary needs, never for a resume.
 */
export function readStateAsSaved(dir: string): SessionState | undefined {
  try {
    const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as SessionState;
    return typeof state === 'object' && state !== null && typeof state.id === 'string' ? state : undefined;
  } catch {
    return undefined;
  }
}

/** A session without events.jsonl: its agents as saved, no timeline. */
export function fromState(id: string, state: SessionState | undefined): SessionModel {
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
