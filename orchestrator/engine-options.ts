// What an engine is built from (EngineOptions, all plain values and ports: the host assembly fills them) and what
// a run returns (RunOutcome).
import type { ShellSandbox, SwarmAdapter } from '../tools/adapters.js';
import type { InteractionAdapters } from '../tools/adapters-interaction.js';
import type { AgentSwarmToolFactory } from '../tools/agents/agent-swarm.js';
import type { RegistryDeps } from '../tools/registry.js';
import type { AgentProfile } from '../roles/profile.js';
import type { FrontEnd, ToolAccess } from '../roles/filters.js';
import type { AgentDirectory } from './agent-directory.js';
import type { AppendPool } from './append-pool.js';
import type { AgentRecord, AgentTreeLimits } from './agent-tree.js';
import type { Clock } from './clock.js';
import { durationMs, type MurmurConfig } from './config.js';
import type { Environment } from './environment.js';
import type { EventBus } from './events.js';
import type { Semaphore } from './model-gate.js';
import type { ModelProvider } from './models/provider.js';
import type { BatchVetoFor, McpToolSource, PermissionGate, ResultBudgetFor, ToolCallHook } from './runtime-ports.js';
import type { RunSettings } from './saved-state.js';
import type { SessionStore } from './session.js';
import type { InterruptionDesk } from './permissions/interruption-desk.js';

/** The tools MURMUR_DISABLE_CRON=1 removes. */
export const CRON_TOOL_NAMES = ['set_timer', 'create_scheduled_task'] as const;

/** `Owner`: the engine the options are for (engine.ts's Engine), handed to the ports that need all of it. */
export interface EngineOptions<Owner = unknown> {
  cwd: string;
  provider: ModelProvider;
  providerFor?: (spec: string) => Promise<ModelProvider>;
  config?: MurmurConfig;
  env?: Environment;
  bus?: EventBus;
  clock?: Clock;
  frontEnd?: FrontEnd;
  /** The session on disk (the host makes or reopens it: host/assemble.ts); false = nothing on disk (benchmarks). */
  session: SessionStore | false;
  sessionKind?: 'run' | 'swarm';
  definitions?: ReadonlyMap<string, AgentProfile>;
  /** Agents the host defined in code, joined to the definitions (their names clash with none). */
  agents?: readonly AgentProfile[];
  /** The host's hook on every tool call of every agent, before permissions. */
  onToolCall?: ToolCallHook;
  /** The run's tool access: filters the catalog of every agent of the run. */
  toolAccess?: ToolAccess;
  /** Interaction adapters (user channel, todos, skills, web policy, search). */
  interaction?: InteractionAdapters;
  registry?: RegistryDeps;
  /** MCP servers as a tool source (see mcp-source.ts). */
  mcp?: McpToolSource;
  /** The swarm port of an agent, given the engine it runs in once that exists (the host's swarm adapter). */
  swarmFor?: (engine: Owner, record: AgentRecord) => SwarmAdapter;
  /** Offers agent_swarm (with swarmFor): made for each agent from its swarm port. */
  swarmTool?: AgentSwarmToolFactory;
  permission?: PermissionGate;
  extraVetoes?: BatchVetoFor;
  resultBudget?: ResultBudgetFor;
  limits?: Partial<AgentTreeLimits>;
  random?: () => number;
  /** Saved with the session for `murmur resume`. */
  settings?: RunSettings;
  /** A process-wide limit on model requests in flight, when several engines share the process. */
  modelGate?: Semaphore;
  /** false: no murmur-tools in agents' shells (also `[tools] shellBridge = false`). */
  shellBridge?: boolean;
  /** Agents' bash commands run in this sandbox (host/sandbox.ts checks that it works); absent = unconfined. */
  sandbox?: ShellSandbox;
  /** Where the run's agents are registered as they spawn; the host makes it first when its permission setup looks agents up. */
  directory?: AgentDirectory;
  /** The session's "allow always" rules: saved with its state, put back when it is resumed. */
  sessionRules?: { list(): readonly string[]; restore(rules: readonly string[]): void };
  /** Where the run's files are appended (transcripts, events.jsonl, task logs): the process's pool unless given. */
  appendPool?: AppendPool;
  /** The run's interruptions (what waits for a person), saved with its state; the permission setup holds calls there. */
  interruptions?: InterruptionDesk;
}

export type { RunOutcome } from '../protocol/run-outcome.js';

/** The agent tree's limits: murmur.toml's `[limits]`, then the host's own. */
export function limitsFrom(
  config: MurmurConfig,
  extra: Partial<AgentTreeLimits> | undefined,
): Partial<AgentTreeLimits> {
  const limits: Partial<AgentTreeLimits> = {};
  const c = config.limits ?? {};
  if (c.maxDepth !== undefined) limits.maxDepth = c.maxDepth;
  if (c.maxAgents !== undefined) limits.maxAgents = c.maxAgents;
  if (c.maxModelRequests !== undefined) limits.maxModelRequests = c.maxModelRequests;
  if (c.agentTimeout !== undefined) limits.agentTimeoutMs = durationMs(c.agentTimeout, 0);
  if (c.agentBudgetTokens !== undefined) limits.agentBudgetTokens = c.agentBudgetTokens;
  if (c.runBudgetTokens !== undefined) limits.runBudgetTokens = c.runBudgetTokens;
  return { ...limits, ...extra };
}
