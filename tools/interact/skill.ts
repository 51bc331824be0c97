// skill: loads an inline skill's instructions (from the skill catalog it is made with) into the calling agent's
// conversation; the skill chain on the agent's context caps how deep skills nest.
import { Type } from '@sinclair/typebox';
import type { AgentFacts } from '../adapters.js';
import type { SkillCatalog, SkillInfo } from '../adapters-interaction.js';
import type { AfterCallStage } from '../call-stage.js';
import { defineRuntimeTool, errorResult, textResult, type RuntimeTool, type ToolTraits } from '../contract.js';
import { invocableSkills } from './skills.js';

export const SKILL_TOOL_NAME = 'skill';

/** A skill may lead to another skill, at most this many deep (the outermost counts as 1). */
export const MAX_SKILL_DEPTH = 3;

const Parameters = Type.Object(
  {
    skill: Type.String({ minLength: 1, description: 'The skill name, as listed in your instructions.' }),
    args: Type.Optional(Type.String({ description: 'Arguments for the skill (free text), when it takes any.' })),
  },
  { additionalProperties: false },
);

/** The skill body with $ARGUMENTS filled in; arguments the body does not place are appended. */
export function expandSkillBody(skill: SkillInfo, args: string | undefined): string {
  const given = args?.trim() ?? '';
  if (skill.body.includes('$ARGUMENTS')) return skill.body.split('$ARGUMENTS').join(given);
  return given === '' ? skill.body : `${skill.body}\n\nArguments: ${given}`;
}

/** skill's traits: loading a skill's text changes nothing by itself (what the agent then does is checked call by call). */
export const SKILL_TRAITS = { selfChecked: true } as const satisfies ToolTraits;

/** The skill tool over one catalog (an agent may see a narrower catalog than the host's: see the runtime). */
export function createSkillTool(catalog: SkillCatalog): RuntimeTool {
  return defineRuntimeTool({
    def: {
      ...SKILL_TRAITS,
      name: SKILL_TOOL_NAME,
      description:
        'Load a skill: its instructions come back as this tool result and you then follow them. ' +
        'Pass `skill` (a name from the skills listed in your instructions) and optional `args`.',
      parameters: Parameters,
      // Parallel: it only reads the catalog, and loading two skills at once changes nothing on disk.
      executionMode: 'parallel',
    },
    execute: (ctx, input) => {
      const name = input.skill.trim().replace(/^\//, '');
      const skill = catalog.get(name);
      if (!skill) {
        const names = invocableSkills(catalog).map((s) => s.name);
        const known = names.length > 0 ? `Available skills: ${names.join(', ')}.` : 'No skills are available.';
        return errorResult(`No skill is named ${JSON.stringify(name)}. ${known}`);
      }
      if (skill.disableModelInvocation) {
        return errorResult(
          `Skill "${name}" can only be started by the user (disableModelInvocation: true in ${skill.path}); do not invoke it yourself.`,
        );
      }
      if (!skill.inline) {
        return errorResult(
          `Skill "${name}" is not inline (inline: false in ${skill.path}); only inline skills can be invoked with the skill tool.`,
        );
      }
      const chain = ctx.skillChain ?? [];
      if (chain.includes(name)) {
        return errorResult(
          `Skill "${name}" is already active (${[...chain, name].join(' -> ')}); a skill cannot invoke itself.`,
        );
      }
      if (chain.length >= MAX_SKILL_DEPTH) {
        return errorResult(
          `Skill "${name}" would nest ${chain.length + 1} deep (${[...chain, name].join(' -> ')}); skills nest at most ${MAX_SKILL_DEPTH} deep. Finish the current skill's work directly.`,
        );
      }
      const text = [
        `Skill "${name}" loaded from ${skill.path}. Follow these instructions.`,
        `Skill folder (paths below resolve against it): ${skill.dir}`,
        '',
        expandSkillBody(skill, input.args),
      ].join('\n');
      return textResult(text, { skill: name, path: skill.path, chain: [...chain, name] });
    },
  });
}

/**
 * The skill chain of one agent: skills loaded since the last prompt from a person nest, and this tool caps how
 * deep. The stage reads the chain a successful skill call returned (its details) into the agent's context,
 * which later skill calls see; `onPrompt` starts a fresh chain when a person speaks.
 */
export function skillChainTracker(context: AgentFacts): { stage: AfterCallStage; onPrompt(): void } {
  return {
    stage: {
      name: 'skill chain',
      run: (call, _tool, result) => {
        if (call.name !== SKILL_TOOL_NAME || result.isError) return result;
        const chain = (result.details as { chain?: unknown } | undefined)?.chain;
        if (Array.isArray(chain)) context.skillChain = chain as string[];
        return result;
      },
    },
    onPrompt: () => {
      delete context.skillChain;
    },
  };
}
