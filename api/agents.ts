// Agents defined in code: defineAgent, and the check createMurmur makes of its `agents` (naming `agents[i].FIELD`),
// which turns each into the profile an agent file would become (roles/code-agents.ts), its tools checked against
// what exists and against its role's cap, its output schema checked as run()'s is.
import type { AnySchema } from './schema.js';
import { codeAgentProfile, type CodeAgentFields } from '../host/code-agents.js';
import {
  loadAgentDefinitions,
  normalizeName,
  type AgentProfile,
  type BuiltinRoleName,
} from '../host/agent-profiles.js';
import { namedTool, roleCapProblem, type KnownTools } from '../host/tool-names.js';
import { agentNameProblem } from '../host/checks.js';
import type { Environment } from '../host/workspace-config.js';
import { outputSpecOf } from './output.js';
import { fail } from './option-error.js';

/** The roles an agent of yours may take: its tool cap is the role's. */
export type AgentRole = 'explore' | 'worker' | 'coder' | 'verifier';

/** An agent defined in code (defineAgent): an agent file of `.murmur/agents/` written as a value. */
export interface AgentDefinition<S extends AnySchema = AnySchema> {
  /** How runs, swarms and other agents ask for it: letters, digits, `-` or `_` (compared lower-cased). */
  name: string;
  /** explore, worker (coder) or verifier: the agent holds at most that role's tools. */
  role: AgentRole;
  /** Its system prompt (instead of the role's). */
  instructions: string;
  /**
   * The tools it may use, and only these (built-in names, `mcp__server__tool` or `mcp__server__*`, or your own
   * tools' names): absent or `[]` = none (it answers from its instructions and what it is told); `'role'` = every
   * tool of its role.
   */
  tools?: readonly string[] | 'role';
  /** A model spec (`openai:gpt-4.1`, `anthropic:…`) for this agent; absent = the run's model. */
  model?: string;
  /** Reasoning effort for this agent; absent = the run's. */
  effort?: 'low' | 'medium' | 'high';
  /** A typed output: the agent answers through final_answer, checked against this schema. */
  output?: S;
}

/** An agent made by defineAgent: register it with createMurmur({ agents }). */
export type DefinedAgent<S extends AnySchema = AnySchema> = Readonly<AgentDefinition<S>>;

/** An agent in code, like a `.murmur/agents/*.md` file: give it to createMurmur's `agents`, then use it or its name. */
export function defineAgent<S extends AnySchema = AnySchema>(definition: AgentDefinition<S>): DefinedAgent<S> {
  if (typeof definition !== 'object' || definition === null)
    fail('agent', 'give defineAgent({ name, role, instructions }).');
  const tools = Array.isArray(definition.tools) ? { tools: Object.freeze([...(definition.tools as string[])]) } : {};
  return Object.freeze({ ...definition, ...tools });
}

/** An agent of the instance: as given, and as the engine runs it. */
export interface RegisteredAgent {
  agent: DefinedAgent;
  profile: AgentProfile;
}

const FIELDS = ['name', 'role', 'instructions', 'tools', 'model', 'effort', 'output'];

export interface AgentsContext {
  cwd: string;
  env: Environment;
  known: KnownTools;
}

/** createMurmur's `agents`, checked; by name. Throws MurmurOptionsError naming `agents[i].FIELD`. */
export async function checkAgents(list: unknown, context: AgentsContext): Promise<Map<string, RegisteredAgent>> {
  const agents = new Map<string, RegisteredAgent>();
  if (list === undefined) return agents;
  if (!Array.isArray(list)) fail('agents', 'give a list of defineAgent({ name, role, instructions }).');
  const { cwd, env } = context;
  const files = loadAgentDefinitions({ workspace: cwd, ...(env.HOME ? { userHome: env.HOME } : {}) }).profiles;
  for (const [i, entry] of (list as unknown[]).entries()) {
    const at = `agents[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      fail(at, 'give defineAgent({ name, role, instructions }).');
    for (const key of Object.keys(entry))
      if (!FIELDS.includes(key)) fail(`${at}.${key}`, `unknown field; accepted: ${FIELDS.join(', ')}.`);
    const made = codeAgentProfile(entry as CodeAgentFields);
    if (!made.ok) fail(`${at}.${made.field}`, `${made.message}.`);
    const { profile } = made;
    const file = files.get(profile.name);
    if (file)
      fail(`${at}.name`, `"${profile.name}" is already the name of ${file.path ?? 'an agent file'}; choose another.`);
    if (agents.has(profile.name)) fail(`${at}.name`, `two agents are named "${profile.name}".`);
    const given = entry as DefinedAgent;
    namedTools(given).forEach((tool, j) => {
      const named = namedTool(tool, context.known);
      if (typeof named === 'string') fail(`${at}.tools[${j}]`, `${named}.`);
      const capped = roleCapProblem(named, profile.role as BuiltinRoleName);
      if (capped) fail(`${at}.tools[${j}]`, `${capped}.`);
    });
    const output = await outputSpecOf(`${at}.`, given.output, undefined);
    agents.set(profile.name, { agent: given, profile: output ? { ...profile, output } : profile });
  }
  return agents;
}

/** The tools an agent's `tools` list names ('role' names none). */
function namedTools(agent: DefinedAgent): readonly string[] {
  return Array.isArray(agent.tools) ? agent.tools : [];
}

/** The agents whose `tools` name a tool of the host's: naming it grants it to them. */
export function agentsNaming(tool: string, agents: ReadonlyMap<string, RegisteredAgent>): string[] {
  const wanted = normalizeName(tool);
  return [...agents.values()]
    .filter(({ agent }) => namedTools(agent).some((name) => normalizeName(name) === wanted))
    .map(({ profile }) => profile.name);
}

/** What names a run may give mean for an instance: its agents, and the workspace's definition files. */
export interface AgentNames {
  agents: ReadonlyMap<string, RegisteredAgent>;
  cwd: string;
  env: Environment;
}

/**
 * The name of a role or defined agent to run (`option` names it in errors): an agent of `agents` given as itself
 * must be one of the instance's; a name must be a role, a definition file's agent or one of the instance's.
 */
export function agentNameOf(
  option: string,
  agent: string | DefinedAgent,
  forItems: boolean,
  { agents, cwd, env }: AgentNames,
): string {
  if (typeof agent === 'object' && agent !== null) {
    const registered = typeof agent.name === 'string' ? agents.get(normalizeName(agent.name)) : undefined;
    if (registered?.agent !== agent)
      fail(
        option,
        `the agent ${JSON.stringify(agent.name)} is not one of this murmur's; add it to createMurmur({ agents }).`,
      );
    return registered.profile.name;
  }
  if (typeof agent !== 'string' || agent.trim() === '') fail(option, 'give a role, an agent name or a defined agent.');
  const code = new Map([...agents.values()].map(({ profile }) => [profile.name, profile]));
  const problem = agentNameProblem(cwd, env, agent, forItems, code);
  if (problem) fail(option, `${problem}.`);
  return agent;
}

/** A session that used agents defined in code resumes only on an instance that has them. */
export function checkResumable(
  sessionId: string,
  used: readonly string[],
  agents: ReadonlyMap<string, RegisteredAgent>,
): void {
  const missing = used.find((name) => !agents.has(name));
  if (missing !== undefined)
    fail(
      'sessionId',
      `session ${sessionId} used the agent "${missing}", defined in code; give it to this murmur's agents (createMurmur({ agents })) to resume it.`,
    );
}
