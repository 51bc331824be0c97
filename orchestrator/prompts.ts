// System prompts: the profile's own prompt plus the facts of the environment the agent works in.
import type { AgentProfile } from '../roles/profile.js';

export interface PromptFacts {
  cwd: string;
  /** The types it may start, when its catalog holds the agent tool. */
  subagentTypes?: readonly string[];
  isSubtask: boolean;
  /** The skills section, when its catalog holds the skill tool. */
  skillsSection?: string;
  now?: Date;
  /** Its bash runs in the sandbox (said, so it does not mistake a refusal for a broken machine). */
  sandbox?: { network: boolean; readOnly?: boolean; worktree?: boolean };
}

export function systemPromptFor(profile: AgentProfile, facts: PromptFacts): string {
  const parts = [profile.prompt || `You are ${profile.name}, an agent working in the user's workspace.`];
  if (!profile.builtin && facts.isSubtask) {
    parts.push(
      'You are a subagent: only your last message reaches the agent that started you, so make it the whole handoff.',
    );
  }
  const env = [
    '<environment>',
    `workspace: ${facts.cwd}`,
    `date: ${(facts.now ?? new Date()).toISOString().slice(0, 10)}`,
    `platform: ${process.platform}`,
    ...(facts.sandbox
      ? [
          `shell: bash commands run in a sandbox: ${facts.sandbox.readOnly ? 'the workspace is read-only (you check work, you do not change it) but for its git-ignored folders such as node_modules and dist' : 'only the workspace is writable'}, git's config and hooks, murmur.toml, .mcp.json, editor folders and shell start-up files are read-only, /tmp is private, other processes are not visible${facts.sandbox.network ? '' : ', and there is no network'}`,
          ...(facts.sandbox.worktree
            ? [
                "git: your worktree is on a detached HEAD and the repository's refs are read-only: commit there if you like (murmur records your commits on your item's branch), but do not create branches, tags or stashes",
              ]
            : []),
        ]
      : []),
    '</environment>',
  ];
  parts.push(env.join('\n'));
  if (facts.subagentTypes && facts.subagentTypes.length > 0)
    parts.push(`Subagent types you may start: ${facts.subagentTypes.join(', ')}.`);
  if (facts.skillsSection) parts.push(facts.skillsSection);
  return parts.join('\n\n');
}
