// One inline skill ("greet", saying hello) in a catalog, for tests that need a skill to list or invoke.
import type { SkillCatalog } from '../../tools/adapters-interaction.js';
import { createSkillCatalog } from '../../tools/interact/skills.js';

export function greetSkillCatalog(): SkillCatalog {
  return createSkillCatalog([
    {
      name: 'greet',
      description: 'Say hello.',
      path: '/s/greet/SKILL.md',
      dir: '/s/greet',
      scope: 'project',
      inline: true,
      disableModelInvocation: false,
      body: 'Hello.',
    },
  ]);
}
