// Agent definitions from Markdown files with YAML front matter, in the layout of Claude Code's agent files:
// `.murmur/agents/*.md` in the workspace and `~/.murmur/agents/*.md` for the user (the project wins a clash).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { loadYamlLibrary, parseFrontMatter } from '../tools/front-matter.js';
import { builtinRole } from './builtin.js';
import { DURATION_HINT, durationToMs } from './duration.js';
import { normalizeName } from './names.js';
import { resolveProfile, type AgentProfile } from './profile.js';

export interface DefinitionProblem {
  path: string;
  field?: string;
  message: string;
  /** The file still loaded; this is only a warning about one field. */
  warning?: boolean;
}

export interface LoadedDefinitions {
  profiles: Map<string, AgentProfile>;
  problems: DefinitionProblem[];
}

/** Fields Claude Code writes that murmur accepts and ignores. */
const IGNORED_FIELDS = new Set(['color']);
const KNOWN_FIELDS = [
  'name',
  'description',
  'tools',
  'disallowedTools',
  'model',
  'effort',
  'maxTurns',
  'timeout',
  'subagents',
  'mcpServers',
  'shellBridge',
];
const EFFORTS = ['low', 'medium', 'high'] as const;
const NAME_RULE = /^[a-z0-9][a-z0-9_-]*$/;

/** A field of a definition that is wrong: its name and the message (thrown by profileFrom). */
export class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

function splitFrontMatter(text: string): { yaml: string; body: string } | undefined {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return undefined;
  return { yaml: match[1]!, body: text.slice(match[0].length) };
}

function stringList(value: unknown, field: string): string[] {
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
    return value.map((v) => v.trim()).filter(Boolean);
  throw new FieldError(
    field,
    `"${field}" must be a list of names or a comma-separated string, got ${JSON.stringify(value)}`,
  );
}

/** `90`, `"90s"`, `"10m"`, `"1h"` -> milliseconds (a bare number is seconds). */
export function parseDuration(value: unknown, field: string): number {
  const ms = durationToMs(value);
  if (ms === undefined)
    throw new FieldError(field, `"${field}" must be ${DURATION_HINT}, got ${JSON.stringify(value)}`);
  return ms;
}

/** A defined agent's profile from its fields (a file's front matter, or an agent defined in code) and its prompt. */
export function profileFrom(
  path: string,
  fallbackName: string,
  data: Record<string, unknown>,
  body: string,
  warnings: DefinitionProblem[],
): AgentProfile {
  for (const key of Object.keys(data)) {
    if (!KNOWN_FIELDS.includes(key) && !IGNORED_FIELDS.has(key)) {
      throw new FieldError(key, `unknown field "${key}"; accepted fields: ${KNOWN_FIELDS.join(', ')}`);
    }
  }
  const rawName = data.name ?? fallbackName;
  if (typeof rawName !== 'string' || !NAME_RULE.test(normalizeName(rawName))) {
    throw new FieldError('name', `"name" must be letters, digits, "-" or "_", got ${JSON.stringify(rawName)}`);
  }
  const name = normalizeName(rawName);
  if (builtinRole(name) || name === 'main')
    throw new FieldError('name', `"${name}" is a built-in role; choose another name`);
  if (data.description !== undefined && typeof data.description !== 'string') {
    throw new FieldError('description', `"description" must be text, got ${JSON.stringify(data.description)}`);
  }
  const profile: AgentProfile = {
    name,
    description: (data.description as string | undefined) ?? '',
    role: 'custom',
    prompt: body.trim(),
    builtin: false,
    path,
  };
  if (data.tools !== undefined) profile.tools = stringList(data.tools, 'tools');
  if (data.disallowedTools !== undefined) profile.disallowedTools = stringList(data.disallowedTools, 'disallowedTools');
  if (data.subagents !== undefined) profile.subagents = stringList(data.subagents, 'subagents');
  if (data.mcpServers !== undefined) profile.mcpServers = stringList(data.mcpServers, 'mcpServers');
  if (data.maxTurns !== undefined) {
    if (!Number.isInteger(data.maxTurns) || (data.maxTurns as number) < 1) {
      throw new FieldError(
        'maxTurns',
        `"maxTurns" must be a positive whole number, got ${JSON.stringify(data.maxTurns)}`,
      );
    }
    profile.maxTurns = data.maxTurns as number;
  }
  if (data.timeout !== undefined) profile.timeoutMs = parseDuration(data.timeout, 'timeout');
  if (data.effort !== undefined) {
    if (!EFFORTS.includes(data.effort as (typeof EFFORTS)[number])) {
      throw new FieldError(
        'effort',
        `"effort" must be one of ${EFFORTS.join(', ')}, got ${JSON.stringify(data.effort)}`,
      );
    }
    profile.effort = data.effort as (typeof EFFORTS)[number];
  }
  if (data.shellBridge !== undefined) {
    if (typeof data.shellBridge !== 'boolean')
      throw new FieldError(
        'shellBridge',
        `"shellBridge" must be true or false, got ${JSON.stringify(data.shellBridge)}`,
      );
    profile.shellBridge = data.shellBridge;
  }
  if (data.model !== undefined) {
    if (typeof data.model !== 'string')
      throw new FieldError('model', `"model" must be text, got ${JSON.stringify(data.model)}`);
    const model = data.model.trim();
    if (model.includes(':')) profile.model = model;
    else if (model !== '' && model !== 'inherit') {
      warnings.push({
        path,
        field: 'model',
        message: `model "${model}" is not a murmur model spec (provider:model); the run's model is used`,
        warning: true,
      });
    }
  }
  return profile;
}

/** Parses one definition file; throws nothing: problems come back as values. */
export function parseDefinition(path: string, text: string): { profile?: AgentProfile; problems: DefinitionProblem[] } {
  const problems: DefinitionProblem[] = [];
  const parts = splitFrontMatter(text);
  if (!parts)
    return {
      problems: [
        {
          path,
          message: 'no YAML front matter: the file must start with a "---" line, the fields, and another "---" line',
        },
      ],
    };
  let data: unknown;
  try {
    data = parseFrontMatter(parts.yaml);
  } catch (error) {
    return { problems: [{ path, message: `broken YAML front matter: ${(error as Error).message.split('\n')[0]}` }] };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { problems: [{ path, message: 'the front matter must be a set of "field: value" lines' }] };
  }
  const fallbackName = path.replace(/^.*[\\/]/, '').replace(/\.md$/i, '');
  try {
    const profile = profileFrom(path, fallbackName, data as Record<string, unknown>, parts.body, problems);
    return { profile, problems };
  } catch (error) {
    if (error instanceof FieldError)
      return { problems: [...problems, { path, field: error.field, message: error.message }] };
    throw error;
  }
}

function readDir(dir: string): { path: string; text: string }[] {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.toLowerCase().endsWith('.md'))
      .sort();
  } catch {
    return [];
  }
  const files: { path: string; text: string }[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      files.push({ path, text: readFileSync(path, 'utf8') });
    } catch {
      // A file that vanished or is unreadable is simply not a definition.
    }
  }
  return files;
}

type DefinitionPlaces = { workspace: string; userHome?: string };

/** The folders of agent files, the user's first, so project files replace them on a clash. */
function definitionDirs(options: DefinitionPlaces): string[] {
  const userDir = join(options.userHome ?? homedir(), '.murmur', 'agents');
  const projectDir = join(options.workspace, '.murmur', 'agents');
  return userDir === projectDir ? [projectDir] : [userDir, projectDir];
}

/** Loads the YAML library when there may be agent files, so loadAgentDefinitions need not require it (slower). */
export async function prepareAgentDefinitions(options: DefinitionPlaces): Promise<void> {
  if (definitionDirs(options).some((dir) => existsSync(dir))) await loadYamlLibrary();
}

export function loadAgentDefinitions(options: DefinitionPlaces): LoadedDefinitions {
  const profiles = new Map<string, AgentProfile>();
  const problems: DefinitionProblem[] = [];
  for (const dir of definitionDirs(options)) {
    for (const file of readDir(dir)) {
      const parsed = parseDefinition(file.path, file.text);
      problems.push(...parsed.problems);
      if (parsed.profile) profiles.set(parsed.profile.name, parsed.profile);
    }
  }
  return { profiles, problems };
}

export function describeProblem(problem: DefinitionProblem): string {
  return `${problem.path}${problem.field ? ` (field "${problem.field}")` : ''}: ${problem.message}`;
}

/**
 * The profile of a role or defined agent name, or a message listing the known names (and, when a file of that
 * name failed to load, what was wrong with it).
 */
export function profileOrProblem(
  name: string,
  loaded: { profiles: ReadonlyMap<string, AgentProfile>; problems: readonly DefinitionProblem[] },
): AgentProfile | string {
  const profile = resolveProfile(name, loaded.profiles);
  if (profile) return profile;
  const defined = [...loaded.profiles.keys()];
  const known = `known: main, explore, worker (coder), verifier${defined.length > 0 ? `, ${defined.join(', ')}` : ''}`;
  const key = normalizeName(name);
  const broken = loaded.problems.find(
    (p) => !p.warning && basename(p.path).replace(/\.md$/i, '').toLowerCase() === key,
  );
  return `unknown agent or role "${name}"; ${known}${broken ? `. ${describeProblem(broken)}` : ''}`;
}
