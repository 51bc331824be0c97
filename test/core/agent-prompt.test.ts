// The prompt builder alone: the profile's prompt and the environment, the subagent types only for an agent that
// holds agent or agent_swarm, and the skills only for one that holds skill.
import { describe, expect, it } from 'vitest';
import { agentSystemPrompt, type AgentPromptInputs } from '../../orchestrator/agent-prompt.js';
import { builtinProfile, type AgentProfile } from '../../roles/profile.js';
import { greetSkillCatalog } from '../fakes/skills.js';

const skills = greetSkillCatalog();
const reviewer: AgentProfile = {
  name: 'reviewer',
  description: 'Reviews.',
  role: 'custom',
  prompt: 'You review.',
  builtin: false,
};
const base: AgentPromptInputs = {
  root: '/work/repo',
  isSubtask: false,
  held: new Set(['read']),
  definitions: new Map([['reviewer', reviewer]]),
};

describe('agentSystemPrompt', () => {
  it('says the shell is sandboxed only to an agent that holds bash, and whether the network is there', () => {
    const sandbox = { network: false };
    const withBash = agentSystemPrompt(builtinProfile('worker'), { ...base, held: new Set(['bash']), sandbox });
    expect(withBash).toContain('shell: bash commands run in a sandbox: only the workspace is writable');
    expect(withBash).toContain('there is no network');
    const networked = agentSystemPrompt(builtinProfile('worker'), {
      ...base,
      held: new Set(['bash']),
      sandbox: { network: true },
    });
    expect(networked).toContain('shell: bash commands run in a sandbox');
    expect(networked).not.toContain('no network');
    expect(agentSystemPrompt(builtinProfile('explore'), { ...base, sandbox })).not.toContain('sandbox');
    expect(agentSystemPrompt(builtinProfile('worker'), { ...base, held: new Set(['bash']) })).not.toContain('sandbox');
  });

  it('is the profile’s prompt with the environment', () => {
    const prompt = agentSystemPrompt(builtinProfile('main'), base);
    expect(prompt.startsWith(builtinProfile('main').prompt)).toBe(true);
    expect(prompt).toContain('workspace: /work/repo');
    expect(prompt).not.toContain('Subagent types');
    expect(prompt).not.toContain('Skills you can load');
  });

  it('names the subagent types only when the agent holds agent or agent_swarm', () => {
    for (const tool of ['agent', 'agent_swarm']) {
      expect(agentSystemPrompt(builtinProfile('main'), { ...base, held: new Set([tool]) })).toContain(
        'Subagent types you may start: explore, worker, coder, verifier, reviewer.',
      );
    }
  });

  it('lists the skills only when the agent holds skill and there are skills', () => {
    expect(agentSystemPrompt(builtinProfile('main'), { ...base, skills })).not.toContain('greet');
    expect(agentSystemPrompt(builtinProfile('main'), { ...base, held: new Set(['skill']), skills })).toContain(
      '- greet: Say hello.',
    );
    expect(agentSystemPrompt(builtinProfile('main'), { ...base, held: new Set(['skill']) })).not.toContain(
      'Skills you can load',
    );
  });

  it('tells a defined subagent that its last message is the handoff', () => {
    expect(agentSystemPrompt(reviewer, { ...base, isSubtask: true })).toContain(
      'only your last message reaches the agent that started you',
    );
  });
});
