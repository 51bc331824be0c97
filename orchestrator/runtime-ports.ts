// The ports the agent runtime is given by its host, each with its contract: the permission gate, the result
// budget, the extra batch vetoes, the MCP tool source and the per-agent swarm port. The tools' own ports (ask,
// approve, plan, tasks, timers…) are in tools/ports.ts and tools/adapters-interaction.ts.
import type { SwarmAdapter } from '../tools/adapters.js';
import type { ResultBudget } from '../tools/budget.js';
import type { RuntimeTool, ToolResult } from '../tools/contract.js';
import type { McpOrigin } from '../roles/filters.js';
import type { AgentRecord } from './agent-tree.js';
import type { BatchVeto, CallDecision } from './tool-batch.js';
import type { ToolCall } from './types.js';

/** What the gate and the budget know of the calling agent (the scheduler's AgentRecord fits). */
export interface GateAgent {
  readonly id: string;
  readonly profile: { readonly name: string; readonly role?: string };
  /** Its own workspace root (a swarm worktree), when not the run's. */
  readonly workspaceRoot?: string | undefined;
}

/**
 * The permission gate: decides one call of `agent` after its arguments are checked, before it runs. Resolves
 * undefined to let it run, or the denial the model reads. It may wait for a person; only this call waits.
 * Contract: never throws or rejects — a failure, nobody to answer and an aborted signal are all denials.
 */
export type PermissionGate = (
  agent: GateAgent,
  call: ToolCall,
  tool: RuntimeTool,
  args: unknown,
  signal: AbortSignal,
) => Promise<ToolResult | undefined> | ToolResult | undefined;

/**
 * The host's hook on every tool call of `agent` (the library's onToolCall), before the permission gate: undefined
 * goes on, `deny` refuses, `args` replaces the checked arguments. Contract: never throws or rejects (a failure is a
 * denial); only this call waits for it.
 */
export type ToolCallHook = (
  agent: GateAgent,
  call: ToolCall,
  tool: RuntimeTool,
  args: unknown,
  signal: AbortSignal,
) => Promise<CallDecision> | CallDecision;

/**
 * The result budget of one agent (the first after-call stage), made once when the agent is configured; `hasRead`
 * says whether the agent holds read (only then are large results spilled to a file). Contract: never throws; the
 * budget it returns never rejects (a spill file that cannot be written keeps a preview instead).
 */
export type ResultBudgetFor = (agent: GateAgent, hasRead: boolean) => ResultBudget;

/** More batch vetoes for an agent (plan mode's), run before the permission gate; undefined = none. Never throws. */
export type BatchVetoFor = (agent: GateAgent) => BatchVeto | undefined;

/** The MCP tools an agent may draw from (its server allow list applied), listed per turn; a server that fails is left out. */
export type McpToolsFor = (record: AgentRecord) => Promise<readonly RuntimeTool[]>;

/** The MCP server and tool behind a tool from the MCP source; undefined for any other tool. */
export type McpOriginOf = (tool: RuntimeTool) => McpOrigin | undefined;

/** What deferred disclosure offers of a filtered catalog, and what it says about the rest. */
export interface DisclosurePlan {
  tools: RuntimeTool[];
  instruction?: string;
}

/** Deferred disclosure of the filtered catalog (tool_search for many MCP tools). Pure; never throws. */
export type Disclosure = (tools: RuntimeTool[]) => DisclosurePlan;

/** MCP servers as a tool source, as the engine is given them (orchestrator/mcp-source.ts makes one). */
export interface McpToolSource {
  mcpTools: McpToolsFor;
  mcpOrigin?: McpOriginOf;
  disclose?: Disclosure;
}

/** The swarm port of one agent (agent_swarm is made with it); made when the agent is configured. */
export type SwarmPortFor = (record: AgentRecord) => SwarmAdapter;
