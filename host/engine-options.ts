// Engine options from plain values: the permission setup, the interaction adapters, the registry's host tools,
// MCP servers as a tool source, the swarm tool and adapter, the result budget and providers for defined agents.
import { realpathSync } from 'node:fs';
import type { EngineOptions, RunSettings } from '../orchestrator/engine.js';
import type { EventBus } from '../orchestrator/events.js';
import type { MurmurConfig } from '../orchestrator/config.js';
import type { ModelProvider } from '../orchestrator/models/provider.js';
import { interactionAdapters } from '../orchestrator/host-adapters.js';
import type { McpSource } from '../orchestrator/mcp-source.js';
import type { SessionStore } from '../orchestrator/session.js';
import type { AgentTreeLimits } from '../orchestrator/agent-tree.js';
import type { Semaphore } from '../orchestrator/model-gate.js';
import type { HostInterface } from '../roles/filters.js';
import type { Asker } from '../orchestrator/permissions/asker.js';
import type { PermissionMode } from '../orchestrator/permissions/policy.js';
import { createPermissionSetup, PermissionRuleError, type AgentLookupRecord, type PermissionSetup } from '../orchestrator/permissions/setup.js';
import type { RuntimeTool } from '../tools/contract.js';
import { createResultBudget } from '../tools/budget.js';
import { skillToolAvailable, webSearchAvailable } from '../tools/interaction-tools.js';
import { agentSwarmTool } from '../tools/agents/agent-swarm.js';
import { swarmAdapterFor } from './swarm-adapter.js';
import { CREATE_SCHEDULED_TASK, createScheduledTaskTool } from '../tools/agents/create-scheduled-task.js';
import { cronToolAdapter } from '../orchestrator/cron/tool-adapter.js';
import { HostInputError } from './errors.js';

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
  hostInterface: HostInterface;
  sessionKind: 'run' | 'swarm';
  /** MCP servers as a tool source (see orchestrator/mcp-source.ts); absent = none. */
  mcp?: McpSource;
  /** Absent = murmur.toml's `permissionMode`, else manual. */
  permissionMode?: PermissionMode;
  /** Absent = murmur.toml's `[swarm] swarmMode`. */
  swarmMode?: boolean;
  /** The one place where a person answers; absent = nobody can (requests are then settled by policy at once). */
  asker?: Asker;
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
}

/**
 * What the options refer to that exists only later: the session (created by the engine when the host did not
 * make one) and the agents (the engine's scheduler). The assembly passes fixed values; the older callers pass
 * lookups into the engine they are about to build.
 */
export interface EngineLinks {
  session: () => SessionStore | undefined;
  agents: (agentId: string) => AgentLookupRecord | undefined;
}

/** create_scheduled_task for this workspace: the card goes through the permission setup's exempt approval. */
function scheduledTaskTool(cwd: string, env: NodeJS.ProcessEnv, model: string, permissions: PermissionSetup): RuntimeTool {
  return createScheduledTaskTool(
    cronToolAdapter({ workspace: realpathSync(cwd), env, defaultModel: model, confirm: (request, signal) => permissions.confirm({ ...request, tool: CREATE_SCHEDULED_TASK }, signal) }),
  );
}

/** The permission setup; a bad rule is a HostInputError naming `permissions`. */
export function permissionsFor(input: HostInput, agents: EngineLinks['agents']): PermissionSetup {
  try {
    return createPermissionSetup({
      config: input.config,
      workspaceRoot: realpathSync(input.cwd),
      ...(input.permissionMode !== undefined ? { mode: input.permissionMode } : {}),
      ...(input.swarmMode !== undefined ? { swarmMode: input.swarmMode } : {}),
      ...(input.asker ? { asker: input.asker } : {}),
      ...(input.headlessReason !== undefined ? { headlessReason: input.headlessReason } : {}),
      agents,
      bus: input.bus,
    });
  } catch (error) {
    if (error instanceof PermissionRuleError) throw new HostInputError('permissions', error.message);
    throw error;
  }
}

/** Engine options for a host, in order: permissions, then interaction adapters (the user channel is theirs), then the rest. */
export async function hostEngineOptions(input: HostInput, links: EngineLinks): Promise<EngineOptions> {
  const { cwd, config, env, bus, provider } = input;
  const permissions = permissionsFor(input, links.agents);
  const interaction = await interactionAdapters({ cwd, config, bus, env, ...(input.asker ? { user: permissions.userChannel } : {}) });
  interaction.planMode = permissions.planMode;
  const options: EngineOptions = {
    cwd,
    provider,
    config,
    env,
    bus,
    hostInterface: input.hostInterface,
    sessionKind: input.sessionKind,
    interaction,
    // ask_user_question only where someone can answer; plan mode everywhere (headless plans are rejected by policy).
    registry: {
      askUser: input.asker !== undefined,
      fetch: true,
      skills: skillToolAvailable(interaction),
      webSearch: webSearchAvailable(interaction),
      extra: [...permissions.tools, scheduledTaskTool(cwd, env, provider.name, permissions), ...(input.tools ?? [])],
    },
    permission: permissions.permission,
    extraVetoes: permissions.extraVetoes,
    swarmTool: agentSwarmTool,
    swarmFor: (e, record) => swarmAdapterFor(e, record, { env }),
    resultBudget: (_record, hasRead) => {
      const session = links.session();
      return createResultBudget({
        agentHasRead: hasRead,
        ...(session ? { toolOutputsDir: session.toolOutputsDir } : {}),
        ...(config.budget?.maxResultChars !== undefined ? { maxResultChars: config.budget.maxResultChars } : {}),
        ...(config.budget?.spillChars !== undefined ? { spillChars: config.budget.spillChars } : {}),
      });
    },
  };
  if (input.providerFor) options.providerFor = input.providerFor;
  if (input.mcp) options.mcp = input.mcp;
  if (input.session !== undefined) options.session = input.session;
  if (input.settings) options.settings = input.settings;
  if (input.limits) options.limits = { ...options.limits, ...input.limits };
  if (input.modelGate) options.modelGate = input.modelGate;
  return options;
}
