// The McpHub: every configured MCP server of the process, shared by all agents. A server starts on first use
// (one connection, shared), its tools/list is cached until the server says it changed, a crashed server is
// restarted by the next call within a bounded budget, every call has a timeout, and close() stops them all.
import type { McpServerConfig } from './config.js';
import {
  ServerConnection,
  type ConnectionSettings,
  type McpCallOptions,
  type McpCallOutcome,
  type McpHubEvent,
  type McpServerState,
  type McpToolListing,
} from './connection.js';
import { DEFAULT_RESTART_POLICY, type RestartPolicy } from './restart-budget.js';

export type {
  McpCallFailure,
  McpCallOptions,
  McpCallOutcome,
  McpHubEvent,
  McpServerState,
  McpToolListing,
} from './connection.js';
export type { RestartPolicy } from './restart-budget.js';

export interface McpHubOptions {
  /** Per tool call, unless the server's `timeoutMs` says otherwise. Default 120 s. */
  callTimeoutMs?: number;
  /** Spawn/connect plus initialize. Default 30 s. */
  startTimeoutMs?: number;
  /** Per tools/list page. Default 30 s. */
  listTimeoutMs?: number;
  restart?: Partial<RestartPolicy>;
  /** Working directory of stdio servers without their own `cwd` (the workspace). Default: process.cwd(). */
  cwd?: string;
  clientInfo?: { name: string; version: string };
  /** The clock of the restart budget (tests fake it). */
  now?: () => number;
}

export const DEFAULT_CALL_TIMEOUT_MS = 120_000;

export class McpHub {
  private readonly connections = new Map<string, ServerConnection>();
  private readonly listeners = new Set<(event: McpHubEvent) => void>();
  private closed = false;

  constructor(servers: readonly McpServerConfig[], options: McpHubOptions = {}) {
    const settings: ConnectionSettings = {
      clientInfo: options.clientInfo ?? { name: 'murmur', version: '0.1.0' },
      startTimeoutMs: options.startTimeoutMs ?? 30_000,
      listTimeoutMs: options.listTimeoutMs ?? 30_000,
      callTimeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      cwd: options.cwd ?? process.cwd(),
      restart: { ...DEFAULT_RESTART_POLICY, ...options.restart },
      now: options.now ?? Date.now,
      emit: (event) => {
        for (const listener of this.listeners) listener(event);
      },
    };
    for (const server of servers) {
      if (this.connections.has(server.name))
        throw new Error(
          `McpHub: two servers are named "${server.name}" (merge configurations with mergeMcpConfigs first)`,
        );
      this.connections.set(server.name, new ServerConnection(server, settings));
    }
  }

  /** Configured servers, in configuration order. */
  get servers(): McpServerConfig[] {
    return [...this.connections.values()].map((connection) => connection.config);
  }

  server(name: string): McpServerConfig | undefined {
    return this.connections.get(name)?.config;
  }

  state(name: string): McpServerState | undefined {
    return this.connections.get(name)?.state;
  }

  /** The process id of a running stdio server. */
  pid(name: string): number | undefined {
    return this.connections.get(name)?.pid;
  }

  /** The last lines a stdio server wrote to stderr (for diagnostics). */
  stderrTail(name: string): string {
    return this.connections.get(name)?.stderrTail ?? '';
  }

  /** Restarts made within the restart window. */
  restarts(name: string): number {
    return this.connections.get(name)?.restarts ?? 0;
  }

  /** Listens to state changes and tools/list_changed notifications; returns the unsubscribe function. */
  on(listener: (event: McpHubEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** One server's tools (starting it if it never ran). Never throws: a failure is in `error`. */
  async listTools(server: string, signal?: AbortSignal): Promise<McpToolListing> {
    const connection = this.connections.get(server);
    if (!connection) return { server, tools: [], available: false, version: 0, error: this.unknown(server) };
    return connection.listTools(signal);
  }

  /** Calls one tool. Never throws: a failure (unavailable, timeout, crash, malformed result) is an outcome. */
  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: McpCallOptions = {},
  ): Promise<McpCallOutcome> {
    const connection = this.connections.get(server);
    if (!connection) return { ok: false, reason: 'unknown-server', error: this.unknown(server) };
    return connection.callTool(tool, args, options);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Stops every server; their processes are gone when this resolves. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.connections.values()].map((connection) => connection.close()));
  }

  private unknown(server: string): string {
    const names = [...this.connections.keys()];
    return `no MCP server is named "${server}" (configured: ${names.length > 0 ? names.join(', ') : 'none'})`;
  }
}
