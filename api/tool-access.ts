// A run's toolAccess (run() and swarm()): which tools its agents may see, checked at the call in the library's
// words (each unknown name names its entry), and what names mean here: the built-in tools, the host's own and the
// tools of the MCP servers configured for the workspace (options, murmur.toml, .mcp.json).
import { readMcpJson } from '../host/mcp-servers.js';
import type { Environment, MurmurConfig } from '../host/workspace-config.js';
import type { ToolAccess } from '../protocol/tool-access.js';
import { namedTool, type KnownTools } from '../host/tool-names.js';
import { fail } from './option-error.js';

export type { ToolAccess };

/** What tool names may stand for in this workspace. */
export async function knownTools(
  cwd: string,
  env: Environment,
  config: MurmurConfig,
  hostTools: readonly string[],
): Promise<KnownTools> {
  const fromJson = await readMcpJson(cwd, env);
  const servers = new Set([...fromJson.servers.map((server) => server.name), ...Object.keys(config.mcpServers ?? {})]);
  return { hostTools, mcpServers: [...servers] };
}

/** A run's toolAccess, checked (`option`: `toolAccess` or `swarm.toolAccess`); undefined when not given. */
export function checkToolAccess(option: string, access: unknown, known: KnownTools): ToolAccess | undefined {
  if (access === undefined) return undefined;
  if (typeof access !== 'object' || access === null || Array.isArray(access))
    fail(option, 'give { allow?: [tool names], deny?: [tool names] }.');
  const checked: { allow?: string[]; deny?: string[] } = {};
  for (const [key, list] of Object.entries(access)) {
    if (key !== 'allow' && key !== 'deny') fail(`${option}.${key}`, 'unknown field; accepted: allow, deny.');
    if (list === undefined) continue;
    if (!Array.isArray(list)) fail(`${option}.${key}`, 'give a list of tool names.');
    list.forEach((entry: unknown, i) => {
      const named = namedTool(entry, known);
      if (typeof named === 'string') fail(`${option}.${key}[${i}]`, `${named}.`);
    });
    checked[key] = list.map((entry: string) => entry.trim());
  }
  return checked;
}
