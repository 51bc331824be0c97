// The sources of one turn's tools: the local registry, MCP servers, per-thread tools and extensions.
// What an agent finally sees is these sources through the filter pipeline (roles/filters.ts).
import { builtinToolsWhere } from './builtin-traits.js';
import type { RuntimeTool } from './contract.js';

/** Something that appends tools at assembly time; extensions run after the other sources, in order. */
export interface CatalogExtension {
  name: string;
  append(tools: readonly RuntimeTool[]): readonly RuntimeTool[];
}

export interface CatalogSources {
  /** The agent's local tools (the registry's, with its own agent and agent_swarm), in catalog order. */
  local: readonly RuntimeTool[];
  /** Listed per turn, so a server's tools/list_changed is honoured. */
  mcp?: () => readonly RuntimeTool[] | Promise<readonly RuntimeTool[]>;
  /** Goal/thread tools of this agent's thread (never handed to subtasks). */
  perThread?: readonly RuntimeTool[];
  extensions?: readonly CatalogExtension[];
}

export interface SourceOptions {
  /** False when tools are disabled for the agent: every source is then empty. */
  toolsEnabled: boolean;
  /** agent and agent_swarm (one entry point) need both the host's permission and a ceiling that allows delegation. */
  delegation: { hostAllows: boolean; ceilingAllows: boolean };
  /** An agent started by another agent: goal/thread tools never reach it. */
  subtask?: boolean;
}

/** The built-in tools that start agents (their `startsAgents` trait): offered only when delegation is allowed. */
export const DELEGATION_ENTRY: ReadonlySet<string> = builtinToolsWhere((t) => t.startsAgents === true);

function localTools(local: readonly RuntimeTool[], options: SourceOptions): RuntimeTool[] {
  const delegation = options.delegation.hostAllows && options.delegation.ceilingAllows;
  const out: RuntimeTool[] = [];
  for (const tool of local) if (delegation || !DELEGATION_ENTRY.has(tool.def.name)) out.push(tool);
  return out;
}

function withExtensions(base: RuntimeTool[], extensions: readonly CatalogExtension[] | undefined): RuntimeTool[] {
  if (!extensions || extensions.length === 0) return base;
  let tools = base;
  for (const extension of extensions) tools = [...tools, ...extension.append(tools)];
  return tools;
}

/** The candidate tools of a turn, before filtering. Sync unless MCP must be listed. */
export function collectCandidates(
  sources: CatalogSources,
  options: SourceOptions,
): RuntimeTool[] | Promise<RuntimeTool[]> {
  if (!options.toolsEnabled) return [];
  const base = localTools(sources.local, options);
  const perThread = options.subtask ? [] : (sources.perThread ?? []);
  const mcp = sources.mcp?.();
  if (mcp instanceof Promise)
    return mcp.then((listed) => withExtensions([...base, ...listed, ...perThread], sources.extensions));
  return withExtensions([...base, ...(mcp ?? []), ...perThread], sources.extensions);
}
