// Ports of the interaction and web tools (ask_user_question, todo_list, skill, fetch_url, web_search, the plan-mode
// tools). The host implements them; each tool receives its port when it is made (createTodoListTool(todos)…), and
// a host without a port simply has no such tool. Each port states what it may throw.

import type { PlanDecision, PlanOption, QuestionReply, UserQuestion } from '../protocol/interruptions.js';

export type {
  PlanDecision,
  PlanOption,
  QuestionAnswer,
  QuestionOption,
  QuestionReply,
  UserQuestion,
} from '../protocol/interruptions.js';

// ---- ask_user_question ----

/** Questions an agent asks a person (onQuestion gets them), each with its options. */
export interface QuestionRequest {
  /** Who asks: the host labels the prompt with these, since requests arrive from any depth. */
  agentId: string;
  role: string;
  callId: string;
  questions: readonly UserQuestion[];
}

/**
 * The request waits for a person who is not here now: the run keeps it as an interruption and ends `waiting`; the
 * tool's call stays open (a pending result) and runs again, answered, when the run is resumed.
 */
export interface Waiting {
  kind: 'waiting';
  reason: string;
}

export type AskAvailability = { canAsk: true } | { canAsk: false; reason: string };

/**
 * ask: the one place where the user answers (dashboard modal, terminal prompt). Contract: `availability` never
 * throws. `ask` resolves `declined` when the prompt failed or was dismissed, and rejects only when `signal` aborts.
 */
export interface UserChannel {
  /** Whether anyone can answer now; when not, why (no terminal, --json, MCP server mode…). */
  availability(): AskAvailability;
  /** Waits for the user. Only the asking agent waits. */
  ask(request: QuestionRequest, signal: AbortSignal): Promise<QuestionReply | Waiting>;
}

// ---- todo_list ----

export type TodoStatus = 'pending' | 'in_progress' | 'done';

export interface TodoItem {
  title: string;
  status: TodoStatus;
}

/** Todo lists kept per agent (the dashboard shows them). Contract: never throws. */
export interface TodoStore {
  get(agentId: string): readonly TodoItem[];
  /** Replaces the agent's list; an empty list clears it. */
  set(agentId: string, todos: readonly TodoItem[]): void;
}

// ---- skill ----

/** `builtin`: shipped with murmur (the package's skills/ folder). */
export type SkillScope = 'project' | 'user' | 'builtin';

export interface SkillInfo {
  name: string;
  description: string;
  /** Absolute path of SKILL.md. */
  path: string;
  /** Absolute path of the skill's folder (scripts and references resolve against it). */
  dir: string;
  scope: SkillScope;
  /** Inline skills are expanded into the calling agent's conversation; only they can be invoked by the skill tool. */
  inline: boolean;
  /** When true the model may not invoke the skill (only the user can). */
  disableModelInvocation: boolean;
  /** The Markdown after the front matter. */
  body: string;
}

/** The skills found at start-up (see tools/interact/skills.ts for the loader). Contract: never throws. */
export interface SkillCatalog {
  list(): readonly SkillInfo[];
  get(name: string): SkillInfo | undefined;
}

// ---- fetch_url and web_search ----

export interface WebPolicy {
  /** Lets fetch_url reach private, link-local, loopback and other non-public addresses. Default false. */
  allowPrivateAddresses?: boolean;
  /** Lets fetch_url reach loopback addresses only (127.0.0.0/8, ::1). Default false. */
  allowLoopback?: boolean;
  /** Largest body accepted, after decompression, in bytes. Default 5 MiB. */
  maxBytes?: number;
  /** Whole fetch, redirects included, in milliseconds. Default 30 s. */
  timeoutMs?: number;
  /** Default 5. */
  maxRedirects?: number;
  userAgent?: string;
}

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchOptions {
  signal: AbortSignal;
  /** Most results wanted. */
  limit: number;
}

/**
 * A web search backend; web_search is offered only when one is configured. Contract: `search` rejects with a
 * readable message when the backend fails (web_search turns it into an error result).
 */
export interface SearchAdapter {
  /** Shown in results, e.g. "searxng". */
  name: string;
  /** Throws (or rejects) with a readable message when the backend fails. */
  search(query: string, options: SearchOptions): Promise<readonly SearchResult[]>;
}

// ---- plan mode (enter_plan_mode, exit_plan_mode) ----

/** One agent's plan mode. While active, write and edit may only touch `planPath` and task_stop is refused. */
export interface PlanModeState {
  active: boolean;
  /** Absolute path of the agent's plan file (set once it entered plan mode). */
  planPath?: string;
}

export interface PlanReviewRequest {
  /** Who asks: requests arrive from any depth. */
  agentId: string;
  role: string;
  callId: string;
  planPath: string;
  /** The plan file's text. */
  plan: string;
  options: readonly PlanOption[];
}

/**
 * plan: per-agent plan-mode state and the plan approval (the engine's permission setup implements it).
 * Contract: `state`, `enter` and `exit` never throw; `review` never rejects (nobody to answer, a dismissed prompt
 * or an aborted signal resolve as a rejection with the reason).
 */
export interface PlanModeAdapter {
  state(agentId: string): PlanModeState;
  enter(agentId: string, planPath: string): void;
  exit(agentId: string): void;
  /**
   * Presents the plan to the user and waits (only this agent waits). Never skipped, whatever the permission
   * mode; without anyone to answer it resolves at once by configuration (rejected unless plans are approved).
   */
  review(request: PlanReviewRequest, signal: AbortSignal): Promise<PlanDecision | Waiting>;
}

/** The interaction ports a host shares with every agent, as one value (EngineOptions.interaction). */
export interface InteractionAdapters {
  /** Where questions go; missing = nobody can answer (no ask_user_question). */
  user?: UserChannel;
  todos?: TodoStore;
  skills?: SkillCatalog;
  web?: WebPolicy;
  search?: SearchAdapter;
  /** Plan mode: the permission setup makes the plan-mode tools with it (PermissionSetup.tools). */
  planMode?: PlanModeAdapter;
}
