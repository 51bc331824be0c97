// The filter pipeline: which of a turn's candidate tools an agent may see, decided from frozen turn facts.
// Order matters and is part of the contract (issue "Roles, agent definitions and the per-turn tool catalog").
import { builtinToolsWhere } from '../tools/builtin-traits.js';
import type { RuntimeTool } from '../tools/contract.js';
import { BUILTIN_ROLES, builtinRole, mcpServerName, mcpToolName } from './builtin.js';
import { canonicalToolName, matchesNamePattern, normalizeName } from './names.js';
import type { AgentProfile } from './profile.js';
import type { ToolAccess } from '../protocol/tool-access.js';

export type { ToolAccess } from '../protocol/tool-access.js';

/** Who is on the other side of the run (some tools exist only where a person can answer): the front end's kind. */
export type FrontEnd = 'cli' | 'interactive' | 'mcp' | 'headless';

/** Facts about one turn, frozen before the filters run. */
export interface TurnFacts {
  profile: AgentProfile;
  /** Native media input of the model. */
  model: { images: boolean; video: boolean };
  /** Names excluded for this turn only. */
  excluded: ReadonlySet<string>;
  /** True for every agent started by another agent. */
  isSubtask: boolean;
  interface: FrontEnd;
  features: { delegation: boolean; webSearch: boolean };
  desktopAvailable: boolean;
  /** The MCP server and tool behind a tool (from the MCP source), so names never have to be parsed back. */
  mcpOrigin?: (tool: RuntimeTool) => McpOrigin | undefined;
  /** The run's tool access (every agent of the run); absent = no limit. */
  access?: ToolAccess;
}

export interface McpOrigin {
  server: string;
  tool: string;
}

/** The MCP origin of a tool: from the facts when known, else read from its `mcp__server__tool` name. */
export function originOf(tool: RuntimeTool, facts: Pick<TurnFacts, 'mcpOrigin'>): McpOrigin | undefined {
  const known = facts.mcpOrigin?.(tool);
  if (known) return known;
  const server = mcpServerName(tool.def.name);
  const name = mcpToolName(tool.def.name);
  return server !== undefined && name !== undefined ? { server, tool: name } : undefined;
}

export interface FilterContext {
  facts: TurnFacts;
  warnings: string[];
}

export type ToolFilter = (tools: RuntimeTool[], context: FilterContext) => RuntimeTool[];

/** Built-in tools that start agents (their `startsAgents` trait). */
export const DELEGATION_TOOLS: ReadonlySet<string> = builtinToolsWhere((t) => t.startsAgents === true);
/** Built-in tools over background tasks (`controlsTasks`): an MCP tool of one of these names counts as delegation. */
export const TASK_CONTROL_TOOLS: ReadonlySet<string> = builtinToolsWhere((t) => t.controlsTasks === true);
/** Built-in tools never offered to a subtask (their `notForSubagents` trait). */
export const SUBTASK_DENIED: ReadonlySet<string> = builtinToolsWhere((t) => t.notForSubagents === true);

/** 1. Names excluded for this turn. */
export const filterExcluded: ToolFilter = (tools, { facts }) => {
  if (facts.excluded.size === 0) return tools;
  const excluded = new Set([...facts.excluded].map(normalizeName));
  return tools.filter((t) => !excluded.has(normalizeName(t.def.name)));
};

/** 2. Model capability: native media models skip the *_understand helpers; others cannot take read_media_file. */
export const filterModelCapability: ToolFilter = (tools, { facts }) =>
  tools.filter((t) => {
    const name = t.def.name;
    if (name === 'images_understand') return !facts.model.images;
    if (name === 'videos_understand') return !facts.model.video;
    if (name === 'read_media_file') return facts.model.images || facts.model.video;
    return true;
  });

/** 3. Desktop tools only with a desktop runtime (none today). */
export const filterDesktop: ToolFilter = (tools, { facts }) =>
  facts.desktopAvailable ? tools : tools.filter((t) => !t.def.name.startsWith('desktop_'));

function selectorMatches(
  list: readonly string[],
  tools: RuntimeTool[],
  field: string,
  warnings: string[],
): Set<string> {
  const names = new Set(tools.map((t) => normalizeName(t.def.name)));
  const matched = new Set<string>();
  for (const entry of list) {
    const wanted = canonicalToolName(entry);
    const hits = [...names].filter((n) => matchesNamePattern(n, wanted));
    if (hits.length === 0)
      warnings.push(`${field} names "${entry.trim()}", which is not an available tool; it is ignored`);
    for (const hit of hits) matched.add(hit);
  }
  return matched;
}

/**
 * 4. The agent's selector: `disallowedTools` removes, a non-empty `tools` keeps only those listed (an agent with
 * `onlyNamedTools` and none listed keeps none).
 */
export const filterSelector: ToolFilter = (tools, { facts, warnings }) => {
  const { tools: keep, disallowedTools: drop } = facts.profile;
  let out = tools;
  if (drop && drop.length > 0) {
    const denied = selectorMatches(drop, out, 'disallowedTools', warnings);
    out = out.filter((t) => !denied.has(normalizeName(t.def.name)));
  }
  if (keep && keep.length > 0) {
    const allowed = selectorMatches(keep, out, 'tools', warnings);
    out = out.filter((t) => allowed.has(normalizeName(t.def.name)));
  } else if (facts.profile.onlyNamedTools) out = [];
  return out;
};

/** 5. MCP server allow list of the agent. */
export const filterMcpServers: ToolFilter = (tools, { facts }) => {
  const allow = facts.profile.mcpServers;
  if (!allow) return tools;
  const servers = new Set(allow.map(normalizeName));
  return tools.filter((t) => {
    const origin = originOf(t, facts);
    return origin === undefined || servers.has(normalizeName(origin.server));
  });
};

function isDelegationTool(tool: RuntimeTool, facts: TurnFacts): boolean {
  if (DELEGATION_TOOLS.has(tool.def.name)) return true;
  const remote = originOf(tool, facts)?.tool;
  return remote !== undefined && tool.source !== 'builtin' && TASK_CONTROL_TOOLS.has(remote);
}

/** Whether the profile may delegate at all: the authoritative main profile, or a defined agent that opts in. */
export function mayDelegate(facts: TurnFacts): boolean {
  const { profile } = facts;
  const authoritativeMain =
    profile.builtin && profile.role === 'main' && (facts.interface === 'cli' || facts.interface === 'interactive');
  return authoritativeMain || (!profile.builtin && (profile.subagents?.length ?? 0) > 0);
}

/** 6. Delegation only for an authoritative main profile or a defined agent with a `subagents:` list. */
export const filterDelegation: ToolFilter = (tools, { facts }) =>
  mayDelegate(facts) ? tools : tools.filter((t) => !isDelegationTool(t, facts));

/**
 * Scheduled tasks outlive the run: only the built-in main agent may create them, or a defined agent whose
 * `tools:` list names create_scheduled_task (never explore, worker or verifier).
 */
export function mayScheduleTasks(profile: AgentProfile): boolean {
  if (profile.builtin) return profile.role === 'main';
  return (profile.tools ?? []).some((entry) => canonicalToolName(entry) === 'create_scheduled_task');
}

/** 7. Profile caps: subtasks never ask the user or keep a todo list; feature switches. */
export const filterProfileCaps: ToolFilter = (tools, { facts }) =>
  tools.filter((t) => {
    const name = t.def.name;
    if (facts.isSubtask && SUBTASK_DENIED.has(name)) return false;
    if (name === 'create_scheduled_task' && t.source !== 'configured' && !mayScheduleTasks(facts.profile)) return false;
    // A subtask delegates only when its definition opted in (filter 6 already checked that).
    if (facts.isSubtask && DELEGATION_TOOLS.has(name) && facts.profile.builtin) return false;
    if (!facts.features.delegation && DELEGATION_TOOLS.has(name)) return false;
    if (!facts.features.webSearch && (name === 'web_search' || originOf(t, facts)?.tool === 'web_search')) return false;
    return true;
  });

/** Whether a host-added tool was granted to this profile (by its name, its role, or an alias of either). */
function grantedHere(grantedTo: readonly string[], profile: AgentProfile): boolean {
  const own = new Set([normalizeName(profile.name), normalizeName(profile.role)]);
  return grantedTo.some((name) => own.has(normalizeName(builtinRole(name)?.name ?? name)));
}

/** 8. Role caps. Defined agents are capped by their selector and the filters above; host-added tools by their grant. */
export const filterRoleCaps: ToolFilter = (tools, { facts }) => {
  const role = facts.profile.role;
  const granted = (t: RuntimeTool) => t.grantedTo === undefined || grantedHere(t.grantedTo, facts.profile);
  if (role === 'custom' || role === 'main') return tools.filter(granted);
  const spec = BUILTIN_ROLES[role];
  return tools.filter((t) => (t.grantedTo !== undefined ? granted(t) : spec.allows(t, originOf(t, facts))));
};

function listed(entries: readonly string[], name: string): boolean {
  return entries.some((entry) => matchesNamePattern(name, canonicalToolName(entry)));
}

/** 9. The run's tool access: a tool its `deny` names, or one its `allow` (when given) leaves out, is not offered. */
export const filterToolAccess: ToolFilter = (tools, { facts }) => {
  const access = facts.access;
  if (!access) return tools;
  const { allow, deny } = access;
  return tools.filter((t) => {
    const name = normalizeName(t.def.name);
    return (allow === undefined || listed(allow, name)) && (deny === undefined || !listed(deny, name));
  });
};

export const FILTER_PIPELINE: readonly { name: string; filter: ToolFilter }[] = [
  { name: 'excluded', filter: filterExcluded },
  { name: 'model capability', filter: filterModelCapability },
  { name: 'desktop', filter: filterDesktop },
  { name: 'selector', filter: filterSelector },
  { name: 'mcp servers', filter: filterMcpServers },
  { name: 'delegation', filter: filterDelegation },
  { name: 'profile caps', filter: filterProfileCaps },
  { name: 'role caps', filter: filterRoleCaps },
  { name: 'tool access', filter: filterToolAccess },
];

export function applyFilters(
  tools: readonly RuntimeTool[],
  facts: TurnFacts,
): { tools: RuntimeTool[]; warnings: string[] } {
  const context: FilterContext = { facts, warnings: [] };
  let out = [...tools];
  for (const step of FILTER_PIPELINE) out = step.filter(out, context);
  return { tools: out, warnings: context.warnings };
}
