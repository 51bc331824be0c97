// System prompts: the profile's own prompt plus the facts of the environment the agent works in.
import type { AgentProfile } from '../roles/profile.js';

export interface PromptFacts {
  cwd: string;
  subagentTypes: readonly string[];
  isSubtask: boolean;
  skills: readonly { name: string; description: string; disableModelInvocation?: boolean }[];
  now?: Date;
}

export function systemPromptFor(profile: AgentProfile, facts: PromptFacts): string {
  const parts = [profile.prompt || `You are ${profile.name}, an agent working in the user's workspace.`];
  if (!profile.builtin && facts.isSubtask) {
    parts.push('You are a subagent: only your last message reaches the agent that started you, so make it the whole handoff.');
  }
  const env = [
    '<environment>',
    `workspace: ${facts.cwd}`,
    `date: ${(facts.now ?? new Date()).toISOString().slice(0, 10)}`,
    `platform: ${process.platform}`,
    '</environment>',
  ];
  parts.push(env.join('\n'));
  if (profile.role === 'main' || (profile.subagents?.length ?? 0) > 0) {
    parts.push(`Subagent types you may start: ${facts.subagentTypes.join(', ')}.`);
  }
  const skills = facts.skills.filter((s) => !s.disableModelInvocation);
  if (skills.length > 0) {
    parts.push(['Skills you can invoke with the skill tool:', ...skills.map((s) => `- ${s.name}: ${s.description}`)].join('\n'));
  }
  return parts.join('\n\n');
}
