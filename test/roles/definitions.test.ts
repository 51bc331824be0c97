// Agent definitions from `.murmur/agents/*.md` (project) and `~/.murmur/agents/*.md` (user): Claude Code's
// field names, murmur's limits, problems reported with path and field while the other files load.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../../orchestrator/engine.js';
import { EventBus } from '../../orchestrator/events.js';
import { ScriptedModel } from '../../orchestrator/models/scripted.js';
import { describeProblem, loadAgentDefinitions, parseDefinition } from '../../roles/definitions.js';
import { EventRecorder, removeDir, tempDir, writeTree } from '../engine/helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir('murmur-defs-');
});
afterEach(async () => {
  await removeDir(dir);
});

describe('one definition file', () => {
  it('reads a Claude Code agent file unchanged: tools as a comma list, body as the prompt, color ignored', () => {
    const file = '/p/.murmur/agents/code-reviewer.md';
    const parsed = parseDefinition(
      file,
      [
        '---',
        'name: code-reviewer',
        'description: Reviews code for quality',
        'tools: Read, Grep, Glob, Bash',
        'model: sonnet',
        'color: blue',
        '---',
        '',
        'You are a senior reviewer.',
        'Be brief.',
        '',
      ].join('\n'),
    );
    expect(parsed.profile).toEqual({
      name: 'code-reviewer',
      description: 'Reviews code for quality',
      role: 'custom',
      prompt: 'You are a senior reviewer.\nBe brief.',
      builtin: false,
      path: file,
      tools: ['Read', 'Grep', 'Glob', 'Bash'],
    });
    // A Claude model alias is not a murmur model spec: the file still loads, with a warning on that field.
    expect(parsed.problems).toEqual([
      {
        path: file,
        field: 'model',
        message: 'model "sonnet" is not a murmur model spec (provider:model); the run\'s model is used',
        warning: true,
      },
    ]);
  });

  it("reads murmur's fields: lists, limits, a model spec, subagents and MCP servers", () => {
    const text = [
      '---',
      'name: Migrator',
      'tools: [read, edit, "mcp__github__*"]',
      'disallowedTools: bash',
      'model: openai:gpt-4.1',
      'maxTurns: 12',
      'timeout: 10m',
      'subagents: [explore, verifier]',
      'mcpServers: [github]',
      '---',
      'Migrate one file.',
    ].join('\n');
    const { profile, problems } = parseDefinition('/p/migrator.md', text);
    expect(problems).toEqual([]);
    expect(profile).toMatchObject({
      name: 'migrator',
      tools: ['read', 'edit', 'mcp__github__*'],
      disallowedTools: ['bash'],
      model: 'openai:gpt-4.1',
      maxTurns: 12,
      timeoutMs: 600_000,
      subagents: ['explore', 'verifier'],
      mcpServers: ['github'],
      prompt: 'Migrate one file.',
    });
    // A bare number of seconds works too; without a name the file name is used.
    expect(parseDefinition('/p/Helper.md', '---\ntimeout: 90\n---\nHelp.').profile).toMatchObject({
      name: 'helper',
      timeoutMs: 90_000,
    });
  });

  it('reports broken YAML, an unknown field and a wrong type with the path and the field', () => {
    const broken = parseDefinition('/p/broken.md', '---\nname: [unclosed\n---\nbody');
    expect(broken.profile).toBeUndefined();
    expect(broken.problems).toHaveLength(1);
    expect(broken.problems[0]!.path).toBe('/p/broken.md');
    expect(broken.problems[0]!.message).toMatch(/^broken YAML front matter: /);

    expect(parseDefinition('/p/unknown.md', '---\nname: x\npermissionMode: plan\n---\nbody').problems).toEqual([
      {
        path: '/p/unknown.md',
        field: 'permissionMode',
        message:
          'unknown field "permissionMode"; accepted fields: name, description, tools, disallowedTools, model, effort, maxTurns, timeout, subagents, mcpServers, shellBridge',
      },
    ]);
    const wrong = (yaml: string) =>
      parseDefinition('/p/wrong.md', `---\n${yaml}\n---\nbody`).problems.map((p) => [p.field, p.message]);
    expect(wrong('maxTurns: ten')).toEqual([['maxTurns', '"maxTurns" must be a positive whole number, got "ten"']]);
    expect(wrong('tools: 5')).toEqual([
      ['tools', '"tools" must be a list of names or a comma-separated string, got 5'],
    ]);
    expect(wrong('timeout: -3')).toEqual([
      ['timeout', '"timeout" must be a positive duration such as 90, "90s", "10m" or "1h", got -3'],
    ]);
    expect(wrong('description: [1]')).toEqual([['description', '"description" must be text, got [1]']]);
    expect(wrong('name: worker')).toEqual([['name', '"worker" is a built-in role; choose another name']]);
    expect(wrong('name: "has space"')).toEqual([
      ['name', '"name" must be letters, digits, "-" or "_", got "has space"'],
    ]);
    expect(parseDefinition('/p/plain.md', 'just text').problems).toEqual([
      {
        path: '/p/plain.md',
        message: 'no YAML front matter: the file must start with a "---" line, the fields, and another "---" line',
      },
    ]);
    expect(describeProblem({ path: '/p/x.md', field: 'tools', message: 'bad' })).toBe('/p/x.md (field "tools"): bad');
  });
});

describe('loading the folders', () => {
  it('loads project and user files, the project winning a clash, and the good files despite a bad one', () => {
    const workspace = path.join(dir, 'work');
    const home = path.join(dir, 'home');
    writeTree(workspace, {
      '.murmur/agents/reviewer.md': '---\ndescription: project reviewer\n---\nProject prompt.',
      '.murmur/agents/broken.md': '---\nmaxTurns: many\n---\nx',
      '.murmur/agents/notes.txt': 'not a definition',
    });
    writeTree(home, {
      '.murmur/agents/reviewer.md': '---\ndescription: user reviewer\n---\nUser prompt.',
      '.murmur/agents/scout.md': '---\ndescription: user scout\ntools: read\n---\nScout.',
    });
    const loaded = loadAgentDefinitions({ workspace, userHome: home });
    expect([...loaded.profiles.keys()].sort()).toEqual(['reviewer', 'scout']);
    expect(loaded.profiles.get('reviewer')).toMatchObject({
      description: 'project reviewer',
      prompt: 'Project prompt.',
      path: path.join(workspace, '.murmur/agents/reviewer.md'),
    });
    expect(loaded.profiles.get('scout')!.path).toBe(path.join(home, '.murmur/agents/scout.md'));
    expect(loaded.problems).toEqual([
      {
        path: path.join(workspace, '.murmur/agents/broken.md'),
        field: 'maxTurns',
        message: '"maxTurns" must be a positive whole number, got "many"',
      },
    ]);
  });

  it('the engine reports problems as warnings, and names the broken file when asked for that agent', () => {
    writeTree(dir, {
      '.murmur/agents/broken.md': '---\nmaxTurns: many\n---\nx',
      '.murmur/agents/fine.md': '---\nmodel: haiku\n---\nFine.',
    });
    const model = new ScriptedModel({ agents: [] });
    const bus = new EventBus();
    const recorder = new EventRecorder(bus);
    const engine = new Engine({
      cwd: dir,
      provider: model,
      session: false,
      env: { HOME: path.join(dir, 'nohome') },
      bus,
    });
    expect(recorder.of('log').map((e) => e.message)).toEqual([
      `agent definition skipped: ${path.join(dir, '.murmur/agents/broken.md')} (field "maxTurns"): "maxTurns" must be a positive whole number, got "many"`,
      `agent definition loaded with a warning: ${path.join(dir, '.murmur/agents/fine.md')} (field "model"): model "haiku" is not a murmur model spec (provider:model); the run's model is used`,
    ]);
    expect(engine.profile('fine')).toMatchObject({ name: 'fine', prompt: 'Fine.' });
    expect(engine.profile('broken')).toBe(
      `unknown agent or role "broken"; known: main, explore, worker (coder), verifier, fine. ${path.join(dir, '.murmur/agents/broken.md')} (field "maxTurns"): "maxTurns" must be a positive whole number, got "many"`,
    );
    expect(engine.profile('nobody')).toBe(
      'unknown agent or role "nobody"; known: main, explore, worker (coder), verifier, fine',
    );
  });
});
