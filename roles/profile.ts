// An agent profile: who an agent is (its prompt, role cap, tool selector and limits), built in or from a file.
import { BUILTIN_ROLES, builtinRole, type BuiltinRoleName } from './builtin.js';
import { normalizeName } from './names.js';
import type { OutputSpec } from '../protocol/output.js';

export type { OutputSpec } from '../protocol/output.js';

export interface AgentProfile {
  /** The name used to ask for it: a built-in role (`worker`) or a defined agent (`reviewer`). */
  name: string;
  description: string;
  /** The built-in role whose cap applies; `custom` for defined agents (capped by their selector and the filters). */
  role: BuiltinRoleName | 'custom';
  prompt: string;
  /** True for the built-in roles: trusted by the delegation filter when the role is main. */
  builtin: boolean;
  /** Keeps only these tools when non-empty (names or `mcp__server__*` patterns). */
  tools?: readonly string[];
  /** Only `tools` and nothing else, even when it is empty (an agent defined in code: its tools are opt-in). */
  onlyNamedTools?: boolean;
  disallowedTools?: readonly string[];
  /** A model spec (`openai:gpt-4.1`); absent = the run's model. */
  model?: string;
  /** Reasoning effort for this agent's model calls; absent = the run's. */
  effort?: 'low' | 'medium' | 'high';
  /** false: no murmur-tools on this agent's PATH. */
  shellBridge?: boolean;
  maxTurns?: number;
  timeoutMs?: number;
  /** Opts a defined agent into delegation, to these subagent types only. */
  subagents?: readonly string[];
  /** Allow list of MCP servers whose tools it may see; absent = all. */
  mcpServers?: readonly string[];
  /** Where it was defined, for messages. */
  path?: string;
  /** It answers through `final_answer`, checked against this (typed outputs; orchestrator/final-answer.ts). */
  output?: OutputSpec;
}

export function builtinProfile(name: BuiltinRoleName): AgentProfile {
  const role = BUILTIN_ROLES[name];
  return { name, description: role.description, role: name, prompt: role.prompt, builtin: true };
}

/**
 * Resolves a role or agent name: built-in roles (and the `coder` alias) first, then defined agents.
 * Returns undefined when neither knows it.
 */
export function resolveProfile(name: string, defined: ReadonlyMap<string, AgentProfile>): AgentProfile | undefined {
  const role = builtinRole(name);
  if (role) return builtinProfile(role.name);
  return defined.get(normalizeName(name));
}

/** Every name a parent may ask for, for error messages. */
export function knownProfileNames(defined: ReadonlyMap<string, AgentProfile>): string[] {
  return ['explore', 'worker', 'coder', 'verifier', ...defined.keys()];
}
