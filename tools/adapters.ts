// What a tool knows of the calling agent (AgentFacts, on every ToolContext) and the seams it shares with the
// engine: the workspace policy, the read ledger, background tasks, and the per-agent ports of the agent and
// agent_swarm tools (SubagentAdapter, SwarmAdapter). The engine implements them; tools only see these types.
import type {
  PlanModeAdapter,
  SearchAdapter,
  SkillCatalog,
  TodoStore,
  UserChannel,
  WebPolicy,
} from './adapters-interaction.js';
import type { TaskEndStatus, TaskInfo, TaskKind } from '../protocol/tasks.js';

export type { BackgroundTaskStatus, TaskEndStatus, TaskInfo, TaskKind } from '../protocol/tasks.js';

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

export interface TaskRunIO {
  signal: AbortSignal;
  /** Appends to the task's output log. */
  write(chunk: string): void;
}

export interface TaskOutcome {
  status: TaskEndStatus;
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

/** What child processes get: secret-like environment variables removed, and the sandbox they run in. */
export interface EnvPolicy {
  /** Glob-like name patterns, such as `*_API_KEY`. */
  secretPatterns: readonly string[];
  /** Run every bash command in this sandbox. Missing: commands run as the user, unconfined. */
  sandbox?: ShellSandbox;
}

/** The run's sandbox for agents' shells (tools/shell/sandbox.ts), checked to work before the run started. */
export interface ShellSandbox {
  /** The bubblewrap executable. */
  bwrap: string;
  /** Whether commands may reach the network (`[sandbox] network`). */
  network: boolean;
  /** The run's workspace root (a worktree agent sees it read-only). */
  runRoot: string;
  /** murmur's state folders (the workspace's `.murmur/`, MURMUR_HOME): not visible to commands. */
  stateDirs: readonly string[];
  /** Folders inside those shown again, read-only (skills, whose scripts commands run). */
  readable: readonly string[];
  /** A verifier's shell in the run's own workspace: read-only there but for git-ignored folders. */
  readOnlyWorkspace?: boolean;
}

export interface SubagentRequest {
  prompt: string;
  description: string;
  /** A built-in role or a defined agent; absent = the default (`coder`). */
  subagentType?: string;
  /** An earlier subagent of this parent to continue. */
  resume?: string;
  background: boolean;
  /** The parent's call: a subagent it started that waits for a person goes on (answered) when the call runs again. */
  callId?: string;
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

/**
 * How the agent tool reaches the agent tree: one per parent agent, made when that agent is configured.
 * Contract: `allowedTypes` never throws. `run` answers a refusal (unknown type, spawn cap, a subagent still running)
 * as `{ ok: false, error }` naming what would be accepted, and a subagent that failed as an outcome; it rejects only
 * on a fault (a background task's log that cannot be created), which the tool call reports as its error.
 */
export interface SubagentAdapter {
  /** The subagent types this agent may start. */
  allowedTypes(): readonly string[];
  run(
    request: SubagentRequest,
    signal: AbortSignal,
  ): Promise<{ ok: true; outcome: SubagentOutcome } | { ok: false; error: string }>;
}

/** @deprecated The per-agent timer seam of the earlier ToolContext; set_timer now takes a TimerPort (ports.ts). */
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

/**
 * How agent_swarm reaches the swarm: one per calling agent, made when that agent is configured. Contract: a
 * request the swarm refuses is `{ ok: false, error }`; a swarm that ran is its report (`isError` when no item
 * completed); `onProgress` gets progress lines while it runs; `run` rejects only on a fault, which the tool call
 * reports as its error.
 */
export interface SwarmAdapter {
  run(
    request: SwarmRequest,
    signal: AbortSignal,
    onProgress: (text: string) => void,
  ): Promise<{ ok: true; report: string; isError: boolean } | { ok: false; error: string }>;
}

/**
 * What the engine tells a tool about the calling agent. Each is optional (a test or an embedding may hand a tool
 * less) and has a stated default; the engine fills workspace, reads and env for every agent, session when the run
 * has one, shellBridge where the bridge is on. Services (background tasks, subagents, the user, todos…) are not
 * here: a tool that needs one receives it as a port when it is made (see ports.ts).
 */
export interface AgentFacts {
  /** Where paths may point. Missing: the file tools confine themselves to `ctx.cwd` with no extra roots. */
  workspace?: WorkspacePolicy;
  /** What this agent last read, so edit refuses a file that changed since. Missing: no such check. */
  reads?: FileReadLedger;
  /** The session's folders (spilled outputs, plans; read may open them). Missing: plans go under `<cwd>/.murmur/plans`. */
  session?: SessionPaths;
  /** Which environment variables child processes never see. Missing: only the built-in secret names. */
  env?: EnvPolicy;
  /** murmur-tools: this agent's lease for the commands bash runs. Missing: the bridge is off for this agent. */
  shellBridge?: ShellBridgeAdapter;
  /**
   * Names of the skills whose instructions led to this call, outermost first. The engine passes a skill's
   * chain (the `chain` in the skill tool's result details) down to the work that skill starts, so nesting
   * can be capped. Missing = no skill active.
   */
  skillChain?: readonly string[];
}

/**
 * The service adapters the context used to carry. Kept so code written against the earlier ToolContext compiles;
 * the engine fills none of them any more: built-in tools receive these as ports when they are made.
 */
export interface LegacyToolAdapters {
  /** @deprecated Never filled: the agent tool is made with its SubagentAdapter (createAgentTool). */
  agents?: SubagentAdapter;
  /** @deprecated Never filled: set_timer is made with its TimerPort (createSetTimerTool). */
  timers?: TimerAdapter;
  /** @deprecated Never filled: agent_swarm is made with its SwarmAdapter (createAgentSwarmTool). */
  swarm?: SwarmAdapter;
  /** @deprecated Never filled: the task tools are made with the TaskStore (createTaskTools). */
  tasks?: BackgroundTasks;
  /** @deprecated Never filled: ask_user_question is made with its UserChannel. */
  user?: UserChannel;
  /** @deprecated Never filled: todo_list is made with its TodoStore. */
  todos?: TodoStore;
  /** @deprecated Never filled: the skill tool is made with the agent's SkillCatalog. */
  skills?: SkillCatalog;
  /** @deprecated Never filled: fetch_url is made with its WebPolicy. */
  web?: WebPolicy;
  /** @deprecated Never filled: web_search is made with its SearchAdapter. */
  search?: SearchAdapter;
  /** @deprecated Never filled: the plan-mode tools are made with their PlanModeAdapter. */
  planMode?: PlanModeAdapter;
}

/** What ToolContext extends: the agent's facts, and the deprecated service fields. */
export interface ToolAdapters extends AgentFacts, LegacyToolAdapters {}

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
