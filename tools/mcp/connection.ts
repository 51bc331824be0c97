// One MCP server as the hub sees it: a lazily started connection, its cached tool list, and the crash/restart
// bookkeeping. The SDK is imported on first start so nothing MCP-related loads until a server is used.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from './config.js';
import { formatMs, RestartBudget, type RestartPolicy } from './restart-budget.js';
import { mcpSdk } from './sdk-loader.js';

export type McpServerState = 'idle' | 'starting' | 'ready' | 'crashed' | 'closed';

export interface McpToolListing {
  server: string;
  tools: readonly Tool[];
  /** False while the server is down (crashed, not yet restarted, or failed to start). */
  available: boolean;
  /** Bumped whenever the list's content changes, so callers can reuse what they built from it. */
  version: number;
  /** Why the list may be incomplete or the server unusable. */
  error?: string;
  /** Tools left out because murmur cannot call them (task-only execution). */
  skipped?: string[];
}

export type McpCallFailure =
  'unknown-server' | 'unavailable' | 'timeout' | 'aborted' | 'closed' | 'malformed' | 'failed';

export type McpCallOutcome = { ok: true; result: unknown } | { ok: false; reason: McpCallFailure; error: string };

export interface McpCallOptions {
  signal?: AbortSignal;
  /** Overrides the server's and the hub's timeout. */
  timeoutMs?: number;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

export type McpHubEvent =
  { type: 'tools_changed'; server: string } | { type: 'state'; server: string; state: McpServerState; error?: string };

export interface ConnectionSettings {
  clientInfo: { name: string; version: string };
  startTimeoutMs: number;
  listTimeoutMs: number;
  callTimeoutMs: number;
  /** Working directory of stdio servers that do not set their own. */
  cwd: string;
  restart: RestartPolicy;
  now: () => number;
  emit: (event: McpHubEvent) => void;
}

type Ready = { ok: true; client: Client } | { ok: false; error: string };

const STDERR_TAIL = 2_000;
const MAX_LIST_PAGES = 100;

export function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const status = (error as { code?: unknown }).code;
  if (error.message.startsWith('Streamable HTTP error') && typeof status === 'number' && status > 0)
    return `${error.message} (HTTP ${status})`;
  // fetch() hides the reason (ECONNREFUSED…) in `cause`.
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error && !error.message.includes(cause.message)
    ? `${error.message} (${cause.message})`
    : error.message;
}

/** The JSON-RPC error code of a protocol error; undefined for failures below the protocol. */
function errorCode(error: unknown): number | undefined {
  // The HTTP transport's errors carry the HTTP status in `code` too: only McpError's code is a JSON-RPC one.
  if (!(error instanceof Error) || !(error.name === 'McpError' || error.message.startsWith('MCP error ')))
    return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

// The SDK rejects a result that does not parse as a tool result with the schema library's error (it has `issues`).
function isMalformedResult(error: unknown): boolean {
  return Array.isArray((error as { issues?: unknown } | null)?.issues);
}

/** A signal that follows `outer` until unlinked. */
function linkSignal(outer: AbortSignal | undefined): { signal: AbortSignal; unlink: () => void } | undefined {
  if (!outer) return undefined;
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer.reason);
  if (outer.aborted) onAbort();
  else outer.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, unlink: () => outer.removeEventListener('abort', onAbort) };
}

const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

export class ServerConnection {
  state: McpServerState = 'idle';
  version = 0;
  private client: Client | undefined;
  private starting: Promise<Ready> | undefined;
  private listing: Promise<McpToolListing> | undefined;
  private tools: Tool[] | undefined;
  private skipped: string[] = [];
  private stale = true;
  private crashedAt = 0;
  private lastError: string | undefined;
  private stderr = '';
  private pidOf: (() => number | null) | undefined;
  /** Bumped on every start and on close, so callbacks of an older connection are ignored. */
  private generation = 0;
  private readonly budget: RestartBudget;

  constructor(
    readonly config: McpServerConfig,
    private readonly settings: ConnectionSettings,
  ) {
    this.budget = new RestartBudget(settings.restart, settings.now);
  }

  get name(): string {
    return this.config.name;
  }

  get pid(): number | undefined {
    return this.pidOf?.() ?? undefined;
  }

  get stderrTail(): string {
    return this.stderr;
  }

  get restarts(): number {
    return this.budget.count;
  }

  private setState(state: McpServerState, error?: string): void {
    this.state = state;
    this.settings.emit(
      error === undefined
        ? { type: 'state', server: this.name, state }
        : { type: 'state', server: this.name, state, error },
    );
  }

  private withStderr(message: string): string {
    const tail = this.stderr.trim();
    if (!tail) return message;
    const lastLines = tail.split('\n').slice(-5).join('\n');
    return `${message}; its last stderr output: ${lastLines}`;
  }

  private markCrashed(generation: number, reason: string): void {
    if (generation !== this.generation || this.state === 'closed' || this.state === 'crashed') return;
    this.client = undefined;
    this.crashedAt = this.settings.now();
    this.lastError = this.withStderr(reason);
    this.setState('crashed', this.lastError);
  }

  /** A started, initialised client, starting or restarting the server when the restart budget allows. */
  ready(signal?: AbortSignal): Promise<Ready> {
    if (this.state === 'closed') return Promise.resolve({ ok: false, error: 'the MCP hub is closed' });
    if (this.state === 'ready' && this.client) return Promise.resolve({ ok: true, client: this.client });
    if (!this.starting) {
      if (this.state === 'crashed') {
        const verdict = this.budget.check(this.crashedAt);
        if (!verdict.allowed)
          return Promise.resolve({ ok: false, error: `${this.lastError ?? 'it crashed'}; ${verdict.reason}` });
        this.budget.record();
      }
      this.starting = this.start().finally(() => {
        this.starting = undefined;
      });
    }
    if (!signal) return this.starting;
    // Waiting callers may give up; the start itself goes on, since other agents share it.
    return new Promise<Ready>((resolve) => {
      const onAbort = () => resolve({ ok: false, error: 'aborted while the server was starting' });
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      void this.starting!.then((ready) => {
        signal.removeEventListener('abort', onAbort);
        resolve(ready);
      });
    });
  }

  private async createTransport(): Promise<Transport> {
    const config = this.config;
    if (config.transport === 'stdio') {
      const { StdioClientTransport } = await mcpSdk(() => import('@modelcontextprotocol/sdk/client/stdio.js'));
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args,
        env: config.env,
        cwd: config.cwd ?? this.settings.cwd,
        // Piped, not inherited: a server's logging must not scribble over the dashboard; the tail explains crashes.
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => {
        this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
      this.pidOf = () => transport.pid;
      return transport;
    }
    const { StreamableHTTPClientTransport } = await mcpSdk(
      () => import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    );
    this.pidOf = undefined;
    return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
  }

  private async start(): Promise<Ready> {
    const generation = ++this.generation;
    this.stderr = '';
    this.setState('starting');
    let client: Client | undefined;
    try {
      const [{ Client }, { ToolListChangedNotificationSchema }] = await Promise.all([
        mcpSdk(() => import('@modelcontextprotocol/sdk/client/index.js')),
        mcpSdk(() => import('@modelcontextprotocol/sdk/types.js')),
      ]);
      client = new Client(this.settings.clientInfo, { capabilities: {} });
      client.onclose = () =>
        this.markCrashed(generation, 'the server closed the connection (its process exited or the stream ended)');
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        if (generation !== this.generation) return;
        this.stale = true;
        this.settings.emit({ type: 'tools_changed', server: this.name });
      });
      // Held before connecting so close() can stop a start in progress.
      this.client = client;
      await client.connect(await this.createTransport(), { timeout: this.settings.startTimeoutMs });
    } catch (error) {
      const why =
        errorCode(error) === REQUEST_TIMEOUT
          ? `it did not answer initialize within ${formatMs(this.settings.startTimeoutMs)}`
          : errorMessage(error);
      if (generation === this.generation && this.state !== 'closed') {
        // The start error explains more than the "connection closed" that may have been noted first.
        this.state = 'starting';
        this.markCrashed(generation, `could not be started: ${why}`);
      }
      // Stops a process that spawned but never finished the handshake.
      await this.closeClient(client);
      if (this.state === 'closed') return { ok: false, error: 'the MCP hub is closed' };
      return { ok: false, error: this.lastError ?? `could not be started: ${why}` };
    }
    if (generation !== this.generation || this.state === 'closed') {
      await this.closeClient(client);
      return { ok: false, error: 'the MCP hub is closed' };
    }
    if (this.state === 'crashed') return { ok: false, error: this.lastError ?? 'it exited right after starting' };
    this.stale = true;
    this.setState('ready');
    return { ok: true, client };
  }

  private async closeClient(client: Client | undefined): Promise<void> {
    if (!client) return;
    try {
      await client.close();
    } catch {
      // Closing a connection that is already gone is not a failure worth reporting.
    }
  }

  private listingOf(error?: string): McpToolListing {
    const listing: McpToolListing = {
      server: this.name,
      tools: this.tools ?? [],
      available: this.state === 'ready',
      version: this.version,
    };
    if (error !== undefined) listing.error = error;
    if (this.skipped.length > 0) listing.skipped = [...this.skipped];
    return listing;
  }

  /** The server's tools: cached, refetched after tools/list_changed or a restart. */
  async listTools(signal?: AbortSignal): Promise<McpToolListing> {
    // A crashed server that has a list keeps showing it; the next call restarts the server.
    if (this.state === 'crashed' && this.tools) return this.listingOf(this.lastError);
    const ready = await this.ready(signal);
    if (!ready.ok) return this.listingOf(ready.error);
    if (!this.stale && this.tools) return this.listingOf();
    this.listing ??= this.fetchTools(ready.client).finally(() => {
      this.listing = undefined;
    });
    return this.listing;
  }

  private async fetchTools(client: Client): Promise<McpToolListing> {
    const generation = this.generation;
    // Cleared before fetching, so a list_changed that arrives meanwhile triggers another fetch next time.
    this.stale = false;
    try {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const result = await client.listTools(cursor === undefined ? undefined : { cursor }, {
          timeout: this.settings.listTimeoutMs,
        });
        tools.push(...result.tools);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      if (generation !== this.generation) return this.listingOf();
      // Task-only tools need the experimental tasks API, which murmur does not drive.
      const usable = tools.filter((tool) => tool.execution?.taskSupport !== 'required');
      this.skipped = tools.filter((tool) => tool.execution?.taskSupport === 'required').map((tool) => tool.name);
      if (JSON.stringify(usable) !== JSON.stringify(this.tools)) {
        this.tools = usable;
        this.version++;
      }
      return this.listingOf();
    } catch (error) {
      this.stale = true;
      this.noteConnectionFailure(generation, error);
      return this.listingOf(`tools/list failed: ${this.describeFailure(error, this.settings.listTimeoutMs)}`);
    }
  }

  async callTool(tool: string, args: Record<string, unknown>, options: McpCallOptions = {}): Promise<McpCallOutcome> {
    const ready = await this.ready(options.signal);
    if (!ready.ok) {
      if (options.signal?.aborted) return { ok: false, reason: 'aborted', error: 'the call was aborted' };
      return { ok: false, reason: 'unavailable', error: `MCP server "${this.name}" is unavailable: ${ready.error}` };
    }
    const generation = this.generation;
    const timeout = options.timeoutMs ?? this.config.timeoutMs ?? this.settings.callTimeoutMs;
    const requestOptions: RequestOptions = { timeout };
    // The SDK never removes the abort listener it adds, so it gets a signal of its own that dies with the call
    // rather than the agent's, which lives for the whole run.
    const link = linkSignal(options.signal);
    if (link) requestOptions.signal = link.signal;
    if (options.onProgress) requestOptions.onprogress = options.onProgress;
    try {
      const result = await ready.client.callTool({ name: tool, arguments: args }, undefined, requestOptions);
      return { ok: true, result };
    } catch (error) {
      if (options.signal?.aborted) return { ok: false, reason: 'aborted', error: 'the call was aborted' };
      this.noteConnectionFailure(generation, error);
      const code = errorCode(error);
      const reason: McpCallFailure =
        code === REQUEST_TIMEOUT
          ? 'timeout'
          : code === CONNECTION_CLOSED || this.state === 'crashed'
            ? 'closed'
            : isMalformedResult(error)
              ? 'malformed'
              : 'failed';
      return { ok: false, reason, error: this.describeFailure(error, timeout) };
    } finally {
      link?.unlink();
    }
  }

  private describeFailure(error: unknown, timeoutMs: number): string {
    const code = errorCode(error);
    if (code === REQUEST_TIMEOUT) return `no answer within ${formatMs(timeoutMs)} (the request was cancelled)`;
    if (code === CONNECTION_CLOSED || this.state === 'crashed') {
      return `${this.lastError ?? 'the server closed the connection'}; it is restarted on the next call`;
    }
    if (isMalformedResult(error)) {
      const issues = (error as { issues: { path?: unknown[]; message?: string }[] }).issues;
      const first = issues
        .slice(0, 3)
        .map((issue) => `${(issue.path ?? []).join('.') || '/'}: ${issue.message ?? 'invalid'}`);
      return `the server returned a malformed result (${first.join('; ')})`;
    }
    return errorMessage(error);
  }

  /**
   * Errors below the protocol (a refused HTTP connection, a broken pipe) leave the connection unusable: mark it
   * crashed so the next call reconnects. Protocol errors (bad params, timeouts) keep it.
   */
  private noteConnectionFailure(generation: number, error: unknown): void {
    if (errorCode(error) !== undefined || isMalformedResult(error)) return;
    if (generation !== this.generation || this.state !== 'ready') return;
    const client = this.client;
    this.markCrashed(generation, `the connection failed: ${errorMessage(error)}`);
    this.generation++;
    void this.closeClient(client);
  }

  /** Stops the server (its process, for stdio) and refuses every later use. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.generation++;
    const client = this.client;
    const starting = this.starting;
    this.client = undefined;
    this.setState('closed');
    await this.closeClient(client);
    await starting?.catch(() => undefined);
  }
}
