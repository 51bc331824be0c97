import type { InteractionAdapters } from './adapters-interaction.js';

// The seams through which tools reach the engine. The engine implements them; tools only see these types.

/** Where a tool may touch files. */
export interface WorkspacePolicy {
  /** Absolute, real path of the workspace root. */
  root: string;
  /** Further absolute roots that configuration allows. */
  extraRoots: readonly string[];
  /** Glob patterns (workspace-relative) of sensitive files that configuration explicitly allows to be read. */
  allowSensitive: readonly string[];
  /**
   * gitignore-style patterns (workspace-relative) that grep and glob never list or search: the paths a
   * `read(…)` deny rule keeps from the agents, so a search of the whole workspace cannot reach them either.
   */
  hidden?: readonly string[];
}

/** What one agent last saw of a file, so an edit can refuse a file that changed since. */
export interface FileReadLedger {
  recordRead(absPath: string, stamp: FileStamp): void;
  lastRead(absPath: string): FileStamp | undefined;
}

export interface FileStamp {
  mtimeMs: number;
  size: number;
}

/** Folders of the current session on disk. */
export interface SessionPaths {
  dir: string;
  toolOutputsDir: string;
}

export type TaskKind = 'bash' | 'agent' | 'question';
export type TaskStatus = 'running' | 'completed' | 'failed' | 'timeout' | 'aborted' | 'stopped';

export interface TaskRunIO {
  signal: AbortSignal;
  /** Appends to the task's output log. */
  write(chunk: string): void;
}

export interface TaskOutcome {
  status: Exclude<TaskStatus, 'running'>;
  /** The short result reported back to the owner (an agent's last message, an exit code line). */
  result?: string;
}

export interface TaskSpec {
  kind: TaskKind;
  description: string;
  /** Milliseconds; undefined = no timeout. */
  timeoutMs?: number;
  /** Extra facts kept with the task (the agent id of a background agent…). */
  meta?: Record<string, string>;
  run(io: TaskRunIO): Promise<TaskOutcome>;
}

export interface TaskInfo {
  taskId: string;
  kind: TaskKind;
  description: string;
  status: TaskStatus;
  ownerAgentId: string;
  startedAt: number;
  endedAt?: number;
  result?: string;
  outputPath: string;
  meta?: Record<string, string>;
}

/** The background task registry, as one agent sees it. */
export interface BackgroundTasks {
  start(spec: TaskSpec): TaskInfo;
  list(options: { activeOnly: boolean; limit: number }): TaskInfo[];
  get(taskId: string): TaskInfo | undefined;
  /** Resolves when the task ends or the timeout passes (then with the task still running). */
  wait(taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<TaskInfo | undefined>;
  /** The last `maxBytes` of the task's log. */
  tail(taskId: string, maxBytes: number): Promise<string>;
  stop(taskId: string, reason: string): TaskInfo | undefined;
}

/** Secret-like environment variables removed from child processes. */
export interface EnvPolicy {
  /** Glob-like name patterns, such as `*_API_KEY`. */
  secretPatterns: readonly string[];
}

export interface SubagentRequest {
  prompt: string;
  description: string;
  /** A built-in role or a defined agent; absent = the default (`coder`). */
  subagentType?: string;
  /** An earlier subagent of this parent to continue. */
  resume?: string;
  background: boolean;
}

export interface SubagentOutcome {
  agentId: string;
  subagentType: string;
  /** `running` for a background start. */
  status: string;
  /** The subagent's last message (empty for a background start). */
  text: string;
  reason?: string;
  taskId?: string;
}

/** How the agent tool reaches the scheduler. */
export interface SubagentAdapter {
  /** The subagent types this agent may start. */
  allowedTypes(): readonly string[];
  run(request: SubagentRequest, signal: AbortSignal): Promise<{ ok: true; outcome: SubagentOutcome } | { ok: false; error: string }>;
}

/** How set_timer reaches the timer service. */
export interface TimerAdapter {
  set(delayMinutes: number, message: string): { timerId: string; dueAt: number };
}

export interface SwarmRequest {
  promptTemplate?: string;
  items: readonly string[];
  subagentType?: string;
  resumeAgentIds?: readonly string[];
  resumePrompt?: string;
  description?: string;
  verify?: boolean;
  maxRounds?: number;
  isolation?: 'none' | 'worktree';
}

/** How agent_swarm reaches the swarm. */
export interface SwarmAdapter {
  run(request: SwarmRequest, signal: AbortSignal, onProgress: (text: string) => void): Promise<{ ok: true; report: string; isError: boolean } | { ok: false; error: string }>;
}

/**
 * Every adapter is optional: a host fills in what it has (the engine fills in all of these; a test or an
 * embedding may hand a tool less). A tool whose adapter is missing answers with an error result saying what is
 * not available here, never throws; the catalog's filters normally keep such a tool from being offered at all.
 */
export interface ToolAdapters extends InteractionAdapters {
  /** Start and resume subagents (agent). Missing: no delegation here. */
  agents?: SubagentAdapter;
  /** Deliver a message to this agent later (set_timer). */
  timers?: TimerAdapter;
  /** Run a swarm under this agent (agent_swarm). */
  swarm?: SwarmAdapter;
  /** Where paths may point. Missing: the file tools confine themselves to `ctx.cwd` with no extra roots. */
  workspace?: WorkspacePolicy;
  /** What this agent last read, so edit refuses a file that changed since. Missing: no such check. */
  reads?: FileReadLedger;
  /** The session's folders (spilled outputs, plans; read may open them). Missing: plans go under `<cwd>/.murmur/plans`. */
  session?: SessionPaths;
  /** This agent's background tasks (bash in the background, background subagents, task_* tools). */
  tasks?: BackgroundTasks;
  /** Which environment variables child processes never see. Missing: only the built-in secret names. */
  env?: EnvPolicy;
  /** murmur-tools: this agent's lease for the commands bash runs. Missing: the bridge is off for this agent. */
  shellBridge?: ShellBridgeAdapter;
}

/** What bash adds to a command's environment (after the secrets are stripped) so murmur-tools reaches the host. */
export interface ShellBridgeLease {
  /** MURMUR_TOOLS_LEASE and MURMUR_TOOLS_ENDPOINT. */
  variables: Record<string, string>;
  /** The folder holding the murmur-tools command: put first on PATH. */
  binDir: string;
}

export interface ShellBridgeAdapter {
  /** The agent's current lease (a new one after the last was revoked); undefined when the bridge cannot start. */
  lease(): Promise<ShellBridgeLease | undefined>;
}
