// The tool contract: what every tool (built-in, MCP, extension) looks like to the agent loop.
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { ToolContent } from '../protocol/messages.js';
import type { ToolAdapters } from './adapters.js';

// The content blocks live on the ground floor (shared with the providers); tools keep importing them from here.
export type { MediaContent, TextContent, ToolContent, ToolSchema } from '../protocol/messages.js';

/** What a tool returns. Throwing is turned into an error result; it never crashes the agent. */
export interface ToolResult {
  /** What the model sees: text and media blocks, in order. */
  content: ToolContent[];
  /** The call failed: the model sees the content as an error (the run goes on). */
  isError?: boolean;
  /**
   * Structured facts for the engine and its subscribers, never sent to the model: kept on the result message
   * (`ToolResultMessage.details`) and so in the transcript. Plain JSON only (it is written to disk). Known
   * shapes: the file tools' `{ path }` (which file changed, read by the swarm's change list), the skill
   * tool's `{ chain }` (the skills that led here, to cap nesting), MCP's `{ structuredContent }`, fetch_url's
   * `{ url, status, title… }`.
   */
  details?: unknown;
  /**
   * No result yet: the call waits for a person (an interruption the run keeps in its state). The agent leaves the
   * call open and ends `waiting`; a resume runs the call again, answered, exactly where it stopped.
   */
  pending?: true;
}

/** The result of a call that waits for a person; `why` is for the logs and events, never the model. */
export function pendingResult(why: string): ToolResult {
  return { content: [{ type: 'text', text: why }], pending: true };
}

/** A partial result streamed while the tool runs (a command's output so far). */
export interface ToolUpdate {
  text: string;
}

export type ExecutionMode = 'parallel' | 'sequential';
export type ToolSource = 'builtin' | 'builtin-matrix' | 'configured';

/** What a permission rule's parentheses match on a tool: the shell command it runs, or the path it names. */
export type RuleArgument = 'command' | 'path';

/**
 * What a tool is, as the permission policy and the role filters see it: declared once, on the tool's definition.
 * murmur's built-in tools each declare theirs in one exported constant that their definition spreads and that the
 * table of built-in tools (tools/builtin-traits.ts) lists by name: the permission and role tables derive from that
 * table, so they hold for a call whose tool is not at hand (a rule parsed from murmur.toml, an mcp_invoke target).
 * Only `readOnly` counts on a host's own tool: every other trait counts on murmur's built-in tools only (read from
 * that table by name, never from a host's definition), so a host's tool cannot claim one to run without asking.
 */
export interface ToolTraits {
  /**
   * A host's tool (the library's `tools`) that changes nothing: the permission modes let it run without asking
   * (deny and ask rules still apply). murmur's built-in tools that only read or look things up declare it too, with
   * the same effect; an MCP tool's mark comes from its server (readOnlyHint), never from this field.
   */
  readOnly?: boolean;
  /** Built-in tools only: what a permission rule's parentheses match, as in `bash(npm test*)` or `edit(src/**)`. */
  ruleArgument?: RuleArgument;
  /**
   * Built-in tools only: changes the file its path argument names (write, edit) — a protected path asks in every
   * mode, plan mode keeps it to the plan file, auto mode allows it inside the workspace.
   */
  writesPath?: boolean;
  /**
   * Built-in tools only: called directly, runs without asking — it changes nothing by itself, or asks a person
   * itself (plan approval, a scheduled task's card), or starts agents whose own calls are checked.
   */
  selfChecked?: boolean;
  /** Built-in tools only: starts agents (agent, agent_swarm) — offered only where delegation is allowed. */
  startsAgents?: boolean;
  /**
   * Built-in tools only: starts a swarm of agents at once — without a rule it runs without asking only in swarm
   * mode (or yolo), and a permission rule names it alone, never with an argument pattern.
   */
  startsSwarm?: boolean;
  /**
   * Built-in tools only: lists, reads or stops background tasks — an MCP tool of the same name from a server murmur
   * does not ship counts as delegation.
   */
  controlsTasks?: boolean;
  /** Built-in tools only: never offered to a subagent (it asks the user, or keeps the main agent's own list). */
  notForSubagents?: boolean;
}

/** A tool's definition: its name, what it is for (the model reads it), its arguments' schema and its traits. */
export interface ToolDefinition<P extends TSchema = TSchema> extends ToolTraits {
  name: string;
  description: string;
  parameters: P;
  /** Reshapes raw model arguments before validation (legacy names, stringified numbers…). */
  prepareArguments?: (raw: unknown) => unknown;
  /** Absent means sequential. */
  executionMode?: ExecutionMode;
  /**
   * Replaces the TypeBox check for tools whose schema is plain JSON Schema (MCP): returns a message naming
   * the path and the rule, or undefined when the arguments are valid.
   */
  validate?: (args: unknown) => string | undefined;
  /**
   * A host's tool: `true` (or a function of the checked arguments returning true) asks a person before every such
   * call, in every permission mode (yolo included; an "allow always" answer lasts for the session); `false` lets it
   * run without asking. Absent: the permission mode decides, as for any tool not known to be read-only.
   */
  needsApproval?: boolean | ApprovalTest<Static<P>>;
}

/** needsApproval's function form. A method type, so a tool with precise arguments fits where any tool is expected. */
export type ApprovalTest<A> = { test(args: A): boolean }['test'];

/**
 * What a tool is handed. The engine fills in the adapters it has; a tool reaches the engine only through
 * them (see adapters.ts), never by importing it.
 */
export interface ToolContext extends ToolAdapters {
  agentId: string;
  role: string;
  /** Workspace root: every path resolves against it. */
  cwd: string;
  /** The id of the call being executed. */
  callId: string;
}

/**
 * Runs a call. `signal` aborts this call and is valid only until the call returns: agents reuse their run's
 * signal once a run has ended cleanly, so work that outlives the call (a background job) takes its own.
 */
export type ToolExecute<P extends TSchema = TSchema> = (
  ctx: ToolContext,
  input: Static<P>,
  signal: AbortSignal,
  onUpdate: (update: ToolUpdate) => void,
) => Promise<ToolResult> | ToolResult;

/** A tool as murmur runs it (defineTool makes one): its definition and what it does. */
export interface RuntimeTool<P extends TSchema = TSchema> {
  def: ToolDefinition<P>;
  // A method signature, so a tool with a precise input type fits where any tool is expected.
  /** What the tool does with its checked arguments; its result's text goes to the model. */
  impl(
    ctx: ToolContext,
    input: Static<P>,
    signal: AbortSignal,
    onUpdate: (update: ToolUpdate) => void,
  ): Promise<ToolResult> | ToolResult;
  source: ToolSource;
  /**
   * A host-added tool (the library's `tools` option): the roles or defined agents it is offered to. Only they see
   * it, and for them it passes the role cap (the host chose to grant it); the other filters still apply.
   */
  grantedTo?: readonly string[];
}

// Compiled validators, one per schema object, made on first use.
const validators = new WeakMap<TSchema, TypeCheck<TSchema>>();

export function validatorFor(schema: TSchema): TypeCheck<TSchema> {
  let check = validators.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    validators.set(schema, check);
  }
  return check;
}

/** Checks arguments against the tool's schema; returns a message naming the path and the rule, or undefined. */
export function checkArguments(def: ToolDefinition, args: unknown): string | undefined {
  if (def.validate) {
    const problem = def.validate(args);
    return problem === undefined ? undefined : `Invalid arguments for tool "${def.name}": ${problem}`;
  }
  const check = validatorFor(def.parameters);
  if (check.Check(args)) return undefined;
  const problems: string[] = [];
  for (const error of check.Errors(args)) {
    problems.push(`${error.path || '/'}: ${error.message}`);
    if (problems.length >= 5) break;
  }
  return `Invalid arguments for tool "${def.name}": ${problems.join('; ')}`;
}

export function defineRuntimeTool<P extends TSchema>(spec: {
  def: ToolDefinition<P>;
  execute: ToolExecute<P>;
  source?: ToolSource;
}): RuntimeTool<P> {
  return { def: spec.def, impl: spec.execute, source: spec.source ?? 'builtin' };
}

/** A tool result of one text block, with optional details for the host (not shown to the model). */
export function textResult(text: string, details?: unknown): ToolResult {
  return details === undefined ? { content: [{ type: 'text', text }] } : { content: [{ type: 'text', text }], details };
}

/** A tool result that reports a failure to the model (isError), with optional details for the host. */
export function errorResult(text: string, details?: unknown): ToolResult {
  const result: ToolResult = { content: [{ type: 'text', text }], isError: true };
  if (details !== undefined) result.details = details;
  return result;
}

/** The text of a result, media left out. */
export function resultText(result: ToolResult): string {
  let out = '';
  for (const block of result.content) if (block.type === 'text') out += (out ? '\n' : '') + block.text;
  return out;
}

export function isParallel(tool: RuntimeTool): boolean {
  return tool.def.executionMode === 'parallel';
}
