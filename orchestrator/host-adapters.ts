// The interaction adapters a host shares with every agent: todo lists, skills, the web policy and search,
// and (when someone can answer) the user channel. Built from the configuration.
import type { EventBus } from './events.js';
import type { InteractionAdapters, UserChannel } from '../tools/adapters-interaction.js';
import { createMemoryTodoStore } from '../tools/interact/todo-store.js';
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
    todos: createMemoryTodoStore((agentId, todos) =>
      bus.emit({ type: 'todo.update', agentId, todos: todos.map((t) => ({ title: t.title, status: t.status })) }),
    ),
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
