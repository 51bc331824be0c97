// Builder: one agent's system prompt — its profile's prompt plus the facts of where it works, the subagent types it
// may start (when it holds agent or agent_swarm) and the skills it may load (when it holds skill). Pure.
import type { SkillCatalog } from '../tools/adapters-interaction.js';
import { skillsPromptSection } from '../tools/interact/skills.js';
import type { AgentProfile } from '../roles/profile.js';
import { systemPromptFor, type PromptFacts } from './prompts.js';
import { allowedSubagentTypes } from '../roles/subagent-policy.js';

export interface AgentPromptInputs {
  /** The agent's workspace root. */
  root: string;
  isSubtask: boolean;
  /** The names of the local tools the agent holds. */
  held: ReadonlySet<string>;
  definitions: ReadonlyMap<string, AgentProfile>;
  /** The skills the agent sees (absent: the host has none). */
  skills?: SkillCatalog | undefined;
  /** The run's shell sandbox, if any. */
  sandbox?: { network: boolean; readOnlyWorkspace?: boolean; worktree?: boolean } | undefined;
}

export function agentSystemPrompt(profile: AgentProfile, inputs: AgentPromptInputs): string {
  const facts: PromptFacts = { cwd: inputs.root, isSubtask: inputs.isSubtask };
  if (inputs.held.has('agent') || inputs.held.has('agent_swarm'))
    facts.subagentTypes = allowedSubagentTypes(profile, inputs.definitions);
  if (inputs.held.has('skill') && inputs.skills) facts.skillsSection = skillsPromptSection(inputs.skills);
  if (inputs.held.has('bash') && inputs.sandbox)
    facts.sandbox = {
      network: inputs.sandbox.network,
      readOnly: inputs.sandbox.readOnlyWorkspace === true,
      worktree: inputs.sandbox.worktree === true,
    };
  return systemPromptFor(profile, facts);
}
