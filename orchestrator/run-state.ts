// The run's state as it is saved (`state.json`, protocol/run-state.ts): built from the engine's parts in one place,
// so what a resume reads back is exactly what the run wrote.
import type { Interruption } from '../protocol/interruptions.js';
import type { SessionStatus } from '../protocol/run-status.js';
import type { RunSettings, SavedAgent, SessionState } from '../protocol/run-state.js';
import type { TaskInfo } from '../protocol/tasks.js';
import type { Usage } from '../protocol/usage.js';
import type { RunSegments } from './run-segments.js';
import { SAVED_STATE_VERSION } from './saved-state.js';

/** What the saved state is made of, read from the engine at the moment of the save. */
export interface RunStateParts {
  id: string;
  kind: 'run' | 'swarm';
  createdAt: number;
  now: number;
  cwd: string;
  model: string;
  status: SessionStatus;
  /** Every agent of the run as saved, settled ones included, in the order they were spawned. */
  agents: SavedAgent[];
  tasks: TaskInfo[];
  usage: Usage;
  task: string | undefined;
  /** The session's own swarm's state (swarm/ reads it back). */
  swarm: unknown;
  settings: RunSettings | undefined;
  sessionRules: readonly string[];
  interruptions: Interruption[];
  segments: RunSegments;
}

export function runStateOf(parts: RunStateParts): SessionState {
  const state: SessionState = {
    version: SAVED_STATE_VERSION,
    id: parts.id,
    kind: parts.kind,
    createdAt: parts.createdAt,
    updatedAt: parts.now,
    cwd: parts.cwd,
    model: parts.model,
    status: parts.status,
    agents: parts.agents,
    tasks: parts.tasks,
    usage: { ...parts.usage },
  };
  if (parts.task !== undefined) state.task = parts.task;
  if (parts.swarm !== undefined) state.swarm = parts.swarm;
  if (parts.settings) state.settings = parts.settings;
  if (parts.sessionRules.length > 0) state.sessionRules = [...parts.sessionRules];
  if (parts.interruptions.length > 0) state.interruptions = parts.interruptions;
  if (parts.segments.size > 0) state.segments = parts.segments.saved();
  return state;
}
