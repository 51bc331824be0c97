// What an engine knows of agents besides the built-in roles: the definition files of the workspace and the user
// (their problems said on the bus), or the definitions the host gave, joined by the agents its host defined in code.
// And the host's ports of the tool-call pipeline, copied onto the agent runtime.
import { describeProblem, loadAgentDefinitions, type DefinitionProblem } from '../roles/definitions.js';
import type { AgentProfile } from '../roles/profile.js';
import type { EngineOptions } from './engine-options.js';
import type { Environment } from './environment.js';
import type { EventBus } from './events.js';
import type { RuntimeDeps } from './agent-runtime.js';

export interface EngineDefinitions {
  profiles: ReadonlyMap<string, AgentProfile>;
  problems: readonly DefinitionProblem[];
}

/** The files' definitions (or the ones given), then the agents defined in code (the host checked they clash with none). */
export function definitionsFor(
  options: Pick<EngineOptions, 'definitions' | 'agents'>,
  cwd: string,
  env: Environment,
  bus: EventBus,
): EngineDefinitions {
  let profiles: ReadonlyMap<string, AgentProfile>;
  let problems: readonly DefinitionProblem[] = [];
  if (options.definitions) profiles = options.definitions;
  else {
    const loaded = loadAgentDefinitions({ workspace: cwd, ...(env.HOME ? { userHome: env.HOME } : {}) });
    for (const problem of loaded.problems) {
      bus.emit({
        type: 'log',
        level: 'warn',
        message: `agent definition ${problem.warning ? 'loaded with a warning' : 'skipped'}: ${describeProblem(problem)}`,
      });
    }
    profiles = loaded.profiles;
    problems = loaded.problems;
  }
  if (!options.agents || options.agents.length === 0) return { profiles, problems };
  const joined = new Map(profiles);
  for (const profile of options.agents) joined.set(profile.name, profile);
  return { profiles: joined, problems };
}

/** The host's ports of the tool-call pipeline that it gave (the permission gate, vetoes, budget, call hook, tool access). */
export function pipelinePorts(
  options: Pick<EngineOptions, 'permission' | 'extraVetoes' | 'resultBudget' | 'onToolCall' | 'toolAccess'>,
): Pick<RuntimeDeps, 'permission' | 'extraVetoes' | 'resultBudget' | 'onToolCall' | 'toolAccess'> {
  const ports: Pick<RuntimeDeps, 'permission' | 'extraVetoes' | 'resultBudget' | 'onToolCall' | 'toolAccess'> = {};
  if (options.permission) ports.permission = options.permission;
  if (options.extraVetoes) ports.extraVetoes = options.extraVetoes;
  if (options.resultBudget) ports.resultBudget = options.resultBudget;
  if (options.onToolCall) ports.onToolCall = options.onToolCall;
  if (options.toolAccess) ports.toolAccess = options.toolAccess;
  return ports;
}
