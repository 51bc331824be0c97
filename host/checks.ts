// Checks a front end makes before anything starts (so a refused request leaves no session behind): a swarm's
// template and items, and an agent or role name. Each returns what is wrong, in words the front end puts after
// its own name for the value (`--role`, `swarm.role`…), or undefined when it is fine.
import { loadAgentDefinitions } from '../roles/definitions.js';
import { knownProfileNames, resolveProfile, type AgentProfile } from '../roles/profile.js';
import type { Environment } from '../orchestrator/environment.js';
import { validateSwarmItems } from '../swarm/validate.js';

export { maxSwarmItems } from '../swarm/settings.js';

/** A swarm's template and items (at least one item, no item limit: `murmur swarm` and the library); `prompt_template` is named `templateName`. */
export function swarmItemsProblem(
  template: string,
  items: readonly string[],
  templateName: string,
): string | undefined {
  const checked = validateSwarmItems({ promptTemplate: template, items }, Number.POSITIVE_INFINITY, 1);
  return checked.ok ? undefined : checked.error.replace('prompt_template', templateName);
}

/**
 * A role or a defined agent's name of the workspace (or of `code`, the agents its host defined in code); `forItems`:
 * it must be able to run swarm items (not main).
 */
export function agentNameProblem(
  cwd: string,
  env: Environment,
  name: string,
  forItems: boolean,
  code?: ReadonlyMap<string, AgentProfile>,
): string | undefined {
  const files = loadAgentDefinitions({ workspace: cwd, ...(env.HOME ? { userHome: env.HOME } : {}) }).profiles;
  const definitions = code && code.size > 0 ? new Map([...files, ...code]) : files;
  const profile = resolveProfile(name, definitions);
  if (!profile)
    return `${JSON.stringify(name)} is not a role or a defined agent; known: ${knownProfileNames(definitions).join(', ')}`;
  if (forItems && profile.role === 'main')
    return 'main cannot run swarm items; use worker, explore, verifier or a defined agent';
  return undefined;
}

/** The agents defined for the workspace (its `.murmur/agents/` and the user's), by name: what --agent and --role may name. */
export function definedAgentNames(cwd: string, env: Environment): string[] {
  return [...loadAgentDefinitions({ workspace: cwd, ...(env.HOME ? { userHome: env.HOME } : {}) }).profiles.keys()];
}
