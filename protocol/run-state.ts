// A session's saved state (`sessions/<id>/state.json`), as types: its agents, tasks, settings and segments. The
// reader, its migrations and the version this murmur writes live in orchestrator/saved-state.ts.
import type { SessionStatus } from './run-status.js';
import type { AgentSummary } from './agents.js';
import type { Interruption } from './interruptions.js';
import type { OutputSpec } from './output.js';
import type { TaskInfo } from './tasks.js';
import type { ToolAccess } from './tool-access.js';
import type { Usage } from './usage.js';

/**
 * The saved state's format version. Changes together with orchestrator/saved-state.ts's SAVED_STATE_VERSION
 * (which is typed against it), with a migration and a fixture.
 */
export type SavedStateVersion = 4;

/** One agent as saved: its summary plus what a resume needs to rebuild it. */
export type SavedAgent = AgentSummary & {
  profile: string;
  swarmId?: string;
  taskId?: string;
  startedAt?: number;
  endedAt?: number;
  depth: number;
  workspaceRoot?: string;
  /** It answers with the run's typed output (`settings.output`). */
  output?: true;
  /** The parent's agent call that started it (a subagent waiting for a person goes on when that call runs again). */
  callId?: string;
};

/**
 * One stretch of the run in one process: when it started, when and how it ended (`completed`, `waiting`, `aborted`,
 * `failed`…); absent `endedAt` = still going, or the process was killed (the next resume closes it at `updatedAt`).
 */
export interface RunSegment {
  startedAt: number;
  endedAt?: number;
  ended?: SessionStatus;
}

export interface SessionState {
  version: SavedStateVersion;
  id: string;
  kind: 'run' | 'swarm';
  createdAt: number;
  updatedAt: number;
  cwd: string;
  model: string;
  task?: string;
  /** `running`, how it ended (`completed`, `failed`, `aborted`…), `interrupted`, or `waiting` (for a person). */
  status: SessionStatus;
  agents: SavedAgent[];
  tasks: TaskInfo[];
  usage: Usage;
  /** The swarm's own saved state (swarm/ reads it back). */
  swarm?: unknown;
  /** How the run was started, so `murmur resume` continues under the same rules and endpoint. */
  settings?: RunSettings;
  /** The "allow always" answers of this session (permission rules, e.g. `bash(npm test)`); never murmur.toml's. */
  sessionRules?: string[];
  /** The calls that wait for a person, with the answers given since (version 2; v1's held.json is read into it). */
  interruptions?: Interruption[];
  /** Each stretch one process ran it, oldest first (version 2; a v1 session has one, from createdAt to updatedAt). */
  segments?: RunSegment[];
  /**
   * Where in the item journal (`journal-<generation>.jsonl`) this snapshot was taken: the swarm's item changes
   * after it are read from there (absent: every journal line is newer; no journal: the snapshot is all).
   */
  journal?: JournalPosition;
  /**
   * Where the settled log (`settled-<segment>.jsonl`) ended when this snapshot was written (version 3): a settled
   * line before it is older than what the snapshot lists, one after it newer (absent: every line is newer).
   */
  settled?: SettledPosition;
}

/** A place in a session's settled log: segment `segment` at byte `offset`. */
export interface SettledPosition {
  segment: number;
  offset: number;
}

/** A place in a session's item journal: lines of `generation` from byte `offset` on, and every later generation. */
export interface JournalPosition {
  generation: number;
  offset: number;
}

/** The command-line choices a resumed run keeps unless they are given again. */
export interface RunSettings {
  permissionMode?: string;
  swarmMode?: boolean;
  baseUrl?: string;
  /** `--effort`, kept so a resumed run thinks as hard. */
  effort?: string;
  /** Agents' shells ran in the sandbox: a resume runs them there too. */
  sandbox?: boolean;
  /** …with the network allowed. */
  sandboxNetwork?: boolean;
  /** The typed output the run's agent (or each swarm item) answers with: its JSON Schema, kept so a resume checks the same. */
  output?: OutputSpec;
  /** `murmur swarm --output-jsonl`: the file (absolute) a resume goes on appending the unwritten items to. */
  outputJsonl?: string;
  /** The run's tool access (the library's `toolAccess`): a resume keeps it. */
  toolAccess?: ToolAccess;
  /** The agents its host defined in code (the library's defineAgent): only the library can resume a session using them. */
  codeAgents?: string[];
}
