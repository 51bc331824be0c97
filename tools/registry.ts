// The local tool registry: the built-in tools a host offers, made from the ports it is given — a tool exists
// exactly when its ports do (todo_list with a todo store, set_timer with timers…), so no tool checks for a missing
// one. Most tools are made once and shared by every agent; agent and agent_swarm are made for each agent from
// that agent's own ports (forAgent), in their places in the catalog order.
import type { SubagentAdapter, SwarmAdapter } from './adapters.js';
import type { SearchAdapter, SkillCatalog, TodoStore, UserChannel, WebPolicy } from './adapters-interaction.js';
import type { RuntimeTool } from './contract.js';
import { createAgentTool } from './agents/agent.js';
import type { AgentSwarmToolFactory } from './agents/agent-swarm.js';
import { createSetTimerTool } from './agents/set-timer.js';
import { createTaskTools } from './agents/task-tools.js';
import { createAskUserQuestionTool } from './interact/ask-user-question.js';
import { createSkillTool } from './interact/skill.js';
import { createTodoListTool } from './interact/todo-list.js';
import type { TaskStore, TimerPort } from './ports.js';
import { createFetchUrlTool } from './web/fetch-url.js';
import { createWebSearchTool } from './web/web-search.js';
import { createWorkspaceTools } from './workspace-tools.js';

/** The ports a host gives the registry; each present port adds the tools that need it. */
export interface ToolPorts {
  /** Background work: task_list, task_output and task_stop, and bash and ask_user_question in the background. */
  tasks: TaskStore;
  /** set_timer. */
  timers?: TimerPort;
  /** todo_list. */
  todos?: TodoStore;
  /** skill (give it only when a skill can be invoked: see skillToolAvailable). */
  skills?: SkillCatalog;
  /** ask_user_question (only where someone can answer). */
  user?: UserChannel;
  /** fetch_url, under this policy. */
  web?: WebPolicy;
  /** web_search. */
  search?: SearchAdapter;
  /** agent_swarm, made for each agent whose swarm port forAgent is given. */
  swarmTool?: AgentSwarmToolFactory;
  /** The host's own tools (plan mode, create_scheduled_task, a library user's), made with their ports; added last. */
  extra?: readonly RuntimeTool[];
}

/** The ports that belong to one agent: each present port adds the tool that needs it, for that agent only. */
export interface AgentPorts {
  /** The agent tool: this agent's subagents. */
  subagents?: SubagentAdapter;
  /** agent_swarm: the swarms this agent starts (when the registry has a swarm tool). */
  swarm?: SwarmAdapter;
}

export interface ToolRegistry {
  /** The tools made once, shared by every agent, in catalog order. */
  readonly shared: readonly RuntimeTool[];
  /** One agent's local tools: the shared ones, with agent and agent_swarm made from its ports in their places. */
  forAgent(ports: AgentPorts): readonly RuntimeTool[];
}

/** Throws when two tools share a name (a host tool named like a built-in), naming both sources. */
export function buildToolRegistry(ports: ToolPorts): ToolRegistry {
  const head: RuntimeTool[] = [...createWorkspaceTools(ports.tasks)];
  if (ports.todos) head.push(createTodoListTool(ports.todos));
  if (ports.skills) head.push(createSkillTool(ports.skills));
  if (ports.user) head.push(createAskUserQuestionTool({ user: ports.user, tasks: ports.tasks }));
  if (ports.web) head.push(createFetchUrlTool(ports.web));
  if (ports.search) head.push(createWebSearchTool(ports.search));
  // Here come agent and agent_swarm, per agent.
  const tail: RuntimeTool[] = [...createTaskTools(ports.tasks)];
  if (ports.timers) tail.push(createSetTimerTool(ports.timers));
  tail.push(...(ports.extra ?? []));
  const shared = [...head, ...tail];
  checkNames(shared, ports.swarmTool ? ['agent', 'agent_swarm'] : ['agent']);
  const swarmTool = ports.swarmTool;
  return {
    shared,
    forAgent(agent) {
      if (!agent.subagents && !(agent.swarm && swarmTool)) return shared;
      const own: RuntimeTool[] = [];
      if (agent.subagents) own.push(createAgentTool(agent.subagents));
      if (agent.swarm && swarmTool) own.push(swarmTool(agent.swarm));
      return [...head, ...own, ...tail];
    },
  };
}

/** Throws on a name taken twice, or taken from a built-in made per agent (`perAgent`). */
function checkNames(tools: readonly RuntimeTool[], perAgent: readonly string[]): void {
  const seen = new Map<string, string>(perAgent.map((name) => [name, 'builtin']));
  for (const tool of tools) {
    const existing = seen.get(tool.def.name);
    if (existing)
      throw new Error(`two local tools are named "${tool.def.name}" (sources ${existing} and ${tool.source})`);
    seen.set(tool.def.name, tool.source);
  }
}

/** Every built-in tool name a registry can hold, in catalog order (a host's own tool may not take one). */
export const BUILTIN_TOOL_NAMES: readonly string[] = [
  'read',
  'write',
  'edit',
  'grep',
  'glob',
  'read_media_file',
  'bash',
  'todo_list',
  'skill',
  'ask_user_question',
  'fetch_url',
  'web_search',
  'agent',
  'agent_swarm',
  'task_list',
  'task_output',
  'task_stop',
  'set_timer',
];

/**
 * @deprecated The registry's earlier input: switches that had to agree with the adapters the host handed the
 * engine. Tools are now made from their ports (ToolPorts); this remains for the names (see localToolNames).
 */
export interface RegistryDeps {
  subagents?: boolean;
  swarm?: unknown;
  tasks?: boolean;
  timers?: boolean;
  askUser?: boolean;
  skills?: boolean;
  fetch?: boolean;
  webSearch?: boolean;
  /** Extra tools of the host (plan mode…), added last. */
  extra?: readonly RuntimeTool[];
}
