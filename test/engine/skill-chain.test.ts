// Skills loaded one after another since the last prompt from a person nest; the fourth is refused, and a new
// prompt starts a fresh chain. The system prompt lists skills only to agents that hold the skill tool.
import { afterEach, describe, expect, it } from 'vitest';
import { createSkillCatalog } from '../../tools/interact/skills.js';
import type { SkillInfo } from '../../tools/adapters-interaction.js';
import { removeDir, scriptedEngine, tempDir, toolResults, textOf } from './helpers.js';

const skill = (name: string): SkillInfo => ({
  name,
  description: `the ${name} steps`,
  path: `/skills/${name}/SKILL.md`,
  dir: `/skills/${name}`,
  scope: 'project',
  inline: true,
  disableModelInvocation: false,
  body: `Do ${name}, then load the next skill.`,
});

let dir: string | undefined;
afterEach(async () => {
  if (dir) await removeDir(dir);
  dir = undefined;
});

describe('skills in a real agent', () => {
  it('caps nesting at 3 within one prompt and starts over with the next prompt', async () => {
    dir = await tempDir();
    const call = (name: string) => ({ toolCalls: [{ name: 'skill', arguments: { skill: name } }] });
    const { engine } = scriptedEngine(
      dir,
      {
        agents: [
          {
            match: { role: 'main' },
            turns: [
              call('one'),
              call('two'),
              call('three'),
              call('four'),
              { text: 'stopped at three' },
              call('four'),
              { text: 'four alone' },
            ],
          },
        ],
      },
      {
        interaction: { skills: createSkillCatalog(['one', 'two', 'three', 'four'].map(skill)) },
        registry: { skills: true },
      },
    );
    const first = await engine.runTask('use the skills');
    expect(first.result).toBe('stopped at three');
    const main = engine.agentTree.get('main')!;
    const results = toolResults(main.agent.state.messages).map(textOf);
    expect(results[3]).toMatch(/would nest 4 deep \(one -> two -> three -> four\)/);
    expect(main.agent.state.messages.find((m) => m.role === 'user' && textOf(m) === 'use the skills')).toBeDefined();

    const again = await engine.agentTree.run(main, 'now just four');
    expect(again.text).toBe('four alone');
    expect(textOf(toolResults(main.agent.state.messages).at(-1)!)).toContain('Do four');
    await engine.close();
  });

  it('lists skills in the prompt only where the skill tool is', async () => {
    dir = await tempDir();
    const { engine } = scriptedEngine(
      dir,
      { agents: [] },
      { interaction: { skills: createSkillCatalog([skill('one')]) }, registry: { skills: true } },
    );
    const worker = engine.agentTree.spawn({ profile: engine.profile('worker') as never, detached: true });
    const explorer = engine.agentTree.spawn({ profile: engine.profile('explore') as never, detached: true });
    if (!worker.ok || !explorer.ok) throw new Error('spawn failed');
    const systemOf = (r: typeof worker.record) => (r.agent as unknown as { config: { system: string } }).config.system;
    expect(systemOf(worker.record)).toContain('- one: the one steps');
    expect(systemOf(explorer.record)).not.toContain('one steps');
    expect(systemOf(explorer.record)).not.toContain('Subagent types');
    await engine.close();
  });
});
