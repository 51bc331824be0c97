// The built-in roles: a prompt plus a cap on the tools. A cap is a security boundary, not a hint.
import type { RuntimeTool } from '../tools/contract.js';
import { normalizeName } from './names.js';

export type BuiltinRoleName = 'main' | 'explore' | 'worker' | 'verifier';

/** Whether a role may hold this tool at all; `mcp` is the MCP server and tool behind it, if any. */
export type RoleCap = (tool: RuntimeTool, mcp?: { server: string; tool: string }) => boolean;

export interface RoleSpec {
  name: BuiltinRoleName;
  description: string;
  prompt: string;
  allows: RoleCap;
}

const MCP_PREFIX = 'mcp__';

/** `mcp__server__tool` -> `tool`; undefined for a local tool. */
export function mcpToolName(name: string): string | undefined {
  if (!name.startsWith(MCP_PREFIX)) return undefined;
  const rest = name.slice(MCP_PREFIX.length);
  const split = rest.indexOf('__');
  return split < 0 ? undefined : rest.slice(split + 2);
}

export function mcpServerName(name: string): string | undefined {
  if (!name.startsWith(MCP_PREFIX)) return undefined;
  const rest = name.slice(MCP_PREFIX.length);
  const split = rest.indexOf('__');
  return split < 0 ? undefined : rest.slice(0, split);
}

function capOf(local: readonly string[], mcpRule: 'none' | 'builtin-web-search' | 'configured'): RoleCap {
  const allowed = new Set(local);
  return (tool, mcp) => {
    if (mcp) {
      if (mcpRule === 'configured') return true;
      // Among MCP tools only a web_search from a server murmur ships.
      return mcpRule === 'builtin-web-search' && tool.source !== 'configured' && mcp.tool === 'web_search';
    }
    return allowed.has(tool.def.name);
  };
}

const SUBAGENT_HANDOFF = [
  'You are a subagent: another agent gave you this task and is waiting for your answer.',
  'Only your last message reaches the parent, so make it the whole handoff: what you found or changed, how you verified it, and what is left.',
  'Do not ask the end user anything; decide with what you have and say what you assumed.',
].join(' ');

export const BUILTIN_ROLES: Readonly<Record<BuiltinRoleName, RoleSpec>> = {
  main: {
    name: 'main',
    description: 'The main agent: plans the work and may delegate it to subagents and swarms.',
    prompt: [
      "You are murmur, a coding agent working in the user's workspace.",
      'Use the tools to inspect and change files and to run commands. For independent pieces of work you may start subagents',
      '(agent) or a swarm of them over many items (agent_swarm): explore agents read and search, workers change things,',
      'verifiers check work. Keep your final answer short and concrete.',
    ].join(' '),
    allows: () => true,
  },
  explore: {
    name: 'explore',
    description: 'Reads and searches: files, code and the web. Never changes anything.',
    prompt: `${SUBAGENT_HANDOFF} You are an explore agent: read, search and report. You cannot change files or run commands.`,
    allows: capOf(['read', 'grep', 'glob', 'read_media_file', 'fetch_url', 'web_search'], 'builtin-web-search'),
  },
  worker: {
    name: 'worker',
    description: 'Changes things: edits files, runs commands. Cannot delegate.',
    prompt: `${SUBAGENT_HANDOFF} You are a worker: make the change you were asked for, check it (run the relevant tests or commands when you can), and report exactly what you changed.`,
    allows: capOf(
      [
        'read',
        'write',
        'edit',
        'grep',
        'glob',
        'bash',
        'read_media_file',
        'fetch_url',
        'web_search',
        'skill',
        'task_list',
        'task_output',
        'task_stop',
      ],
      'configured',
    ),
  },
  verifier: {
    name: 'verifier',
    description: 'Checks work: reads, runs tests and commands, never edits. Answers with a verdict.',
    prompt: [
      SUBAGENT_HANDOFF,
      'You are a verifier: check the work you are given by reading the files and running tests or commands. Never edit anything.',
      'Your final message must start with a verdict line, exactly `VERDICT: pass` or `VERDICT: fail`, followed by your reasons.',
    ].join(' '),
    allows: capOf(['read', 'grep', 'glob', 'bash', 'read_media_file'], 'builtin-web-search'),
  },
};

const ROLE_ALIASES: Record<string, BuiltinRoleName> = { coder: 'worker' };

/** The built-in role of a name, aliases resolved (`coder` -> `worker`); undefined when it is not built in. */
export function builtinRole(name: string): RoleSpec | undefined {
  const key = normalizeName(name);
  const resolved = ROLE_ALIASES[key] ?? key;
  return Object.hasOwn(BUILTIN_ROLES, resolved) ? BUILTIN_ROLES[resolved as BuiltinRoleName] : undefined;
}

/** The subagent types every parent may name. */
export const BUILTIN_SUBAGENT_TYPES = ['explore', 'worker', 'coder', 'verifier'] as const;
