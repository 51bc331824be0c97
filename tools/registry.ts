// The local tool registry: the built-in tools a host can offer, keyed by name. The core set is always there;
// the rest only when the host hands the adapter they need.
import type { RuntimeTool } from './contract.js';
import { agentTool } from './agents/agent.js';
import { setTimerTool } from './agents/set-timer.js';
import { taskListTool, taskOutputTool, taskStopTool } from './agents/task-tools.js';
import { askUserQuestionTool, fetchUrlTool, skillTool, todoListTool, webSearchTool } from './interaction-tools.js';
import { workspaceTools } from './workspace-tools.js';

/** Which adapters the host provides; a tool that needs a missing one is not created. */
export interface RegistryDeps {
  subagents?: boolean;
  swarm?: RuntimeTool;
  tasks?: boolean;
  timers?: boolean;
  askUser?: boolean;
  skills?: boolean;
  fetch?: boolean;
  webSearch?: boolean;
  /** Extra tools of the host (plan mode…), added last. */
  extra?: readonly RuntimeTool[];
}

export function buildLocalToolRegistry(deps: RegistryDeps = {}): Map<string, RuntimeTool> {
  const registry = new Map<string, RuntimeTool>();
  const add = (tool: RuntimeTool) => {
    const existing = registry.get(tool.def.name);
    if (existing) throw new Error(`two local tools are named "${tool.def.name}" (sources ${existing.source} and ${tool.source})`);
    registry.set(tool.def.name, tool);
  };
  for (const tool of workspaceTools) add(tool);
  add(todoListTool);
  if (deps.skills) add(skillTool);
  if (deps.askUser) add(askUserQuestionTool);
  if (deps.fetch) add(fetchUrlTool);
  if (deps.webSearch) add(webSearchTool);
  if (deps.subagents) add(agentTool);
  if (deps.swarm) add(deps.swarm);
  if (deps.tasks) {
    add(taskListTool);
    add(taskOutputTool);
    add(taskStopTool);
  }
  if (deps.timers) add(setTimerTool);
  for (const tool of deps.extra ?? []) add(tool);
  return registry;
}
