import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resultText } from '../../tools/contract.js';
import { skillToolAvailable } from '../../tools/interaction-tools.js';
import { createSkillTool, MAX_SKILL_DEPTH } from '../../tools/interact/skill.js';
import {
  createSkillCatalog,
  formatSkillProblems,
  loadSkills,
  skillsPromptSection,
} from '../../tools/interact/skills.js';
import { makeContext } from './context.js';

let base: string;
let workspace: string;
let home: string;

async function writeSkill(root: string, folder: string, text: string): Promise<string> {
  const dir = path.join(root, '.murmur', 'skills', folder);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'SKILL.md');
  await writeFile(file, text);
  return file;
}

const skillText = (name: string, description: string, extra = '', body = `Do the ${name} thing.`) =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}\n`;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'murmur-skills-'));
  workspace = path.join(base, 'ws');
  home = path.join(base, 'home');
  await mkdir(workspace);
  await mkdir(home);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function catalogAndCall(skill: string, args?: string, skillChain?: string[]) {
  const loaded = await loadSkills({ workspaceRoot: workspace, homeDir: home });
  const ctx = makeContext(skillChain ? { skillChain } : {});
  return createSkillTool(createSkillCatalog(loaded.skills)).impl(
    ctx,
    args === undefined ? { skill } : { skill, args },
    new AbortController().signal,
    () => {},
  );
}

describe('skill loading', () => {
  it('loads good skills and reports each bad file with its path and field', async () => {
    await writeSkill(workspace, 'release-notes', skillText('release-notes', 'Write release notes from the git log.'));
    const noDescription = await writeSkill(workspace, 'broken', '---\nname: broken\n---\nbody\n');
    const badYaml = await writeSkill(workspace, 'bad-yaml', '---\nname: bad-yaml\ndescription: [unclosed\n---\nbody\n');
    const wrongName = await writeSkill(workspace, 'folder-name', skillText('other-name', 'Mismatch.'));
    const noFront = await writeSkill(workspace, 'plain', '# Just markdown\n');
    const badFlag = await writeSkill(workspace, 'flaggy', skillText('flaggy', 'Bad flag.', 'inline: sometimes\n'));
    await mkdir(path.join(workspace, '.murmur', 'skills', 'empty-folder'));

    const { skills, problems } = await loadSkills({ workspaceRoot: workspace, homeDir: home });
    expect(skills.map((s) => s.name)).toEqual(['release-notes']);
    expect(skills[0]).toMatchObject({
      scope: 'project',
      inline: true,
      disableModelInvocation: false,
      description: 'Write release notes from the git log.',
      body: 'Do the release-notes thing.',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: noDescription, field: 'description' }),
        expect.objectContaining({ path: badYaml, message: expect.stringContaining('not valid YAML') }),
        expect.objectContaining({
          path: wrongName,
          field: 'name',
          message: expect.stringContaining('must match its folder name "folder-name"'),
        }),
        expect.objectContaining({ path: noFront, message: expect.stringContaining('no YAML front matter') }),
        expect.objectContaining({
          path: badFlag,
          field: 'inline',
          message: 'inline must be true or false, got "sometimes"',
        }),
        expect.objectContaining({
          path: path.join(workspace, '.murmur', 'skills', 'empty-folder', 'SKILL.md'),
          message: expect.stringContaining('missing SKILL.md'),
        }),
      ]),
    );
    expect(problems).toHaveLength(6);
    expect(formatSkillProblems(problems).find((line) => line.startsWith(noDescription))).toContain('(description)');
  });

  it('lets a project skill win over a user skill of the same name', async () => {
    await writeSkill(workspace, 'deploy', skillText('deploy', 'Project deploy.'));
    const userDeploy = await writeSkill(home, 'deploy', skillText('deploy', 'User deploy.'));
    await writeSkill(home, 'lint', skillText('lint', 'User lint.'));
    const { skills, shadowed } = await loadSkills({ workspaceRoot: workspace, homeDir: home });
    expect(skills.map((s) => `${s.name}:${s.scope}:${s.description}`)).toEqual([
      'deploy:project:Project deploy.',
      'lint:user:User lint.',
    ]);
    expect(shadowed).toEqual([
      { name: 'deploy', path: userDeploy, by: path.join(workspace, '.murmur', 'skills', 'deploy', 'SKILL.md') },
    ]);
  });

  it('loads nothing, without problems, when there are no skill folders', async () => {
    expect(await loadSkills({ workspaceRoot: workspace, homeDir: home })).toEqual({
      skills: [],
      problems: [],
      shadowed: [],
    });
  });

  it('lists only the skills the model may invoke in the prompt', async () => {
    await writeSkill(workspace, 'open', skillText('open', 'Usable by the model.'));
    await writeSkill(workspace, 'forked', skillText('forked', 'Runs elsewhere.', 'inline: false\n'));
    await writeSkill(workspace, 'manual', skillText('manual', 'User only.', 'disableModelInvocation: true\n'));
    const catalog = createSkillCatalog((await loadSkills({ workspaceRoot: workspace, homeDir: home })).skills);
    expect(skillsPromptSection(catalog)).toMatch(/- open: Usable by the model\.$/);
    expect(skillsPromptSection(catalog)).not.toContain('forked');
    expect(skillsPromptSection(catalog)).not.toContain('manual');
    expect(skillToolAvailable({ skills: catalog })).toBe(true);
    expect(skillToolAvailable({ skills: createSkillCatalog([]) })).toBe(false);
  });
});

describe('skill tool', () => {
  it('returns an inline skill with its arguments filled in', async () => {
    await writeSkill(workspace, 'greet', skillText('greet', 'Greets.', '', 'Say hello to $ARGUMENTS politely.'));
    await writeSkill(workspace, 'plain', skillText('plain', 'No placeholder.'));
    const result = await catalogAndCall('greet', 'the team');
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toContain('Say hello to the team politely.');
    expect(resultText(result)).toContain(path.join(workspace, '.murmur', 'skills', 'greet'));
    expect(result.details).toMatchObject({ skill: 'greet', chain: ['greet'] });
    expect(resultText(await catalogAndCall('/plain', 'x=1'))).toContain('Do the plain thing.\n\nArguments: x=1');
  });

  it('refuses a skill that is not inline', async () => {
    await writeSkill(workspace, 'forked', skillText('forked', 'Not inline.', 'inline: false\n'));
    const result = await catalogAndCall('forked');
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('only inline skills can be invoked');
  });

  it('refuses a skill with disableModelInvocation: true (either spelling)', async () => {
    await writeSkill(workspace, 'manual', skillText('manual', 'User only.', 'disableModelInvocation: true\n'));
    await writeSkill(home, 'kebab', skillText('kebab', 'User only.', 'disable-model-invocation: true\n'));
    for (const name of ['manual', 'kebab']) {
      const result = await catalogAndCall(name);
      expect(result.isError).toBe(true);
      expect(resultText(result)).toContain('disableModelInvocation: true');
    }
  });

  it('names the available skills when the name is unknown', async () => {
    await writeSkill(workspace, 'alpha', skillText('alpha', 'A.'));
    const result = await catalogAndCall('beta');
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('No skill is named "beta". Available skills: alpha.');
  });

  it(`nests at most ${MAX_SKILL_DEPTH} deep and never invokes an active skill again`, async () => {
    for (const name of ['one', 'two', 'three', 'four'])
      await writeSkill(workspace, name, skillText(name, `Skill ${name}.`));
    const third = await catalogAndCall('three', undefined, ['one', 'two']);
    expect(third.isError).toBeFalsy();
    expect(third.details).toMatchObject({ chain: ['one', 'two', 'three'] });
    const fourth = await catalogAndCall('four', undefined, ['one', 'two', 'three']);
    expect(fourth.isError).toBe(true);
    expect(resultText(fourth)).toContain('one -> two -> three -> four');
    expect(resultText(fourth)).toContain(`at most ${MAX_SKILL_DEPTH} deep`);
    const cycle = await catalogAndCall('one', undefined, ['one']);
    expect(cycle.isError).toBe(true);
    expect(resultText(cycle)).toContain('already active');
  });
});
