// A session's saved state (`sessions/<id>/state.json`): its versioned format, and the one reader every resume
// goes through. A file of an older version is migrated on reading; one from a newer murmur, or one that is not a
// session's state at all, is an error as a value that names the file and what is wrong, never a crash halfway
// through a resume. test/fixtures/saved-state/ keeps a session of every version, and a test resumes each.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TaskInfo } from '../tools/adapters.js';
import type { OutputSpec } from '../roles/profile.js';
import type { ToolAccess } from '../roles/filters.js';
import type { AgentSummary, Usage } from './types.js';

/** The version this murmur writes. Raise it (and add a migration and a fixture) when the format changes. */
export const SAVED_STATE_VERSION = 1;

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
};

export interface SessionState {
  version: typeof SAVED_STATE_VERSION;
  id: string;
  kind: 'run' | 'swarm';
  createdAt: number;
  updatedAt: number;
  cwd: string;
  model: string;
  task?: string;
  /** `running`, how it ended (`completed`, `failed`, `aborted`, `interrupted`…), or `waiting-for-approval` (held). */
  status: string;
  agents: SavedAgent[];
  tasks: TaskInfo[];
  usage: Usage;
  /** The swarm's own saved state (swarm/ reads it back). */
  swarm?: unknown;
  /** How the run was started, so `murmur resume` continues under the same rules and endpoint. */
  settings?: RunSettings;
  /** The "allow always" answers of this session (permission rules, e.g. `bash(npm test)`); never murmur.toml's. */
  sessionRules?: string[];
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

export type SavedStateRead = { ok: true; state: SessionState } | { ok: false; error: string };

/** Each past version's step to the next one, by the version it reads. Version 1 is the first: none yet. */
const MIGRATIONS: Record<number, (state: Record<string, unknown>) => Record<string, unknown>> = {};

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

/** Reads and checks a saved state given as parsed JSON, migrating an older version; `file` names it in errors. */
export function parseSavedState(raw: unknown, file: string): SavedStateRead {
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
  for (let v = version; v < SAVED_STATE_VERSION; v++) state = { ...MIGRATIONS[v]!(state), version: v + 1 };
  const problem = shapeProblem(state);
  if (problem) return { ok: false, error: `${file} is not a valid saved state: ${problem}` };
  return { ok: true, state: state as unknown as SessionState };
}

/** The saved state of the session in `dir`. */
export function readSavedState(dir: string): SavedStateRead {
  const file = join(dir, 'state.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { ok: false, error: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
  try {
    return parseSavedState(JSON.parse(text), file);
  } catch (error) {
    return { ok: false, error: `${file} is not valid JSON: ${(error as Error).message}` };
  }
}
