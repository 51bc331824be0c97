// Which subagents a parent may start: the type it gets by default, the types it may name (a defined agent's
// `subagents:` list, else every known role and agent) and the profile a requested type resolves to. The agent tool
// and agent_swarm both ask here.
import { knownProfileNames, resolveProfile, type AgentProfile } from './profile.js';

export const DEFAULT_SUBAGENT_TYPE = 'coder';

/** The subagent types a parent may name: a defined agent's `subagents:` list, or every known type. */
export function allowedSubagentTypes(parent: AgentProfile, definitions: ReadonlyMap<string, AgentProfile>): string[] {
  if (!parent.builtin && parent.subagents && parent.subagents.length > 0) return [...parent.subagents];
  return knownProfileNames(definitions);
}

/**
 * The profile a parent gets when it asks for `type`, or undefined when the type is unknown or not allowed to it.
 * Names are compared by what they resolve to, so `coder` (the default) is allowed wherever `worker` is.
 */
export function subagentProfileFor(
  parent: AgentProfile,
  type: string,
  definitions: ReadonlyMap<string, AgentProfile>,
): AgentProfile | undefined {
  const wanted = resolveProfile(type.trim(), definitions);
  if (!wanted) return undefined;
  const allowed = allowedSubagentTypes(parent, definitions);
  return allowed.some((t) => resolveProfile(t, definitions)?.name === wanted.name) ? wanted : undefined;
}
