// The registry's ports from what an engine is given today: its own task store and timers, and the host's
// interaction ports gated by the earlier registry switches (EngineOptions.interaction and .registry), so a tool is
// made exactly when its port exists. Once hosts hand the ports themselves, this translation goes.
import type { InteractionAdapters } from '../tools/adapters-interaction.js';
import type { AgentSwarmToolFactory } from '../tools/agents/agent-swarm.js';
import { createMemoryTodoStore } from '../tools/interact/todo-store.js';
import type { TaskStore, TimerPort } from '../tools/ports.js';
import type { RegistryDeps, ToolPorts } from '../tools/registry.js';
import type { EventBus } from './events.js';

/** What the host said about its tools (the engine's options). */
export interface HostToolChoices {
  /** The host's switches; `tasks` and `subagents` are always on in an engine. */
  registry?: RegistryDeps | undefined;
  interaction?: InteractionAdapters | undefined;
  swarmTool?: AgentSwarmToolFactory | undefined;
}

/** What the engine itself provides. */
export interface EngineToolPorts {
  tasks: TaskStore;
  timers: TimerPort;
  /** Where a todo store made here reports changes (`todo.update`), when the host has none. */
  bus: EventBus;
}

/**
 * The registry's ports. `without` names tools to leave out (MURMUR_DISABLE_CRON's set_timer and
 * create_scheduled_task). Without a todo store of the host's, one in memory (todo_list is always offered).
 */
export function toolPortsFrom(
  host: HostToolChoices,
  engine: EngineToolPorts,
  without: readonly string[] = [],
): ToolPorts {
  const switches = host.registry ?? {};
  const interaction = host.interaction ?? {};
  const bus = engine.bus;
  const todos =
    interaction.todos ??
    createMemoryTodoStore((agentId, list) =>
      bus.emit({ type: 'todo.update', agentId, todos: list.map((t) => ({ title: t.title, status: t.status })) }),
    );
  const ports: ToolPorts = { tasks: engine.tasks, todos };
  if (switches.timers !== false && !without.includes('set_timer')) ports.timers = engine.timers;
  if (switches.skills && interaction.skills) ports.skills = interaction.skills;
  if (switches.askUser && interaction.user) ports.user = interaction.user;
  if (switches.fetch) ports.web = interaction.web ?? {};
  if (switches.webSearch && interaction.search) ports.search = interaction.search;
  if (host.swarmTool) ports.swarmTool = host.swarmTool;
  const extra = (switches.extra ?? []).filter((tool) => !without.includes(tool.def.name));
  if (extra.length > 0) ports.extra = extra;
  return ports;
}
