// What the front ends get of agents: their profiles (AgentProfile), the agents defined in a workspace's files
// (loadAgentDefinitions, profileOrProblem), and role and agent names as murmur compares them (BuiltinRoleName,
// normalizeName). Agents defined in code are code-agents.ts's.
export type { AgentProfile } from '../roles/profile.js';
export { loadAgentDefinitions, prepareAgentDefinitions, profileOrProblem } from '../roles/definitions.js';
export type { BuiltinRoleName } from '../roles/builtin.js';
export { normalizeName } from '../roles/names.js';
