// Agents defined in code (the library's defineAgent) are the same kind of thing as an agent file: their fields go
// through the files' own profileFrom (name, tools, model, effort; the instructions are the file's body), then they
// take a built-in role, whose tool cap applies to them as to the role itself. Unlike a file, such an agent has only
// the tools it names (an application's agent is not a coding agent unless asked): `tools: 'role'` gives the role's.
import { builtinRole } from './builtin.js';
import { FieldError, profileFrom, type DefinitionProblem } from './definitions.js';
import type { AgentProfile } from './profile.js';

export interface CodeAgentFields {
  name: string;
  /** explore, worker (or coder) or verifier. */
  role: string;
  instructions: string;
  /** The tools it may use (none when absent); `'role'`: every tool of its role. */
  tools?: readonly string[] | 'role';
  model?: string;
  effort?: string;
}

/** The roles an agent defined in code may take (main is the run's own agent). */
export const CODE_AGENT_ROLES = ['explore', 'worker', 'coder', 'verifier'] as const;

export type CodeAgentProfile = { ok: true; profile: AgentProfile } | { ok: false; field: string; message: string };

/** The profile of an agent defined in code, or the field at fault and why. Pure. */
export function codeAgentProfile(fields: CodeAgentFields): CodeAgentProfile {
  const role = typeof fields.role === 'string' ? builtinRole(fields.role) : undefined;
  if (!role || role.name === 'main')
    return {
      ok: false,
      field: 'role',
      message: `${JSON.stringify(fields.role)} is not a role an agent may take; use ${CODE_AGENT_ROLES.join(', ')}`,
    };
  if (typeof fields.instructions !== 'string' || fields.instructions.trim() === '')
    return { ok: false, field: 'instructions', message: "give the agent's instructions as a non-empty string" };
  if (fields.tools !== undefined && fields.tools !== 'role' && !Array.isArray(fields.tools))
    return {
      ok: false,
      field: 'tools',
      message: `${JSON.stringify(fields.tools)} is not accepted; give a list of tool names, or 'role' for every tool of its role`,
    };
  if (fields.model !== undefined && (typeof fields.model !== 'string' || !fields.model.includes(':')))
    return {
      ok: false,
      field: 'model',
      message: `${JSON.stringify(fields.model)} is not a model spec; give provider:model, such as "openai:gpt-4.1"`,
    };
  const data: Record<string, unknown> = { name: fields.name };
  if (Array.isArray(fields.tools)) data.tools = fields.tools;
  if (fields.model !== undefined) data.model = fields.model;
  if (fields.effort !== undefined) data.effort = fields.effort;
  const warnings: DefinitionProblem[] = [];
  try {
    const profile = profileFrom(`defineAgent "${String(fields.name)}"`, '', data, fields.instructions, warnings);
    // Its tools are opt-in: only those it names ('role': every tool of its role, as an agent file without a list).
    const named = fields.tools === 'role' ? {} : { onlyNamedTools: true };
    return { ok: true, profile: { ...profile, role: role.name, ...named } };
  } catch (error) {
    if (error instanceof FieldError) return { ok: false, field: error.field, message: error.message };
    throw error;
  }
}
