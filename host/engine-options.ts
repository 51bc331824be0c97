// Engine options from plain values: the permission setup, the interaction adapters, the registry's host tools,
// MCP servers as a tool source, the swarm tool and adapter, the result budget and providers for defined agents.
import { realpathSync } from 'node:fs';
import type { Engine, EngineOptions, RunSettings } from '../orchestrator/engine.js';
import type { EventBus } from '../orchestrator/events.js';
import type { MurmurConfig } from '../orchestrator/config.js';
import type { ModelProvider } from '../orchestrator/models/provider.js';
import { interactionAdapters } from '../orchestrator/host-adapters.js';
import type { InteractionAdapters } from '../tools/adapters-interaction.js';
import type { McpSource } from '../orchestrator/mcp-source.js';
import type { SessionStore } from '../orchestrator/session.js';
import { DEFAULT_LIMITS, type AgentTreeLimits } from '../orchestrator/agent-tree.js';
import type { AgentDirectory } from '../orchestrator/agent-directory.js';
import type { AppendPool } from '../orchestrator/append-pool.js';
import { Semaphore } from '../orchestrator/model-gate.js';
import type { FrontEnd, ToolAccess } from '../roles/filters.js';
import type { AgentProfile } from '../roles/profile.js';
import type { ToolCallHook } from '../orchestrator/runtime-ports.js';
import type { Asker } from '../orchestrator/permissions/asker.js';
import type { PermissionMode } from '../orchestrator/permissions/policy.js';
import {
  createPermissionSetup,
  PermissionRuleError,
  type AgentLookupRecord,
  type PermissionSetup,
} from '../orchestrator/permissions/setup.js';
import type { RuntimeTool } from '../tools/contract.js';
import { createResultBudget } from '../tools/budget.js';
import { skillToolAvailable, webSearchAvailable } from '../tools/interaction-tools.js';
import { agentSwarmTool } from '../tools/agents/agent-swarm.js';
import { swarmAdapterFor } from './swarm-adapter.js';
import {
  CREATE_SCHEDULED_TASK,
  createScheduledTaskTool,
  type ScheduledTaskAdapter,
} from '../tools/agents/create-scheduled-task.js';
import { HostInputError } from './errors.js';
import type { SandboxChoice } from './sandbox.js';
import type { ShellSandbox } from '../tools/adapters.js';
import type { Interruption } from '../protocol/interruptions.js';
import type { InterruptionDesk } from '../orchestrator/permissions/interruption-desk.js';

/** Everything a host decides, as plain values (no parsed command line). */
export interface HostInput {
  /** The workspace (an existing folder). */
  cwd: string;
  config: MurmurConfig;
  env: NodeJS.ProcessEnv;
  bus: EventBus;
  provider: ModelProvider;
  /** Providers for agent definitions that name another model; absent = every agent runs on `provider`. */
  providerFor?: (spec: string) => Promise<ModelProvider>;
  frontEnd: FrontEnd;
  sessionKind: 'run' | 'swarm';
  /** MCP servers as a tool source (see orchestrator/mcp-source.ts); absent = none. */
  mcp?: McpSource;
  /** Absent = murmur.toml's `permissionMode`, else manual. */
  permissionMode?: PermissionMode;
  /** Absent = murmur.toml's `[swarm] swarmMode`. */
  swarmMode?: boolean;
  /** Agents' shells in the sandbox (host/sandbox.ts); absent fields = murmur.toml's `[sandbox]`. */
  sandbox?: SandboxChoice;
  /**
   * The one place where a person answers; absent = nobody can: requests are then held for a person when
   * `holdForPerson` (the run ends `waiting`), else settled by policy at once.
   */
  asker?: Asker;
  /** With nobody to ask, a call that needs a person is held as an interruption (the run ends `waiting`). */
  holdForPerson?: boolean;
  /** The run's interruptions so far (a resumed session's), with the answers given since. */
  interruptions?: readonly Interruption[];
  headlessReason?: string;
  /** Reopen this session; false = nothing on disk; absent = a new session. */
  session?: SessionStore | false;
  /** Saved with the session, so a resume continues under the same choices. */
  settings?: RunSettings;
  limits?: Partial<AgentTreeLimits>;
  /** A process-wide limit on model requests in flight, when several engines share the process. */
  modelGate?: Semaphore;
  /** The host's own tools (a library user's), added to the registry; the catalog's filters still apply. */
  tools?: readonly RuntimeTool[];
  /** Agents defined in code (the library's defineAgent), beside the definition files' (names saved with the session). */
  agents?: readonly AgentProfile[];
  /** The host's hook on every tool call, before permissions. */
  onToolCall?: ToolCallHook;
  /** The run's tool access (saved with the session, so a resume keeps it). */
  toolAccess?: ToolAccess;
  /** Where the run's files are appended (transcripts, events.jsonl, task logs); absent = the process's pool. */
  appendPool?: AppendPool;
}

/** What the assembly made before the options, in this order: the agent directory, the permission setup and interaction adapters, the session. */
export interface EngineParts {
  directory: AgentDirectory;
  permissions: PermissionSetup;
  interaction: InteractionAdapters;
  /** None = nothing on disk. */
  session: SessionStore | undefined;
  /** The run's sandbox, checked to work; none = commands unconfined. */
  sandbox: ShellSandbox | undefined;
  /** What the run waits for (saved with its state). */
  desk: InterruptionDesk;
}

/** One limit on model requests in flight for every engine of a process (`murmur mcp serve` runs one per request). */
export function sharedModelGate(config: MurmurConfig): Semaphore {
  return new Semaphore(config.limits?.maxModelRequests ?? DEFAULT_LIMITS.maxModelRequests);
}

/** create_scheduled_task for this workspace: the card goes through the permission setup's exempt approval. */
function scheduledTaskTool(
  cwd: string,
  env: NodeJS.ProcessEnv,
  model: string,
  permissions: PermissionSetup,
): RuntimeTool {
  const workspace = realpathSync(cwd);
  const confirm: ScheduledTaskAdapter['confirm'] = (request, signal) =>
    permissions.confirm({ ...request, tool: CREATE_SCHEDULED_TASK }, signal);
  // The scheduler's store (croner, the time zone table) loads on the tool's first call, not at start-up.
  let adapter: Promise<ScheduledTaskAdapter> | undefined;
  const loaded = () =>
    (adapter ??= import('../scheduler/tool-adapter.js').then(({ cronToolAdapter }) =>
      cronToolAdapter({ workspace, env, defaultModel: model, confirm }),
    ));
  return createScheduledTaskTool({ prepare: async (args) => (await loaded()).prepare(args), confirm });
}

/** The permission setup; a bad rule is a HostInputError naming `permissions`. */
export function permissionsFor(
  input: HostInput,
  agents: (agentId: string) => AgentLookupRecord | undefined,
  sandbox: ShellSandbox | undefined,
  desk: InterruptionDesk,
): PermissionSetup {
  try {
    return createPermissionSetup({
      config: input.config,
      workspaceRoot: realpathSync(input.cwd),
      ...(input.permissionMode !== undefined ? { mode: input.permissionMode } : {}),
      ...(input.swarmMode !== undefined ? { swarmMode: input.swarmMode } : {}),
      sandboxed: sandbox !== undefined,
      ...(input.asker ? { asker: input.asker } : {}),
      ...(input.headlessReason !== undefined ? { headlessReason: input.headlessReason } : {}),
      agents,
      bus: input.bus,
      desk,
    });
  } catch (error) {
    if (error instanceof PermissionRuleError) throw new HostInputError('permissions', error.message);
    throw error;
  }
}

/** The interaction adapters; the user channel is the permission setup's (one place where a person answers). */
export async function interactionFor(input: HostInput, permissions: PermissionSetup): Promise<InteractionAdapters> {
  const { cwd, config, env, bus } = input;
  const interaction = await interactionAdapters({
    cwd,
    config,
    bus,
    env,
    ...(input.asker || input.holdForPerson ? { user: permissions.userChannel } : {}),
  });
  interaction.planMode = permissions.planMode;
  return interaction;
}

/** Engine options for a host from the parts made before them. */
export function hostEngineOptions(input: HostInput, parts: EngineParts): EngineOptions<Engine> {
  const { cwd, config, env, bus, provider } = input;
  const { permissions, interaction, session } = parts;
  const options: EngineOptions<Engine> = {
    cwd,
    provider,
    config,
    env,
    bus,
    frontEnd: input.frontEnd,
    sessionKind: input.sessionKind,
    interaction,
    // ask_user_question only where someone can answer; plan mode everywhere (headless plans are rejected by policy).
    registry: {
      askUser: input.asker !== undefined || input.holdForPerson === true,
      fetch: true,
      skills: skillToolAvailable(interaction),
      webSearch: webSearchAvailable(interaction),
      extra: [...permissions.tools, scheduledTaskTool(cwd, env, provider.name, permissions), ...(input.tools ?? [])],
    },
    permission: permissions.permission,
    sessionRules: { list: permissions.sessionRules, restore: permissions.restoreSessionRules },
    extraVetoes: permissions.extraVetoes,
    swarmTool: agentSwarmTool,
    swarmFor: (e, record) => swarmAdapterFor(e, record, { env }),
    resultBudget: (_record, hasRead) =>
      createResultBudget({
        agentHasRead: hasRead,
        ...(session ? { toolOutputsDir: session.toolOutputsDir } : {}),
        ...(config.budget?.maxResultChars !== undefined ? { maxResultChars: config.budget.maxResultChars } : {}),
        ...(config.budget?.spillChars !== undefined ? { spillChars: config.budget.spillChars } : {}),
      }),
    session: session ?? false,
    directory: parts.directory,
    interruptions: parts.desk,
  };
  if (input.providerFor) options.providerFor = input.providerFor;
  if (input.mcp) options.mcp = input.mcp;
  if (input.settings) options.settings = input.settings;
  if (parts.sandbox) {
    options.sandbox = parts.sandbox;
    // Saved, so a resume runs its commands in the sandbox too (whichever way it was turned on).
    options.settings = {
      ...options.settings,
      sandbox: true,
      ...(parts.sandbox.network ? { sandboxNetwork: true } : {}),
    };
  }
  if (input.onToolCall) options.onToolCall = input.onToolCall;
  if (input.agents && input.agents.length > 0) {
    options.agents = input.agents;
    options.settings = { ...options.settings, codeAgents: input.agents.map((agent) => agent.name) };
  }
  if (input.toolAccess) {
    options.toolAccess = input.toolAccess;
    options.settings = { ...options.settings, toolAccess: input.toolAccess };
  }
  // A swarm session's items are subagents without a parent: the spawn cap for one agent's children does not apply.
  if (input.sessionKind === 'swarm') options.limits = { maxAgents: Number.POSITIVE_INFINITY };
  if (input.limits) options.limits = { ...options.limits, ...input.limits };
  if (input.modelGate) options.modelGate = input.modelGate;
  if (input.appendPool) options.appendPool = input.appendPool;
  return options;
}
