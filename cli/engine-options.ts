// The engine options every host shares (the terminal command and the MCP server): interaction adapters, MCP
// servers as a tool source, the swarm tool, the result budget and providers for defined agents' models.
import type { ParsedArgs } from './args.js';
import { providerFactory } from './setup.js';
import type { Engine, EngineOptions } from '../orchestrator/engine.js';
import type { EventBus } from '../orchestrator/events.js';
import type { MurmurConfig } from '../orchestrator/config.js';
import type { ModelProvider } from '../orchestrator/models/provider.js';
import { interactionAdapters } from '../orchestrator/host-adapters.js';
import type { McpSource } from '../orchestrator/mcp-source.js';
import type { HostInterface } from '../roles/filters.js';
import { realpathSync } from 'node:fs';
import { UsageError } from './args.js';
import type { Asker } from '../orchestrator/permissions/asker.js';
import type { PermissionMode } from '../orchestrator/permissions/policy.js';
import { createPermissionSetup, PermissionRuleError, type PermissionSetup } from '../orchestrator/permissions/setup.js';
import { createResultBudget } from '../tools/budget.js';
import { skillToolAvailable, webSearchAvailable } from '../tools/interaction-tools.js';
import { agentSwarmTool } from '../tools/agents/agent-swarm.js';
import { swarmAdapterFor } from '../swarm/adapter.js';

export interface SharedOptionsInput {
  cwd: string;
  config: MurmurConfig;
  env: NodeJS.ProcessEnv;
  bus: EventBus;
  provider: ModelProvider;
  args: ParsedArgs;
  hostInterface: HostInterface;
  sessionKind: 'run' | 'swarm';
  mcp?: McpSource;
  /** `--permission-mode`; absent = configuration, else manual. */
  permissionMode?: PermissionMode;
  /** `--swarm-mode`; absent = configuration. */
  swarmMode?: boolean;
  /** The one place where the user answers; absent = nobody can (requests are then settled by policy at once). */
  asker?: Asker;
  headlessReason?: string;
}

/** Engine options for a host; `engine()` must return the engine built from them (the budget needs its session). */
export async function sharedEngineOptions(input: SharedOptionsInput, engine: () => Engine): Promise<EngineOptions> {
  const { cwd, config, env, bus, provider } = input;
  let permissions: PermissionSetup;
  try {
    permissions = createPermissionSetup({
      config,
      workspaceRoot: realpathSync(cwd),
      ...(input.permissionMode !== undefined ? { mode: input.permissionMode } : {}),
      ...(input.swarmMode !== undefined ? { swarmMode: input.swarmMode } : {}),
      ...(input.asker ? { asker: input.asker } : {}),
      ...(input.headlessReason !== undefined ? { headlessReason: input.headlessReason } : {}),
      agents: (id) => engine().scheduler.get(id),
      bus,
    });
  } catch (error) {
    if (error instanceof PermissionRuleError) throw new UsageError(`murmur: ${error.message}`);
    throw error;
  }
  const interaction = await interactionAdapters({ cwd, config, bus, env, ...(input.asker ? { user: permissions.userChannel } : {}) });
  interaction.planMode = permissions.planMode;
  const options: EngineOptions = {
    cwd,
    provider,
    providerFor: providerFactory(input.args, config, cwd, env, provider.name),
    config,
    env,
    bus,
    hostInterface: input.hostInterface,
    sessionKind: input.sessionKind,
    interaction,
    // ask_user_question only where someone can answer; plan mode everywhere (headless plans are rejected by policy).
    registry: { askUser: input.asker !== undefined, fetch: true, skills: skillToolAvailable(interaction), webSearch: webSearchAvailable(interaction), extra: permissions.tools },
    permission: permissions.permission,
    extraVetoes: permissions.extraVetoes,
    swarmTool: agentSwarmTool,
    swarmFor: (e, record) => swarmAdapterFor(e, record, { env }),
    resultBudget: (_record, hasRead) => {
      const session = engine().session;
      return createResultBudget({
        agentHasRead: hasRead,
        ...(session ? { toolOutputsDir: session.toolOutputsDir } : {}),
        ...(config.budget?.maxResultChars !== undefined ? { maxResultChars: config.budget.maxResultChars } : {}),
        ...(config.budget?.spillChars !== undefined ? { spillChars: config.budget.spillChars } : {}),
      });
    },
  };
  if (input.mcp) options.mcp = input.mcp;
  return options;
}
