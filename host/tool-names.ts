// Tool names as a host's user writes them — a code-defined agent's `tools`, a run's `toolAccess` — checked before
// anything runs: a built-in tool (or its Claude Code name), one of the host's own tools, or a tool of a configured
// MCP server (`mcp__server__tool`, or `mcp__server__*` for all of them). And whether a role's cap lets it hold one.
import { BUILTIN_ROLES, type BuiltinRoleName } from '../roles/builtin.js';
import { canonicalToolName, normalizeName } from '../roles/names.js';
import { BUILTIN_TOOL_NAMES } from '../tools/registry.js';
import { PLAN_MODE_TOOL_NAMES } from '../tools/interact/plan-mode.js';
import { CREATE_SCHEDULED_TASK } from '../tools/agents/create-scheduled-task.js';
import { MCP_PREFIX, sanitizeNamePart } from '../tools/mcp/names.js';
import type { RuntimeTool } from '../tools/contract.js';
import { BUILTIN_TRAITS } from '../tools/builtin-traits.js';

/**
 * The names a host's own tools may not take: every tool murmur makes itself (the built-in tools, create_scheduled_task,
 * the plan-mode tools, final_answer, tool_search and mcp_invoke), as their traits table lists them.
 */
export const RESERVED_TOOL_NAMES: readonly string[] = Object.keys(BUILTIN_TRAITS);

const BUILTIN: ReadonlySet<string> = new Set([...BUILTIN_TOOL_NAMES, CREATE_SCHEDULED_TASK, ...PLAN_MODE_TOOL_NAMES]);

/** What a name may stand for: the host's own tools and the configured MCP servers (by name). */
export interface KnownTools {
  hostTools: readonly string[];
  mcpServers: readonly string[];
}

/** A tool name that was understood: what it stands for (`name` canonical, `server` for an MCP one). */
export type NamedTool =
  { kind: 'builtin' | 'host'; name: string } | { kind: 'mcp'; name: string; server: string; tool: string };

/** What `entry` names, or what is wrong with it (with what is accepted). */
export function namedTool(entry: unknown, known: KnownTools): NamedTool | string {
  if (typeof entry !== 'string' || entry.trim() === '') return 'give a tool name as a non-empty string';
  const name = canonicalToolName(entry);
  if (known.hostTools.some((tool) => normalizeName(tool) === name)) return { kind: 'host', name };
  if (BUILTIN.has(name)) return { kind: 'builtin', name };
  if (name.startsWith(MCP_PREFIX)) {
    const rest = name.slice(MCP_PREFIX.length);
    const server = known.mcpServers.find((s) => rest.startsWith(`${normalizeName(sanitizeNamePart(s))}__`));
    if (server !== undefined) {
      const tool = rest.slice(sanitizeNamePart(server).length + 2);
      if (tool !== '') return { kind: 'mcp', name, server, tool };
    }
    const servers = known.mcpServers.length > 0 ? known.mcpServers.join(', ') : 'none is configured';
    return `${JSON.stringify(entry)} names no configured MCP server's tool; write mcp__SERVER__TOOL or mcp__SERVER__* (servers: ${servers})`;
  }
  const own = known.hostTools.length > 0 ? `; your tools: ${known.hostTools.join(', ')}` : '';
  return `${JSON.stringify(entry)} is not a tool; built-in tools: ${[...BUILTIN].join(', ')}${own}; MCP tools as mcp__SERVER__TOOL`;
}

/** Why `role`'s cap keeps it from holding `named`, or undefined when it may (the host's own tools are granted by name). */
export function roleCapProblem(named: NamedTool, role: BuiltinRoleName): string | undefined {
  if (named.kind === 'host') return undefined;
  const probe: RuntimeTool = {
    def: { name: named.name, description: '', parameters: {} as never },
    impl: () => ({ content: [] }),
    source: named.kind === 'mcp' ? 'configured' : 'builtin',
  };
  const origin = named.kind === 'mcp' ? { server: named.server, tool: named.tool } : undefined;
  if (BUILTIN_ROLES[role].allows(probe, origin)) return undefined;
  const allowed = BUILTIN_ROLES[role].name === 'worker' ? ', and MCP tools' : '';
  const list = [...BUILTIN].filter((tool) =>
    BUILTIN_ROLES[role].allows({ ...probe, def: { ...probe.def, name: tool }, source: 'builtin' }),
  );
  return `the ${role} role may not use ${named.name}; it may use ${list.join(', ')}${allowed}`;
}
