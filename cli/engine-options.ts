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
import type { UserChannel } from '../tools/adapters-interaction.js';
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
  /** Where ask_user_question goes; absent = nobody can answer (the tool is then not offered). */
  user?: UserChannel;
}

/** Engine options for a host; `engine()` must return the engine built from them (the budget needs its session). */
export async function sharedEngineOptions(input: SharedOptionsInput, engine: () => Engine): Promise<EngineOptions> {
  const { cwd, config, env, bus, provider } = input;
  const interaction = await interactionAdapters({ cwd, config, bus, env, ...(input.user ? { user: input.user } : {}) });
  const options: EngineOptions = {
    cwd,
    provider,
    providerFor: providerFactory(input.args, config, cwd, env),
    config,
    env,
    bus,
    hostInterface: input.hostInterface,
    sessionKind: input.sessionKind,
    interaction,
    registry: { askUser: input.user !== undefined, fetch: true, skills: skillToolAvailable(interaction), webSearch: webSearchAvailable(interaction) },
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
