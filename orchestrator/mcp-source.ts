// MCP servers as a tool source: one hub per process (servers start on first use and are shared), per-agent
// listing limited to the agent's allowed servers, origins for the filters, and deferred disclosure.
import type { RuntimeTool } from '../tools/contract.js';
import type { McpHub } from '../tools/mcp/hub.js';
import { formatMcpConfigProblem, loadMcpConfig } from '../tools/mcp/config.js';
import { parseMcpDisclosureSettings, planMcpDisclosure } from '../tools/mcp/disclosure.js';
import { listMcpRuntimeTools, mcpToolOrigin } from '../tools/mcp/mcp-tools.js';
import type { AgentRecord } from './agent-tree.js';
import type { RuntimeDeps } from './agent-runtime.js';
import { ConfigError, durationMs, type MurmurConfig } from './config.js';
import type { EventBus } from './events.js';
import type { ModelProvider } from './models/provider.js';

export interface McpSource {
  mcpTools: NonNullable<RuntimeDeps['mcpTools']>;
  mcpOrigin: NonNullable<RuntimeDeps['mcpOrigin']>;
  disclose: NonNullable<RuntimeDeps['disclose']>;
  close(): Promise<void>;
}

/**
 * Reads `.mcp.json` and murmur.toml's `[mcpServers]`; undefined when no server is configured. A file that cannot be
 * read or parsed throws ConfigError naming it (the front ends make it a usage error).
 */
export async function createMcpSource(options: {
  cwd: string;
  config: MurmurConfig;
  configFile?: string;
  env: NodeJS.ProcessEnv;
  bus: EventBus;
  provider: ModelProvider;
}): Promise<McpSource | undefined> {
  const { bus, config } = options;
  const loaded = await loadMcpConfig({
    workspace: options.cwd,
    env: options.env,
    ...(config.mcpServers
      ? { toml: { file: options.configFile ?? 'murmur.toml', document: { mcpServers: config.mcpServers } } }
      : {}),
  });
  // A file that cannot be read or parsed at all is a configuration error (as a bad murmur.toml is): none of its
  // servers would start, which a warning scrolling past hides. A bad entry drops only that server, with a warning.
  const unusable = loaded.problems.filter((p) => p.level === 'error' && p.server === undefined);
  if (unusable.length > 0) throw new ConfigError(unusable.map(formatMcpConfigProblem).join('; '));
  for (const problem of loaded.problems)
    bus.emit({ type: 'log', level: 'warn', message: `MCP: ${formatMcpConfigProblem(problem)}` });
  if (loaded.servers.length === 0) return undefined;
  const disclosure = parseMcpDisclosureSettings(config.mcp?.disclosure, 'murmur.toml [mcp.disclosure]');
  for (const problem of disclosure.problems) bus.emit({ type: 'log', level: 'warn', message: `MCP: ${problem}` });

  // The hub (and the SDK behind it) loads on the first turn that lists MCP tools.
  let hub: Promise<McpHub> | undefined;
  const getHub = () =>
    (hub ??= import('../tools/mcp/hub.js').then(
      ({ McpHub }) =>
        new McpHub(loaded.servers, {
          cwd: options.cwd,
          ...(config.mcp?.callTimeout !== undefined
            ? { callTimeoutMs: durationMs(config.mcp.callTimeout, 120_000) }
            : {}),
        }),
    ));
  const reported = new Set<string>();

  return {
    async mcpTools(record: AgentRecord): Promise<readonly RuntimeTool[]> {
      const listed = await listMcpRuntimeTools(
        await getHub(),
        record.profile.mcpServers ? { servers: [...record.profile.mcpServers] } : {},
      );
      for (const problem of listed.problems) {
        const text = `MCP server ${problem.server}: ${problem.message}`;
        if (reported.has(text)) continue;
        reported.add(text);
        bus.emit({ type: 'log', level: 'warn', agentId: record.id, message: text });
      }
      return listed.tools;
    },
    mcpOrigin: (tool) => mcpToolOrigin(tool),
    disclose(tools) {
      const plan = planMcpDisclosure({
        tools,
        model: options.provider.name,
        contextWindow: options.provider.capabilities.contextWindow,
        settings: disclosure.settings,
      });
      return plan.instruction !== undefined
        ? { tools: plan.tools, instruction: plan.instruction }
        : { tools: plan.tools };
    },
    async close() {
      if (hub) await (await hub).close();
    },
  };
}
