// Skills in the Agent Skills layout: <root>/<name>/SKILL.md with YAML front matter. The loader reads the project
// and user roots (and murmur's own built-in skills), keeps every good skill, and reports each bad file with its path and field.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadYamlLibrary, needsYamlLibrary, parseFrontMatter } from '../front-matter.js';
import type { SkillCatalog, SkillInfo, SkillScope } from '../adapters-interaction.js';

export const SKILL_FILE = 'SKILL.md';
export const MAX_SKILL_NAME_CHARS = 64;
export const MAX_SKILL_DESCRIPTION_CHARS = 1024;
const NAME_RULE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface SkillRoot {
  dir: string;
  scope: SkillScope;
}

export interface SkillProblem {
  /** The file (or folder) at fault. */
  path: string;
  /** The front matter field at fault, when one is. */
  field?: string;
  message: string;
}

export interface SkillLoadResult {
  skills: SkillInfo[];
  problems: SkillProblem[];
  /** User skills hidden by a project skill of the same name. */
  shadowed: Array<{ name: string; path: string; by: string }>;
}

/** The package's own skills (murmur-tools…): `skills/` beside the nearest package.json above this file (source or dist). */
export function builtinSkillsDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = here; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'skills');
  }
  return path.join(here, 'skills');
}

export interface SkillRootOptions {
  workspaceRoot: string;
  homeDir?: string;
  /** Also the skills shipped with murmur, last (a project or user skill of the same name wins). */
  builtin?: boolean;
}

/** Project first, so a project skill wins over a user skill of the same name; built-in skills last. */
export function skillRoots(options: SkillRootOptions): SkillRoot[] {
  const roots: SkillRoot[] = [{ dir: path.join(options.workspaceRoot, '.murmur', 'skills'), scope: 'project' }];
  const user = path.join(options.homeDir ?? homedir(), '.murmur', 'skills');
  if (path.resolve(user) !== path.resolve(roots[0]!.dir)) roots.push({ dir: user, scope: 'user' });
  if (options.builtin) roots.push({ dir: builtinSkillsDir(), scope: 'builtin' });
  return roots;
}

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

type Parsed = { ok: true; skill: SkillInfo } | { ok: false; problems: SkillProblem[] };

function optionalBoolean(
  data: Record<string, unknown>,
  keys: readonly string[],
  fallback: boolean,
  file: string,
  problems: SkillProblem[],
): boolean {
  for (const key of keys) {
    if (!(key in data)) continue;
    const value = data[key];
    if (typeof value === 'boolean') return value;
    problems.push({ path: file, field: key, message: `${key} must be true or false, got ${JSON.stringify(value)}` });
    return fallback;
  }
  return fallback;
}

/** Parses one SKILL.md; `folderName` is the skill's folder, which the name must match. */
export function parseSkillFile(text: string, file: string, folderName: string, scope: SkillScope): Parsed {
  const match = FRONT_MATTER.exec(text);
  if (!match) {
    return {
      ok: false,
      problems: [
        { path: file, message: 'no YAML front matter: start the file with a --- block holding name and description' },
      ],
    };
  }
  let data: unknown;
  try {
    data = parseFrontMatter(match[1]!);
  } catch (error) {
    const first = (error as Error).message.split('\n')[0];
    return { ok: false, problems: [{ path: file, message: `front matter is not valid YAML: ${first}` }] };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return {
      ok: false,
      problems: [{ path: file, message: 'front matter must be a mapping of fields (name: …, description: …)' }],
    };
  }
  const fields = data as Record<string, unknown>;
  const problems: SkillProblem[] = [];
  const { name, description } = fields;
  if (typeof name !== 'string' || name === '') {
    problems.push({
      path: file,
      field: 'name',
      message: `name is required and must be a string, got ${JSON.stringify(name)}`,
    });
  } else if (name.length > MAX_SKILL_NAME_CHARS || !NAME_RULE.test(name)) {
    problems.push({
      path: file,
      field: 'name',
      message: `name ${JSON.stringify(name)} must be 1-${MAX_SKILL_NAME_CHARS} lowercase letters, digits and single hyphens`,
    });
  } else if (name !== folderName) {
    problems.push({
      path: file,
      field: 'name',
      message: `name ${JSON.stringify(name)} must match its folder name ${JSON.stringify(folderName)}`,
    });
  }
  if (typeof description !== 'string' || description.trim() === '') {
    problems.push({
      path: file,
      field: 'description',
      message: `description is required and must be a non-empty string, got ${JSON.stringify(description)}`,
    });
  } else if (description.length > MAX_SKILL_DESCRIPTION_CHARS) {
    problems.push({
      path: file,
      field: 'description',
      message: `description has ${description.length} characters; at most ${MAX_SKILL_DESCRIPTION_CHARS}`,
    });
  }
  const inline = optionalBoolean(fields, ['inline'], true, file, problems);
  const disableModelInvocation = optionalBoolean(
    fields,
    ['disableModelInvocation', 'disable-model-invocation'],
    false,
    file,
    problems,
  );
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    skill: {
      name: name as string,
      description: (description as string).trim(),
      path: file,
      dir: path.dirname(file),
      scope,
      inline,
      disableModelInvocation,
      body: text.slice(match[0].length).trim(),
    },
  };
}

async function loadRoot(root: SkillRoot, problems: SkillProblem[]): Promise<SkillInfo[]> {
  let entries;
  try {
    entries = await readdir(root.dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      problems.push({ path: root.dir, message: `cannot list skills: ${(error as Error).message}` });
    return [];
  }
  const folders = entries
    .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
    .map((entry) => entry.name)
    .sort();
  const loaded = await Promise.all(
    folders.map(async (folder): Promise<SkillInfo | undefined> => {
      const file = path.join(root.dir, folder, SKILL_FILE);
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // A symlink to a file, or an unrelated folder: only folders meant as skills (with SKILL.md) are reported.
        if (code === 'ENOTDIR') return undefined;
        problems.push({
          path: file,
          message:
            code === 'ENOENT'
              ? `missing ${SKILL_FILE} in the skill folder`
              : `cannot read: ${(error as Error).message}`,
        });
        return undefined;
      }
      const front = FRONT_MATTER.exec(text)?.[1];
      if (front !== undefined && needsYamlLibrary(front)) await loadYamlLibrary();
      const parsed = parseSkillFile(text, file, folder, root.scope);
      if (parsed.ok) return parsed.skill;
      problems.push(...parsed.problems);
      return undefined;
    }),
  );
  return loaded.filter((skill): skill is SkillInfo => skill !== undefined);
}

/** Loads every root; earlier roots win on a name clash. Never throws for bad files. */
export async function loadSkills(
  options: { roots: readonly SkillRoot[] } | SkillRootOptions,
): Promise<SkillLoadResult> {
  const roots = 'roots' in options ? options.roots : skillRoots(options);
  const result: SkillLoadResult = { skills: [], problems: [], shadowed: [] };
  const byName = new Map<string, SkillInfo>();
  for (const root of roots) {
    for (const skill of await loadRoot(root, result.problems)) {
      const winner = byName.get(skill.name);
      if (winner) {
        result.shadowed.push({ name: skill.name, path: skill.path, by: winner.path });
        continue;
      }
      byName.set(skill.name, skill);
      result.skills.push(skill);
    }
  }
  return result;
}

export function createSkillCatalog(skills: readonly SkillInfo[]): SkillCatalog {
  const byName = new Map(skills.map((skill) => [skill.name, skill] as const));
  return { list: () => [...byName.values()], get: (name) => byName.get(name) };
}

/** The catalog without one skill (a built-in skill an agent has no use for). */
export function withoutSkill(catalog: SkillCatalog, name: string): SkillCatalog {
  return {
    list: () => catalog.list().filter((skill) => skill.name !== name),
    get: (wanted) => (wanted === name ? undefined : catalog.get(wanted)),
  };
}

/** Skills the model may invoke through the skill tool. */
export function invocableSkills(catalog: SkillCatalog): SkillInfo[] {
  return catalog.list().filter((skill) => skill.inline && !skill.disableModelInvocation);
}

/** The section of the model's prompt that lists the skills it may invoke; empty when there are none. */
export function skillsPromptSection(catalog: SkillCatalog): string {
  const skills = invocableSkills(catalog);
  if (skills.length === 0) return '';
  const lines = [
    'Skills you can load with the skill tool (call it with the skill name when a task matches its description):',
  ];
  for (const skill of skills) lines.push(`- ${skill.name}: ${skill.description.replace(/\s+/g, ' ')}`);
  return lines.join('\n');
}

/** One line per problem, for a start-up warning. */
export function formatSkillProblems(problems: readonly SkillProblem[]): string[] {
  return problems.map((problem) => `${problem.path}${problem.field ? ` (${problem.field})` : ''}: ${problem.message}`);
}
