// MCP tools as RuntimeTools: `mcp__<server>__<tool>`, with the server's JSON schema (checked with ajv through the
// contract's `validate` hook) and description, tagged with the server's source. Listing happens per turn, so a
// server's tools/list_changed shows up on the next turn; unchanged lists give back the very same tool objects.
import type { TSchema } from '@sinclair/typebox';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { errorResult, type RuntimeTool, type ToolUpdate } from '../contract.js';
import type { McpServerConfig } from './config.js';
import type { McpCallOptions, McpCallOutcome, McpHub } from './hub.js';
import { mcpResultToToolResult } from './content.js';
import { loadJsonSchemaValidators, type ArgumentValidator } from './json-schema.js';
import { assignServerParts, assignToolNames, tagMcpTool } from './names.js';

export { isMcpTool, matchesToolPattern, mcpToolOrigin, qualifiedMcpName, type McpToolOrigin } from './names.js';

/** How a runtime tool reaches its server (the hub's callTool). */
export type McpToolCaller = (
  server: string,
  tool: string,
  args: Record<string, unknown>,
  options: McpCallOptions,
) => Promise<McpCallOutcome>;

export interface McpToolProblem {
  server: string;
  message: string;
}

export interface McpRuntimeTools {
  tools: RuntimeTool[];
  /** Servers that could not be listed (or only partly), each with the reason. */
  problems: McpToolProblem[];
}

export const MAX_MCP_DESCRIPTION = 4_000;

function modelSchema(inputSchema: Tool['inputSchema']): Record<string, unknown> {
  // `$schema` adds tokens and some providers reject it; an object schema without properties is made explicit.
  const { $schema: _dropped, ...rest } = inputSchema as Record<string, unknown>;
  return { ...rest, type: 'object', properties: rest.properties ?? {} };
}

function describeTool(server: McpServerConfig, tool: Tool): string {
  const text =
    (tool.description ?? '').trim() ||
    (tool.title ?? '').trim() ||
    `Tool "${tool.name}" of the MCP server "${server.name}".`;
  return text.length > MAX_MCP_DESCRIPTION ? `${text.slice(0, MAX_MCP_DESCRIPTION - 1)}…` : text;
}

function progressText(progress: { progress: number; total?: number; message?: string }): string {
  const amount = progress.total !== undefined ? `${progress.progress}/${progress.total}` : String(progress.progress);
  return progress.message ? `progress ${amount}: ${progress.message}` : `progress ${amount}`;
}

export interface McpRuntimeToolSpec {
  server: McpServerConfig;
  tool: Tool;
  /** The model-facing name (see assignMcpNames). */
  name: string;
  validate: ArgumentValidator;
  call: McpToolCaller;
}

export function createMcpRuntimeTool(spec: McpRuntimeToolSpec): RuntimeTool {
  const { server, tool, name, call } = spec;
  const runtime: RuntimeTool = {
    def: {
      name,
      description: describeTool(server, tool),
      // Plain JSON Schema, not TypeBox: `validate` below replaces the TypeBox check.
      parameters: modelSchema(tool.inputSchema) as unknown as TSchema,
      // Models send null or nothing for a tool without parameters.
      prepareArguments: (raw) => (raw === null || raw === undefined ? {} : raw),
      validate: spec.validate,
      // The server's read-only hint is the only sign a call is safe to run beside others.
      executionMode: tool.annotations?.readOnlyHint === true ? 'parallel' : 'sequential',
    },
    impl: async (_ctx, input, signal, onUpdate: (update: ToolUpdate) => void) => {
      const outcome = await call(server.name, tool.name, input as Record<string, unknown>, {
        signal,
        onProgress: (progress) => onUpdate({ text: progressText(progress) }),
      });
      if (!outcome.ok) {
        return errorResult(`MCP tool "${name}" failed: ${outcome.error}`, {
          server: server.name,
          tool: tool.name,
          reason: outcome.reason,
        });
      }
      return mcpResultToToolResult(outcome.result, name);
    },
    source: server.source,
  };
  tagMcpTool(runtime, { server: server.name, tool: tool.name, qualifiedName: name });
  return runtime;
}

/** Builds the runtime tools of one server's list; `serverPart` comes from assignServerParts over all servers. */
export async function buildMcpRuntimeTools(
  server: McpServerConfig,
  serverPart: string,
  tools: readonly Tool[],
  call: McpToolCaller,
): Promise<RuntimeTool[]> {
  const validatorFor = await loadJsonSchemaValidators();
  const names = assignToolNames(
    serverPart,
    tools.map((tool) => tool.name),
  );
  return tools.map((tool, index) =>
    createMcpRuntimeTool({ server, tool, name: names[index]!, validate: validatorFor(tool.inputSchema), call }),
  );
}

interface HubCache {
  serverParts: Map<string, string>;
  /** Per server: the tools built from its list, reused while the list's version is unchanged. */
  built: Map<string, { version: number; tools: RuntimeTool[] }>;
}

const caches = new WeakMap<McpHub, HubCache>();

function cacheFor(hub: McpHub): HubCache {
  let cache = caches.get(hub);
  if (!cache) {
    cache = { serverParts: assignServerParts(hub.servers.map((server) => server.name)), built: new Map() };
    caches.set(hub, cache);
  }
  return cache;
}

export interface ListMcpToolsOptions {
  /** Servers to list (an agent's allow list); default: every configured server. Others are not started. */
  servers?: readonly string[];
  signal?: AbortSignal;
}

/**
 * The MCP tools of this turn, in configuration order. Never throws: a server that fails is in `problems` and
 * contributes its last known list (calls then say it is unavailable, or restart it).
 */
export async function listMcpRuntimeTools(hub: McpHub, options: ListMcpToolsOptions = {}): Promise<McpRuntimeTools> {
  const wanted = options.servers ? new Set(options.servers) : undefined;
  const problems: McpToolProblem[] = [];
  for (const name of wanted ?? []) {
    if (!hub.server(name)) problems.push({ server: name, message: `no MCP server is named "${name}"` });
  }
  const servers = hub.servers.filter((server) => !wanted || wanted.has(server.name));
  const listings = await Promise.all(servers.map((server) => hub.listTools(server.name, options.signal)));
  const cache = cacheFor(hub);
  const call: McpToolCaller = (server, tool, args, callOptions) => hub.callTool(server, tool, args, callOptions);
  const tools: RuntimeTool[] = [];
  for (const [index, listing] of listings.entries()) {
    const server = servers[index]!;
    if (listing.error !== undefined) problems.push({ server: server.name, message: listing.error });
    let entry = cache.built.get(server.name);
    if (!entry || entry.version !== listing.version) {
      entry = {
        version: listing.version,
        tools: await buildMcpRuntimeTools(server, cache.serverParts.get(server.name)!, listing.tools, call),
      };
      cache.built.set(server.name, entry);
    }
    tools.push(...entry.tools);
  }
  return { tools, problems };
}
