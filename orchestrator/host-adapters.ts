// The interaction adapters a host shares with every agent: skills, the web policy and search,
// and (when someone can answer) the user channel. Built from the configuration.
import type { EventBus } from './events.js';
import type { InteractionAdapters, UserChannel } from '../tools/adapters-interaction.js';
import { createSkillCatalog, formatSkillProblems, loadSkills } from '../tools/interact/skills.js';
import { createSearxngAdapter } from '../tools/web/searxng.js';
import { durationMs, type MurmurConfig } from './config.js';

export async function interactionAdapters(options: {
  cwd: string;
  config: MurmurConfig;
  bus: EventBus;
  env: NodeJS.ProcessEnv;
  user?: UserChannel;
}): Promise<InteractionAdapters> {
  const { config, bus } = options;
  // Built-in skills too (murmur-tools); the engine lists each only to agents it is of use to.
  const skills = await loadSkills({
    workspaceRoot: options.cwd,
    ...(options.env.HOME ? { homeDir: options.env.HOME } : {}),
    builtin: true,
  });
  for (const line of formatSkillProblems(skills.problems))
    bus.emit({ type: 'log', level: 'warn', message: `skill skipped: ${line}` });
  const adapters: InteractionAdapters = {
    // No todo store: the engine's (tool-ports.ts) is the one, reporting on the run's bus.
    skills: createSkillCatalog(skills.skills),
    web: {
      allowPrivateAddresses: config.web?.allowPrivateAddresses ?? false,
      ...(config.web?.maxBytes !== undefined ? { maxBytes: config.web.maxBytes } : {}),
      ...(config.web?.timeout !== undefined ? { timeoutMs: durationMs(config.web.timeout, 30_000) } : {}),
    },
  };
  if (config.web?.searxngUrl) adapters.search = createSearxngAdapter({ url: config.web.searxngUrl });
  if (options.user) adapters.user = options.user;
  return adapters;
}
