// The library's options, checked like the command line checks its flags and murmur.toml: the same schema, the
// same defaults (options override murmur.toml, which overrides the built-in defaults).
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseMcpServers } from '../host/mcp-servers.js';
import {
  ConfigError,
  loadConfig,
  validateConfig,
  type Environment,
  type MurmurConfig,
} from '../host/workspace-config.js';
import type { ModelProvider } from '../host/model-provider.js';
import { describeRuleProblem, parseRuleLists } from '../host/permission-rules.js';
import type { ApprovalRequest, QuestionRequest, Requester } from '../host/asker.js';
import type { ApprovalAnswer, QuestionReply } from '../protocol/interruptions.js';
import type { RuntimeTool } from '../host/tool-contract.js';
import { fail } from './option-error.js';
import { agentNameProblem } from '../host/checks.js';
import type { TracerProvider } from '@opentelemetry/api';
import { tracingProblem, type TracingOptions } from './tracing.js';
import { RESERVED_TOOL_NAMES } from '../host/tool-names.js';
import { normalizeName } from '../host/agent-profiles.js';
import type { DefinedAgent } from './agents.js';
import type { ToolCallHandler } from './tool-hook.js';

/** manual asks before writes and commands; auto also allows edits inside the workspace; yolo asks for nothing. */
export type PermissionMode = 'manual' | 'auto' | 'yolo';

/** A model's price, US dollars per million tokens (cache reads and writes default to `input`). */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}
/** How hard the model thinks: reasoning_effort (OpenAI-compatible) or a thinking budget (Anthropic). */
export type Effort = 'low' | 'medium' | 'high';

/** Permission rules, as in murmur.toml's `[permissions]` (`Bash(npm test:*)`, `Edit(src/**)`…). */
export interface PermissionRules {
  allow?: readonly string[];
  ask?: readonly string[];
  deny?: readonly string[];
  /** Plans are approved without asking. */
  approvePlans?: boolean;
  /**
   * Settles a request at once when nobody can answer (no `onApproval`): deny or allow. Absent: the run waits for a
   * person (status `waiting`, the calls in `interruptions`; with `sessions: false`, denied).
   */
  headless?: 'deny' | 'allow';
}

/** Limits, as in murmur.toml's `[limits]`. */
export interface Limits {
  maxDepth?: number;
  maxAgents?: number;
  maxModelRequests?: number;
  /** Seconds, or text such as "90s", "10m". */
  agentTimeout?: number | string;
  agentBudgetTokens?: number;
  runBudgetTokens?: number;
}

/** A tool of yours and the roles (or defined agents) whose catalog it joins. */
export interface CustomTool {
  tool: RuntimeTool;
  /** `worker`, `explore`, `verifier`, `main`, or a defined agent's name. */
  roles: readonly string[];
}

/** Answers a permission request; undefined = dismissed (the call is denied). */
export type ApprovalHandler = (
  request: ApprovalRequest,
  signal: AbortSignal,
) => Promise<ApprovalAnswer | undefined> | ApprovalAnswer | undefined;
/** Answers ask_user_question; undefined = dismissed. */
export type QuestionHandler = (
  request: QuestionRequest,
  requester: Requester,
  signal: AbortSignal,
) => Promise<QuestionReply | undefined> | QuestionReply | undefined;

/** createMurmur's options: the workspace, the model, the agents and tools, permissions, limits and tracing. */
export interface MurmurOptions {
  /** The workspace: an existing folder. Its murmur.toml, .mcp.json and agent definitions are read as on the command line. */
  cwd: string;
  /** A spec (`openai:gpt-4.1`, `anthropic:…`, `ollama:…`, `scripted:FILE`) or a provider object (`scriptedModel` of murmur/testing). Absent = MURMUR_MODEL, murmur.toml, then a key in the environment. */
  model?: string | ModelProvider;
  /** The endpoint of the model's provider (as --base-url). */
  baseUrl?: string;
  /** As --permission-mode; absent = murmur.toml, else manual. */
  permissionMode?: PermissionMode;
  /** As --swarm-mode. */
  swarmMode?: boolean;
  permissions?: PermissionRules;
  /** MCP servers by name, as in .mcp.json (a command to start, or a URL); added to .mcp.json's and murmur.toml's. */
  mcpServers?: Record<string, McpServerEntry>;
  limits?: Limits;
  /**
   * Prices of models murmur does not know (a custom or local one), or yours over its list, in US dollars per million
   * tokens, by model name (`openai:my-model` or `my-model`; a provider object's `name`): reports then carry the cost.
   * Added to murmur.toml's `[prices]`.
   */
  prices?: Record<string, ModelPrice>;
  /** Reasoning effort (as --effort). */
  effort?: Effort;
  /**
   * Who answers when a person must approve a call. Absent = nobody here now: the run ends `waiting` with the call in
   * its report's `interruptions`, answered by `resume(id, { answers })` (`permissions.headless` settles it instead).
   */
  onApproval?: ApprovalHandler;
  /** Who answers the agents' questions (ask_user_question is offered only with it). */
  onQuestion?: QuestionHandler;
  /** Aborts every run of this instance (finished work is kept). */
  signal?: AbortSignal;
  /** The environment (keys, MURMUR_* settings); default process.env. */
  env?: Environment;
  /** Your tools, each offered to the roles you name. */
  tools?: readonly CustomTool[];
  /** false: nothing written under .murmur (no sessions, so nothing to resume). Default true. */
  sessions?: boolean;
  /**
   * Agents' bash commands in a bubblewrap sandbox (Linux; as --sandbox): `true`, or murmur.toml's `[sandbox]` keys
   * (`enabled`, `network`, `autoAllowBash`), which it overrides. Absent = murmur.toml's. A sandbox that cannot work
   * here (bwrap missing, no namespaces) makes each run throw MurmurOptionsError naming `sandbox`.
   */
  sandbox?: boolean | SandboxOptions;
  /** Where the runs' spans go (README "Tracing"); absent = the globally registered provider, if any. */
  tracerProvider?: TracerProvider;
  /** `{ captureContent: true }`: prompts, completions and tool arguments and results on the spans too. */
  tracing?: TracingOptions;
  /** Agents defined in code (defineAgent): usable as run()'s agent, a swarm's role and a subagent, by name or object. */
  agents?: readonly DefinedAgent[];
  /** Called before the permission checks on every tool call of every agent: allow, deny with a reason, or rewrite. */
  onToolCall?: ToolCallHandler;
}

/** An MCP server started as a process speaking MCP on its stdin and stdout. */
export interface McpStdioEntry {
  type?: 'stdio';
  command: string;
  args?: string[];
  /** Added to the server's environment; `${VAR}` expands from the environment. */
  env?: Record<string, string>;
  /** Relative to the workspace. */
  cwd?: string;
  /** Milliseconds per tool call. */
  timeoutMs?: number;
  disabled?: boolean;
  description?: string;
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpEntry {
  type?: 'http' | 'streamable-http';
  url: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  disabled?: boolean;
  description?: string;
}

/** An MCP server for the agents: a command murmur starts (stdio) or a URL it connects to (streamable HTTP). */
export type McpServerEntry = McpStdioEntry | McpHttpEntry;

/** murmur.toml's `[sandbox]` table. */
export interface SandboxOptions {
  /** Default true when the object is given. */
  enabled?: boolean;
  /** Commands may reach the network. Default false. */
  network?: boolean;
  /** Auto permission mode runs bash without asking while the sandbox is on. Default false. */
  autoAllowBash?: boolean;
}

const KNOWN = new Set([
  'cwd',
  'model',
  'baseUrl',
  'permissionMode',
  'swarmMode',
  'permissions',
  'mcpServers',
  'limits',
  'prices',
  'effort',
  'onApproval',
  'onQuestion',
  'signal',
  'env',
  'tools',
  'sessions',
  'sandbox',
  'tracerProvider',
  'tracing',
  'agents',
  'onToolCall',
]);

export interface CheckedOptions {
  cwd: string;
  config: MurmurConfig;
  env: Environment;
  options: MurmurOptions;
}

function oneOf(option: string, value: unknown, accepted: readonly string[]): void {
  if (value !== undefined && !accepted.includes(value as string))
    fail(option, `${JSON.stringify(value)} is not accepted; use one of ${accepted.join(', ')}.`);
}

function isFunction(option: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') fail(option, 'must be a function.');
}

/** Checks the options and merges them over murmur.toml; throws MurmurOptionsError naming the first bad option. */
export async function checkOptions(options: MurmurOptions): Promise<CheckedOptions> {
  if (typeof options !== 'object' || options === null) fail('options', 'give an object with at least { cwd }.');
  for (const key of Object.keys(options))
    if (!KNOWN.has(key)) fail(key, `unknown option; accepted: ${[...KNOWN].join(', ')}.`);
  if (typeof options.cwd !== 'string' || options.cwd.trim() === '')
    fail('cwd', 'give the workspace folder as a string.');
  const cwd = resolve(options.cwd);
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) fail('cwd', `${JSON.stringify(cwd)} is not a folder.`);
  const model = options.model;
  if (
    model !== undefined &&
    typeof model !== 'string' &&
    (typeof model !== 'object' ||
      model === null ||
      typeof (model as ModelProvider).complete !== 'function' ||
      typeof (model as ModelProvider).name !== 'string')
  ) {
    fail(
      'model',
      'give a model spec such as "openai:gpt-4.1" or "scripted:FILE", or a provider object (name, capabilities, complete()).',
    );
  }
  if (typeof model === 'string' && model.trim() === '') fail('model', 'needs a value, such as "openai:gpt-4.1".');
  oneOf('permissionMode', options.permissionMode, ['manual', 'auto', 'yolo']);
  oneOf('effort', options.effort, ['low', 'medium', 'high']);
  if (options.swarmMode !== undefined && typeof options.swarmMode !== 'boolean')
    fail('swarmMode', 'must be true or false.');
  if (options.sessions !== undefined && typeof options.sessions !== 'boolean')
    fail('sessions', 'must be true or false.');
  if (options.baseUrl !== undefined && typeof options.baseUrl !== 'string') fail('baseUrl', 'must be a URL string.');
  isFunction('onApproval', options.onApproval);
  isFunction('onQuestion', options.onQuestion);
  isFunction('onToolCall', options.onToolCall);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    fail('signal', 'must be an AbortSignal.');
  if (options.env !== undefined && (typeof options.env !== 'object' || options.env === null))
    fail('env', 'must be an object of strings.');
  checkTools(options.tools, cwd, options.env ?? process.env, codeAgentNames(options.agents));

  checkMcpServers(options.mcpServers, cwd, options.env ?? process.env);
  const tracing = tracingProblem(options);
  if (tracing) fail(...tracing);

  let file: MurmurConfig;
  try {
    file = (await loadConfig(cwd)).config;
  } catch (error) {
    if (error instanceof ConfigError) fail('cwd', `the workspace's ${error.message}`);
    throw error;
  }
  // The options go through murmur.toml's own schema: a bad key or type is named with its path.
  const merged: Record<string, unknown> = { ...file };
  if (options.permissions !== undefined) merged.permissions = { ...file.permissions, ...options.permissions };
  if (options.mcpServers !== undefined) merged.mcpServers = { ...file.mcpServers, ...options.mcpServers };
  if (options.limits !== undefined) merged.limits = { ...file.limits, ...options.limits };
  if (options.prices !== undefined) merged.prices = { ...file.prices, ...options.prices };
  if (options.effort !== undefined) merged.effort = options.effort;
  if (typeof options.sandbox === 'boolean') merged.sandbox = { ...file.sandbox, enabled: options.sandbox };
  else if (options.sandbox !== undefined)
    merged.sandbox =
      typeof options.sandbox === 'object' && options.sandbox !== null
        ? { ...file.sandbox, enabled: true, ...options.sandbox }
        : options.sandbox;
  let config: MurmurConfig;
  try {
    config = validateConfig(merged, 'options');
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const key = /"([a-zA-Z.]+)"/.exec(error.message)?.[1] ?? 'options';
    fail(key, error.message.replace(/^options: /, ''));
  }
  // The rules as the permission setup reads them (checked here so a bad one fails before any run).
  const rules = parseRuleLists(config.permissions ?? {});
  if (rules.problems.length > 0) fail('permissions', rules.problems.map(describeRuleProblem).join('; '));
  return { cwd, config, env: options.env ?? process.env, options };
}

/** Each MCP entry read as .mcp.json's are: the first problem (a bad field or an unknown one) names the entry. */
function checkMcpServers(servers: unknown, cwd: string, env: Environment): void {
  if (servers === undefined) return;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    fail('mcpServers', 'give an object of servers by name: { NAME: { command, args } or { url } }.');
  const { problems } = parseMcpServers({ mcpServers: servers }, join(cwd, 'options'), env);
  const [problem] = problems;
  // In a file an unknown field is skipped with a warning; here it is an error like any other.
  if (problem) fail(problem.field ?? 'mcpServers', `${problem.message.replace(', ignored', '')}.`);
}

/** Names a library user's tool may not take: every tool murmur makes itself. */
const TAKEN_TOOL_NAMES: ReadonlySet<string> = new Set(RESERVED_TOOL_NAMES);

/** What model providers accept as a function name (OpenAI's rule, the strictest). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The names of the agents defined in code (checked later, with createMurmur's `agents`): tools may be granted to them. */
function codeAgentNames(agents: unknown): ReadonlySet<string> {
  if (!Array.isArray(agents)) return new Set();
  return new Set(
    agents.flatMap((agent: unknown) => {
      const name = (agent as { name?: unknown } | null)?.name;
      return typeof name === 'string' ? [normalizeName(name)] : [];
    }),
  );
}

function checkTools(tools: unknown, cwd: string, env: Environment, codeAgents: ReadonlySet<string>): void {
  if (tools === undefined) return;
  if (!Array.isArray(tools)) fail('tools', 'give a list of { tool, roles }.');
  const names = new Set<string>();
  tools.forEach((entry: unknown, index) => {
    const at = `tools[${index}]`;
    const e = entry as Partial<CustomTool> | null;
    if (
      typeof e !== 'object' ||
      e === null ||
      typeof e.tool?.def?.name !== 'string' ||
      typeof e.tool.impl !== 'function'
    )
      fail(at, 'give { tool: defineTool({ def, execute }), roles: [...] }.');
    if (
      !Array.isArray(e.roles) ||
      e.roles.length === 0 ||
      !e.roles.every((r) => typeof r === 'string' && r.trim() !== '')
    )
      fail(`${at}.roles`, 'name at least one role (worker, explore, verifier, main) or defined agent.');
    if (!TOOL_NAME.test(e.tool.def.name))
      fail(
        `${at}.tool.def.name`,
        `${JSON.stringify(e.tool.def.name)} is not a tool name models accept: use 1 to 64 letters, digits, _ or -.`,
      );
    if (TAKEN_TOOL_NAMES.has(e.tool.def.name))
      fail(at, `${JSON.stringify(e.tool.def.name)} is the name of a built-in tool; choose another.`);
    e.roles.forEach((role, r) => {
      if (codeAgents.has(normalizeName(role))) return;
      const problem = agentNameProblem(cwd, env, role, false);
      if (problem) fail(`${at}.roles[${r}]`, `${problem}, or main.`);
    });
    const approval = e.tool.def.needsApproval;
    if (approval !== undefined && typeof approval !== 'boolean' && typeof approval !== 'function')
      fail(
        `${at}.tool.def.needsApproval`,
        'must be true, false or a function of the arguments returning true or false.',
      );
    if (e.tool.def.readOnly !== undefined && typeof e.tool.def.readOnly !== 'boolean')
      fail(`${at}.tool.def.readOnly`, 'must be true or false.');
    if (names.has(e.tool.def.name)) fail(at, `two tools are named ${JSON.stringify(e.tool.def.name)}.`);
    names.add(e.tool.def.name);
  });
}
