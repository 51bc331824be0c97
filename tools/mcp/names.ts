// Names of MCP tools as the model sees them: `mcp__<server>__<tool>`, restricted to what model APIs accept
// (letters, digits, `_` and `-`, at most 64 characters). Which server and tool a runtime tool stands for is kept
// beside it, so the catalog never has to parse a name back (server names may themselves contain `__`).
import { createHash } from 'node:crypto';
import type { RuntimeTool } from '../contract.js';

export const MCP_PREFIX = 'mcp__';
export const MAX_TOOL_NAME_LENGTH = 64;

export interface McpToolOrigin {
  /** The server's name as configured. */
  server: string;
  /** The tool's name as the server lists it. */
  tool: string;
  /** The name the model sees. */
  qualifiedName: string;
}

const origins = new WeakMap<RuntimeTool, McpToolOrigin>();

export function tagMcpTool(tool: RuntimeTool, origin: McpToolOrigin): void {
  origins.set(tool, origin);
}

/** The MCP server and tool behind a runtime tool, or undefined for a tool that is not from MCP. */
export function mcpToolOrigin(tool: RuntimeTool): McpToolOrigin | undefined {
  return origins.get(tool);
}

export function isMcpTool(tool: RuntimeTool): boolean {
  return origins.has(tool);
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 6);
}

/** Characters outside [A-Za-z0-9_-] become `_`. */
export function sanitizeNamePart(text: string): string {
  const clean = text.normalize('NFKC').replace(/[^A-Za-z0-9_-]/g, '_');
  return clean === '' ? '_' : clean;
}

function withHash(name: string, seed: string): string {
  const suffix = `_${shortHash(seed)}`;
  return name.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix;
}

/** `mcp__<server>__<tool>`, cut to the length limit with a hash of the full name so cut names stay distinct. */
export function qualifiedMcpName(server: string, tool: string): string {
  const name = `${MCP_PREFIX}${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  return name.length <= MAX_TOOL_NAME_LENGTH ? name : withHash(name, `${server}\u0000${tool}`);
}

/**
 * The name part of each configured server, distinct across servers: `a.b` and `a_b` both sanitise to `a_b`, so
 * the later one gets a hash suffix. Computed over the whole configuration so it never depends on which servers
 * an agent may use.
 */
export function assignServerParts(servers: readonly string[]): Map<string, string> {
  const parts = new Map<string, string>();
  const taken = new Set<string>();
  for (const server of servers) {
    let part = sanitizeNamePart(server);
    if (taken.has(part)) part = `${part}_${shortHash(server)}`;
    taken.add(part);
    parts.set(server, part);
  }
  return parts;
}

/** Distinct model-facing names for one server's tools, in list order (`serverPart` from assignServerParts). */
export function assignToolNames(serverPart: string, tools: readonly string[]): string[] {
  const taken = new Set<string>();
  return tools.map((tool) => {
    let name = `${MCP_PREFIX}${serverPart}__${sanitizeNamePart(tool)}`;
    if (name.length > MAX_TOOL_NAME_LENGTH || taken.has(name)) name = withHash(name, `${serverPart}\u0000${tool}`);
    taken.add(name);
    return name;
  });
}

/**
 * Matches a tool-name pattern such as `mcp__github__*` (`*` is any run of characters, `?` one character),
 * after trim, NFKC normalisation and lower-casing, the way the catalog compares names.
 */
export function matchesToolPattern(pattern: string, name: string): boolean {
  const normal = (text: string) => text.trim().normalize('NFKC').toLowerCase();
  const source = normal(pattern)
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`).test(normal(name));
}
