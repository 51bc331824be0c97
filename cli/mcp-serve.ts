// `murmur mcp serve`: murmur as a stdio MCP server with two tools, run_agent and run_swarm. Each request gets
// its own Run (host/run.ts) and session; progress comes from the run's event bus; a cancelled request aborts it.
// stdout belongs to the protocol: everything else (logs, warnings) goes to stderr.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { parseArgs, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { askerForScreen } from './approvals.js';
import { packageVersion } from './version.js';
import type { PermissionMode } from '../host/permission-rules.js';
import { configFor, mcpSourceFor, providerFactory, providerFor, workspaceFrom } from './setup.js';
import { MCP_FLAGS } from './flags.js';
import { commandSpec } from './commands.js';
import { commandHelp, usageLines } from './help.js';
import type { RunOutcome } from '../protocol/run-outcome.js';
import type { MurmurConfig } from '../orchestrator/config.js';
import type { Semaphore } from '../host/command-parts.js';
import { sharedModelGate } from '../host/engine-options.js';
import { describeRuleProblem, parseRuleLists } from '../host/permission-rules.js';
import type { ModelProvider } from '../host/model-provider.js';
import type { McpSource } from '../host/mcp-servers.js';
import { commandTracing } from './telemetry.js';
import { EventBus } from '../host/event-bus.js';
import { startRun, type RunValues } from '../host/run.js';
import { reportOf, swarmTitle, type Finished, type RunRequest } from '../host/lifecycle.js';
import { anyEnded, renderReport } from '../host/reports.js';
import { maxSwarmItems } from '../host/checks.js';
import { HostInputError } from '../host/errors.js';
import { checkSandboxWorks, sandboxEnabled } from '../host/sandbox.js';
import { followProgress, progressSender } from './mcp-progress.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What every request shares: fixed when the server starts. */
interface ServeContext {
  cwd: string;
  config: MurmurConfig;
  provider: ModelProvider;
  args: ParsedArgs;
  env: NodeJS.ProcessEnv;
  /** The user's MCP servers, shared by every request. */
  mcp?: McpSource;
  /** One limit on model requests in flight for every request's engine: the process shares the provider. */
  gate: Semaphore;
}

export async function mcpCommand(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const spec = commandSpec('mcp serve');
  const usage = `Usage: ${usageLines(spec).join('\n')}\nSee murmur mcp serve --help.`;
  if (sub === '--help' || sub === '-h' || (sub === 'serve' && (rest.includes('--help') || rest.includes('-h')))) {
    process.stdout.write(commandHelp(spec));
    return 0;
  }
  if (sub !== 'serve') {
    throw new UsageError(
      `murmur mcp: ${sub === undefined ? 'missing the subcommand' : `unknown subcommand ${JSON.stringify(sub)}`}; the only one is "serve". ${usage}`,
    );
  }
  const args = parseArgs('mcp serve', rest, MCP_FLAGS);
  if (args.positionals.length > 0)
    throw new UsageError(`murmur mcp serve: unexpected argument ${JSON.stringify(args.positionals[0])}. ${usage}`);
  const env = process.env;
  // Every bad flag, workspace or model is a UsageError here, before anything is served.
  const cwd = workspaceFrom('mcp serve', args);
  const config = await configFor(cwd);
  const provider = await providerFor('mcp serve', args, config, cwd, env);
  const setupBus = new EventBus();
  setupBus.on('log', (event) => log(`${event.level}: ${event.message}`));
  // Bad permission rules are a usage error now, not a failure of every request later.
  const rules = parseRuleLists(config.permissions);
  if (rules.problems.length > 0)
    throw new UsageError(`murmur mcp serve: ${rules.problems.map(describeRuleProblem).join('; ')}`);
  // A sandbox that cannot work here would fail every request: exit 2 now.
  if (sandboxEnabled(config, args.flags.sandbox === true ? { enabled: true } : undefined)) {
    try {
      await checkSandboxWorks(cwd, config, env);
    } catch (error) {
      if (error instanceof HostInputError) throw new UsageError(`murmur mcp serve: ${error.message}`);
      throw error;
    }
  }
  const mcp = await mcpSourceFor({ cwd, config, env, bus: setupBus, provider });
  const gate = sharedModelGate(config);
  return serve({ cwd, config, provider, args, env, gate, ...(mcp ? { mcp } : {}) });
}

function log(line: string): void {
  process.stderr.write(`murmur mcp: ${line}\n`);
}

async function serve(ctx: ServeContext): Promise<number> {
  const [{ McpServer }, { StdioServerTransport }, { z }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('zod'),
  ]);
  const server = new McpServer({ name: 'murmur', version: packageVersion() }, { capabilities: { tools: {} } });
  const active = new Set<Promise<unknown>>();
  let requests = 0;
  const track = <T>(work: Promise<T>): Promise<T> => {
    active.add(work);
    void work.finally(() => active.delete(work)).catch(() => {});
    return work;
  };
  registerTools(server, z, ctx, (run) => track(run(++requests)));

  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  // The client is gone when stdin ends (or stdout breaks): closing the server aborts every request's signal.
  const shutdown = () => void server.close().catch(() => {});
  process.stdin.once('end', shutdown);
  process.stdin.once('close', shutdown);
  process.stdout.on('error', shutdown);
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  await server.connect(transport);
  log(`serving run_agent and run_swarm on stdio (model ${ctx.provider.name}, workspace ${ctx.cwd})`);
  await closed;
  if (active.size > 0) log(`shutting down: aborting ${active.size} run(s) (finished work is kept)`);
  await Promise.allSettled([...active]);
  await ctx.mcp?.close();
  process.off('SIGINT', shutdown);
  process.off('SIGTERM', shutdown);
  // Provider connection pools may hold the loop open; nothing is left to do, so leave soon in any case.
  setTimeout(() => process.exit(process.exitCode ?? 0), 2000).unref();
  return 0;
}

type Zod = typeof import('zod').z;
/** Numbers a request and keeps it in the set of runs in flight until it ends. */
type Tracker = (run: (requestNumber: number) => Promise<CallToolResult>) => Promise<CallToolResult>;

function registerTools(server: McpServer, z: Zod, ctx: ServeContext, track: Tracker): void {
  const usage = z.looseObject({ input: z.number(), output: z.number() });
  const agent = z.looseObject({ id: z.string(), role: z.string(), status: z.string() });
  server.registerTool(
    'run_agent',
    {
      title: 'Run a murmur agent',
      description:
        'Runs a task with a murmur agent in the workspace (reading, searching, editing files and running commands as its role allows) and returns its final answer. role: main (default), explore, worker (coder), verifier, or an agent defined in .murmur/agents/.',
      inputSchema: {
        task: z.string().min(1).describe('What the agent should do.'),
        role: z
          .string()
          .min(1)
          .optional()
          .describe('main (default), explore, worker, verifier, or a defined agent name.'),
      },
      outputSchema: {
        kind: z.literal('run'),
        status: z.string(),
        result: z.string(),
        reason: z.string().optional(),
        usage,
        agents: z.array(agent),
        sessionId: z.string().optional(),
      },
    },
    (input, extra) => track((n) => runAgent(ctx, n, input, extra)),
  );
  const item = z.looseObject({
    index: z.number(),
    item: z.string(),
    outcome: z.string(),
    rounds: z.number(),
    text: z.string(),
  });
  server.registerTool(
    'run_swarm',
    {
      title: 'Run a murmur swarm',
      description:
        'Runs one murmur subagent per item, the prompt being the template with {{item}} replaced by the item, with a ramped concurrency that adapts to rate limits; returns the report (one row per item, in input order). verify: a verifier checks each completed item and failures go back to the worker. isolation "worktree": each worker in its own git worktree, merged back when it completes.',
      inputSchema: {
        template: z.string().min(1).describe('The prompt for each item; every {{item}} is replaced by the item.'),
        items: z.array(z.string()).min(1).describe('The items, e.g. file paths.'),
        role: z
          .string()
          .min(1)
          .optional()
          .describe('explore, worker (coder, default), verifier, or a defined agent name.'),
        verify: z.boolean().optional().describe('A verifier checks every completed item.'),
        max_rounds: z.number().int().min(1).optional().describe('Verify rounds per item (default 2).'),
        isolation: z.enum(['none', 'worktree']).optional().describe('worktree: each worker in its own git worktree.'),
        max_concurrency: z.number().int().min(1).optional().describe('At most this many subagents at once.'),
        description: z.string().optional().describe('A short title for the swarm.'),
      },
      outputSchema: {
        kind: z.literal('swarm'),
        status: z.enum(['completed', 'failed', 'aborted', 'waiting']),
        summary: z.record(z.string(), z.number()),
        resumeAgentIds: z.array(z.string()),
        items: z.array(item),
        reason: z.string().optional(),
        sessionId: z.string().optional(),
        interruptions: z.array(z.looseObject({ agentId: z.string(), callId: z.string() })).optional(),
        startedAt: z.number().optional(),
        durationMs: z.number().optional(),
        usage: usage.optional(),
      },
    },
    (input, extra) => track((n) => runSwarm(ctx, n, input, extra)),
  );
}

function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** One request's engine values: its own session, no screen, no user channel (nobody can answer over MCP). */
function requestValues(ctx: ServeContext, kind: 'run' | 'swarm'): RunValues {
  const { cwd, config, env } = ctx;
  const permissionMode = stringFlag(ctx.args, 'permission-mode') as PermissionMode | undefined;
  return {
    cwd,
    config,
    env,
    provider: ctx.provider,
    providerFor: providerFactory(ctx.args, config, cwd, env, ctx.provider.name),
    frontEnd: 'mcp',
    sessionKind: kind,
    ...(ctx.mcp ? { mcp: ctx.mcp } : {}),
    ...(permissionMode ? { permissionMode } : {}),
    ...(ctx.args.flags.sandbox === true ? { sandbox: { enabled: true } } : {}),
    // Nobody can answer over MCP: approvals are settled by policy at once.
    headlessReason:
      askerForScreen({ mode: 'quiet', screen: undefined, mcpServer: true }).headlessReason ??
      'murmur runs as an MCP server',
    modelGate: ctx.gate,
    ...commandTracing(),
  };
}

/**
 * Runs one request as a Run (host/run.ts): the request's cancellation aborts it (finished work is kept), progress
 * follows its bus, and its session on disk is complete when the result is sent.
 */
async function withRun(
  ctx: ServeContext,
  label: string,
  request: RunRequest,
  extra: Extra,
  progressTotal: number | undefined,
  result: (finished: Finished) => CallToolResult,
): Promise<CallToolResult> {
  const started = Date.now();
  let stopProgress: (() => void) | undefined;
  const run = startRun({
    env: ctx.env,
    signals: [extra.signal],
    attach: (bus) => {
      bus.on('log', (event) => {
        if (event.level !== 'info') log(`${event.level}: ${event.agentId ? `${event.agentId}: ` : ''}${event.message}`);
      });
      stopProgress = followProgress(bus, progressSender(extra), progressTotal);
      return () => stopProgress?.();
    },
    setup: async () => ({ assembly: requestValues(ctx, request.kind === 'swarm' ? 'swarm' : 'run'), request }),
  });
  log(`${label} started (session ${run.sessionId})`);
  const onCancel = () => log(`${label} cancelled by the client: aborting (finished work is kept)`);
  if (extra.signal.aborted) onCancel();
  else extra.signal.addEventListener('abort', onCancel, { once: true });
  let status = 'failed';
  try {
    const outcome = await run.done.catch((error: unknown) => {
      if (error instanceof HostInputError) throw new UsageError(`murmur: ${error.message}`);
      throw error;
    });
    if (!outcome.ok) {
      status = 'refused';
      return errorResult(
        `${request.kind === 'swarm' ? 'run_swarm' : 'run_agent'}: ${outcome.refused.part === 'agent' ? 'role ' : ''}${outcome.refused.message}.`,
      );
    }
    status = outcome.finished.outcome.status;
    return result(outcome.finished);
  } finally {
    extra.signal.removeEventListener('abort', onCancel);
    log(`${label} ended ${status} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

async function runAgent(
  ctx: ServeContext,
  n: number,
  input: { task: string; role?: string | undefined },
  extra: Extra,
): Promise<CallToolResult> {
  const request: RunRequest = {
    kind: 'task',
    task: input.task,
    ...(input.role !== undefined ? { agent: input.role } : {}),
  };
  return withRun(ctx, `run_agent #${n}`, request, extra, undefined, (finished) => agentResult(finished.outcome));
}

function agentResult(outcome: RunOutcome): CallToolResult {
  const json: Record<string, unknown> = {
    kind: 'run',
    status: outcome.status,
    result: outcome.result,
    usage: outcome.usage,
    agents: outcome.agents,
  };
  if (outcome.reason !== undefined) json.reason = outcome.reason;
  if (outcome.sessionId !== undefined) json.sessionId = outcome.sessionId;
  const completed = outcome.status === 'completed';
  const answer = completed
    ? outcome.result || '(the agent ended without a final message)'
    : `The agent ended ${outcome.status}${outcome.reason ? `: ${outcome.reason}` : ''}.${outcome.result ? `\n\nIts last message:\n${outcome.result}` : ''}`;
  return {
    content: [
      { type: 'text', text: answer },
      { type: 'text', text: JSON.stringify(json) },
    ],
    structuredContent: json,
    ...(completed ? {} : { isError: true }),
  };
}

interface SwarmInput {
  template: string;
  items: string[];
  role?: string | undefined;
  verify?: boolean | undefined;
  max_rounds?: number | undefined;
  isolation?: 'none' | 'worktree' | undefined;
  max_concurrency?: number | undefined;
  description?: string | undefined;
}

async function runSwarm(ctx: ServeContext, n: number, input: SwarmInput, extra: Extra): Promise<CallToolResult> {
  // The caller is usually another agent, so the per-call item limit of agent_swarm applies (0 = none).
  const limit = maxSwarmItems(ctx.env, ctx.config);
  if (limit.warning) log(`warn: ${limit.warning}`);
  const description = swarmTitle(input.template, input.items, input.description);
  const request: RunRequest = {
    kind: 'swarm',
    launch: {
      promptTemplate: input.template,
      items: input.items,
      description,
      verify: input.verify === true,
      maxItems: limit.limit,
      ...(input.role !== undefined ? { subagentType: input.role } : {}),
      ...(input.isolation !== undefined ? { isolation: input.isolation } : {}),
      ...(input.max_concurrency !== undefined ? { maxConcurrency: input.max_concurrency } : {}),
      ...(input.max_rounds !== undefined ? { maxRounds: input.max_rounds } : {}),
    },
  };
  return withRun(ctx, `run_swarm #${n}`, request, extra, input.items.length, (finished) => {
    if (finished.kind !== 'swarm') return errorResult('run_swarm: not a swarm.');
    const { results } = finished;
    const json = reportOf(finished);
    return {
      content: [
        { type: 'text', text: renderReport(results) },
        { type: 'text', text: JSON.stringify(json) },
      ],
      structuredContent: json as unknown as Record<string, unknown>,
      // As for agent_swarm: the report is the result; it is an error only when no item completed.
      ...(!anyEnded(results, 'completed') ? { isError: true } : {}),
    };
  });
}
