// Writes and edits of protected paths (tools/fs/protected-paths.ts: murmur's, git's, the editor's and the shell's
// files) ask a person in every mode, yolo included, whatever generic allow or "allow always" rule covers them; only
// a rule that names the path pre-approves it, deny rules still win, and nobody to answer means refused even with
// permissions.headless = "allow". Other paths keep the modes' usual answers; plan files stay writable.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../orchestrator/engine.js';
import { ScriptedModel, type Script } from '../../orchestrator/models/scripted.js';
import type { PermissionMode } from '../../orchestrator/permissions/policy.js';
import { patternLiteral } from '../../orchestrator/permissions/protected.js';
import { createPermissionSetup, type PermissionSetupOptions } from '../../orchestrator/permissions/setup.js';
import type { ToolResultMessage } from '../../orchestrator/types.js';
import { FakeUser, check, removeDir, setupWithOutcome, tempDir, text } from './helpers.js';

let base: string;
/** The workspace: a subfolder of a repository (`../.git` is the repository's). */
let ws: string;
/** An extra root next to the repository. */
let other: string;

beforeAll(async () => {
  base = await tempDir('murmur-protected-');
  ws = path.join(base, 'repo', 'ws');
  other = path.join(base, 'other');
  mkdirSync(path.join(base, 'repo', '.git', 'hooks'), { recursive: true });
  mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
  mkdirSync(path.join(ws, 'src'), { recursive: true });
  mkdirSync(other);
  symlinkSync(path.join(ws, '.git', 'hooks'), path.join(ws, 'hooks-link'));
});

afterAll(async () => {
  await removeDir(base);
});

const MODES: readonly PermissionMode[] = ['manual', 'auto', 'yolo'];

const PROTECTED = [
  'murmur.toml',
  '.mcp.json',
  '.git/config',
  '.git/hooks/post-commit',
  'sub/.git/hooks/x',
  '../.git/config',
  '.vscode/tasks.json',
  '.idea/x.xml',
  '.bashrc',
  '.envrc',
  '.gitmodules',
  '.murmur/agents/a.md',
];

// .gitattributes names filters and diff drivers, but their commands live in git's configuration (protected): by
// itself it runs nothing, so it stays writable like .gitignore. CI workflows run on the forge, not here.
const OPEN = [
  'src/a.ts',
  '.github/x.yml',
  '.gitignore',
  '.gitattributes',
  'docs/murmur.toml.md',
  '.murmur/sessions/s-1/plans/main.md',
  '.murmur/plans/main.md',
];

type Tool = 'write' | 'edit';
const argsFor = (tool: Tool, p: string) =>
  tool === 'write' ? { path: p, content: 'x' } : { path: p, old_string: 'a', new_string: 'b' };

/** A rule that names exactly this path: anchored at the workspace root, or absolute outside it. */
function namingRule(tool: Tool, p: string): string {
  return p.startsWith('../') ? `${tool}(${path.resolve(ws, p)})` : `${tool}(./${p})`;
}

type RuleCase = 'no rule' | 'bare allow' | 'allow (**)' | 'rule naming it' | 'session generic' | 'session naming it';
const CASES: readonly RuleCase[] = [
  'no rule',
  'bare allow',
  'allow (**)',
  'rule naming it',
  'session generic',
  'session naming it',
];

async function outcomeFor(mode: PermissionMode, rules: RuleCase, tool: Tool, p: string): Promise<string> {
  const allow =
    rules === 'bare allow'
      ? [tool]
      : rules === 'allow (**)'
        ? [`${tool}(**)`]
        : rules === 'rule naming it'
          ? [namingRule(tool, p)]
          : [];
  const { setup, outcome } = setupWithOutcome(ws, { mode, permissions: { allow } });
  if (rules === 'session generic') setup.restoreSessionRules([tool, `${tool}(**)`]);
  if (rules === 'session naming it') setup.restoreSessionRules([namingRule(tool, p)]);
  return outcome(tool, argsFor(tool, p));
}

function expected(mode: PermissionMode, rules: RuleCase, isProtected: boolean): string {
  if (isProtected) return rules === 'rule naming it' || rules === 'session naming it' ? 'allow' : 'ask';
  // Elsewhere (all inside the workspace) the mode and the rules answer as before.
  return mode === 'manual' && rules === 'no rule' ? 'ask' : 'allow';
}

describe.each(MODES)('%s mode', (mode) => {
  it.each(CASES)('%s: protected paths ask unless a rule names them; other paths as before', async (rules) => {
    for (const tool of ['write', 'edit'] as const) {
      for (const p of PROTECTED)
        expect(await outcomeFor(mode, rules, tool, p), `${tool} ${p}`).toBe(expected(mode, rules, true));
      for (const p of OPEN)
        expect(await outcomeFor(mode, rules, tool, p), `${tool} ${p}`).toBe(expected(mode, rules, false));
    }
  });
});

describe('a rule that names the protected path', () => {
  const cases: [string, string, 'allow' | 'ask'][] = [
    ['murmur.toml', 'write(murmur.toml)', 'allow'],
    ['murmur.toml', 'write(./murmur.toml)', 'allow'],
    ['murmur.toml', 'write(*.toml)', 'ask'],
    ['murmur.toml', 'write(murmur.*)', 'ask'],
    ['murmur.toml', 'write(./murmur.tom?)', 'ask'],
    ['murmur.toml', 'edit(./murmur.toml)', 'ask'],
    ['.vscode/tasks.json', 'write(.vscode/**)', 'allow'],
    ['.vscode/tasks.json', 'write(.vscode)', 'allow'],
    ['.vscode/tasks.json', 'write(.vscode/*.json)', 'allow'],
    ['.vscode/tasks.json', 'write(.vscode*/**)', 'ask'],
    ['.vscode/tasks.json', 'write(tasks.json)', 'ask'],
    ['.vscode/tasks.json', 'write(*.json)', 'ask'],
    ['.git/hooks/post-commit', 'write(.git/hooks/post-commit)', 'allow'],
    ['.git/hooks/post-commit', 'write(./.git/hooks/*)', 'allow'],
    ['.git/hooks/post-commit', 'write(.git/**)', 'allow'],
    ['.git/hooks/post-commit', 'write(**/.git/hooks/*)', 'ask'],
    ['.git/hooks/post-commit', 'write(post-commit)', 'ask'],
    ['sub/.git/hooks/x', 'write(sub/.git/hooks/x)', 'allow'],
    ['sub/.git/hooks/x', 'write(sub/**)', 'ask'],
    ['.murmur/agents/a.md', 'write(.murmur/agents/**)', 'allow'],
    ['.murmur/agents/a.md', 'write(.murmur/**)', 'ask'],
  ];
  it.each(cases)('%s with %s: %s in yolo mode', async (p, rule, answer) => {
    const { outcome } = setupWithOutcome(ws, { mode: 'yolo', permissions: { allow: [rule] } });
    // Always a write: a rule for another tool (edit) names nothing for it.
    expect(await outcome('write', argsFor('write', p))).toBe(answer);
  });

  it('outside the workspace: only an absolute rule that reaches into the .git folder names it', async () => {
    const config = path.join(base, 'repo', '.git', 'config');
    for (const [rule, answer] of [
      [`write(${config})`, 'allow'],
      [`write(${path.join(base, 'repo', '.git')}/**)`, 'allow'],
      [`write(${path.join(base, 'repo')}/**)`, 'ask'],
      ['write(/**)', 'ask'],
      ['write', 'ask'],
    ] as const) {
      const { outcome } = setupWithOutcome(ws, { mode: 'yolo', permissions: { allow: [rule] } });
      expect(await outcome('write', { path: '../.git/config', content: 'x' }), rule).toBe(answer);
      expect(await outcome('write', { path: config, content: 'x' }), rule).toBe(answer);
    }
  });

  it('takes the literal segments before any wildcard, after a leading ./ or /', () => {
    expect(patternLiteral('./.vscode/**')).toEqual({ frame: 'relative', segments: ['.vscode'] });
    expect(patternLiteral('.vscode*')).toEqual({ frame: 'relative', segments: [] });
    expect(patternLiteral('/r/.git/hooks/pre-commit')).toEqual({
      frame: 'absolute',
      segments: ['r', '.git', 'hooks', 'pre-commit'],
    });
    expect(patternLiteral('./a\\[1\\]/b?')).toEqual({ frame: 'relative', segments: ['a[1]'] });
  });

  it('cannot outvote a deny rule', async () => {
    const { outcome } = setupWithOutcome(ws, {
      mode: 'yolo',
      permissions: { allow: ['write(./.git/config)'], deny: ['write(.git/**)'] },
    });
    expect(await outcome('write', { path: '.git/config', content: 'x' })).toMatch(
      /^refused: Not run: the rule "write\(\.git\/\*\*\)" in permissions.deny denies it/,
    );
  });

  it('does not lift an ask rule in manual mode (ask rules come before allow rules)', async () => {
    const { outcome } = setupWithOutcome(ws, {
      mode: 'manual',
      permissions: { allow: ['write(./murmur.toml)'], ask: ['write(*.toml)'] },
    });
    expect(await outcome('write', { path: 'murmur.toml', content: 'x' })).toBe('ask');
  });
});

describe('the question', () => {
  it('names the path and what it steers, and offers "allow always" for that path only', async () => {
    for (const [p, steers] of [
      ['murmur.toml', 'murmur'],
      ['.mcp.json', 'murmur'],
      ['.git/hooks/post-commit', 'git'],
      ['.gitmodules', 'git'],
      ['.vscode/tasks.json', 'the editor'],
      ['.bashrc', 'the shell'],
    ] as const) {
      const { user, outcome } = setupWithOutcome(ws, { mode: 'yolo', permissions: { allow: ['write'] } });
      expect(await outcome('write', { path: p, content: 'x' })).toBe('ask');
      expect(user.approvals[0]!.reason).toBe(
        `write would change ${p}, a protected path that steers ${steers} (it can make code run outside the agent's ` +
          'reach), so a person decides in every permission mode unless a rule names that path',
      );
      expect(user.approvals[0]!.alwaysRules).toEqual([`write(./${p})`]);
    }
    const { user, outcome } = setupWithOutcome(ws, { mode: 'yolo' });
    await outcome('edit', { path: '../.git/config', old_string: 'a', new_string: 'b' });
    const config = path.join(base, 'repo', '.git', 'config');
    expect(user.approvals[0]!.reason).toContain(`edit would change ${config}, a protected path that steers git`);
    expect(user.approvals[0]!.alwaysRules).toEqual([`edit(${config})`]);
  });

  it('"allow always" pre-approves that path for the session, and nothing else protected', async () => {
    const user = new FakeUser({ approve: () => ({ kind: 'allow_always' }) });
    const setup = createPermissionSetup({ workspaceRoot: ws, mode: 'yolo', asker: user });
    expect(await check(setup, 'write', { path: '.vscode/tasks.json', content: 'x' })).toBeUndefined();
    expect(setup.sessionRules()).toEqual(['write(./.vscode/tasks.json)']);
    expect(await check(setup, 'write', { path: '.vscode/tasks.json', content: 'y' })).toBeUndefined();
    expect(user.approvals).toHaveLength(1);
    await check(setup, 'write', { path: '.vscode/settings.json', content: 'x' });
    await check(setup, 'edit', { path: '.vscode/tasks.json', old_string: 'a', new_string: 'b' });
    expect(user.approvals).toHaveLength(3);
  });

  it('a write through a symlink into a protected folder always asks and offers no "allow always"', async () => {
    for (const allow of [['write'], ['write(hooks-link/**)'], ['write(./hooks-link/pre-push)']]) {
      const { user, outcome } = setupWithOutcome(ws, { mode: 'yolo', permissions: { allow } });
      expect(await outcome('write', { path: 'hooks-link/pre-push', content: 'x' }), allow[0]).toBe('ask');
      expect(user.approvals[0]!.reason).toContain(
        'write would change hooks-link/pre-push (a link to .git/hooks/pre-push), a protected path that steers git',
      );
      expect(user.approvals[0]!.alwaysRules).toEqual([]);
    }
  });
});

describe('a workspace reached through a symlink', () => {
  it('is named by the rule for the path as written; "allow always" offers it', async () => {
    const linked = path.join(base, 'linked-repo');
    if (!existsSync(linked)) symlinkSync(path.join(base, 'repo'), linked);
    const root = path.join(linked, 'ws');
    const config = path.join(linked, '.git', 'config');
    for (const [p, rule] of [
      ['murmur.toml', 'write(./murmur.toml)'],
      ['../.git/config', `write(${config})`],
    ] as const) {
      const { user, outcome } = setupWithOutcome(root, { mode: 'yolo' });
      expect(await outcome('write', { path: p, content: 'x' }), p).toBe('ask');
      expect(user.approvals[0]!.alwaysRules).toEqual([rule]);
      expect(user.approvals[0]!.reason).not.toContain('a link to');
      const named = setupWithOutcome(root, { mode: 'yolo', permissions: { allow: [rule] } });
      expect(await named.outcome('write', { path: p, content: 'x' }), rule).toBe('allow');
    }
  });
});

describe('extra roots', () => {
  it('protect the names at their top like the workspace', async () => {
    const { outcome } = setupWithOutcome(ws, {
      mode: 'yolo',
      config: { workspace: { extraRoots: ['../../other'] } },
    });
    expect(await outcome('write', { path: path.join(other, 'murmur.toml'), content: 'x' })).toBe('ask');
    expect(await outcome('write', { path: path.join(other, '.vscode', 'tasks.json'), content: 'x' })).toBe('ask');
    expect(await outcome('write', { path: path.join(other, '.git', 'hooks', 'x'), content: 'x' })).toBe('ask');
    expect(await outcome('write', { path: path.join(other, 'src', 'murmur.toml'), content: 'x' })).toBe('allow');
    expect(await outcome('write', { path: path.join(other, 'notes.md'), content: 'x' })).toBe('allow');
  });
});

describe('plan files', () => {
  it('stay writable in plan mode, in every mode', async () => {
    const plan = path.join(ws, '.murmur', 'sessions', 's-1', 'plans', 'main.md');
    for (const mode of MODES) {
      const { setup, outcome } = setupWithOutcome(ws, { mode });
      setup.planMode.enter('main', plan);
      expect(await outcome('write', { path: plan, content: '# Plan' }), mode).toBe('allow');
      expect(await outcome('write', { path: 'murmur.toml', content: 'x' }), mode).toMatch(
        /^refused: You are in plan mode/,
      );
    }
  });
});

describe('without anyone to answer', () => {
  it('refuses a protected path even with permissions.headless = "allow", saying how to pre-approve it', async () => {
    const setup = createPermissionSetup({
      workspaceRoot: ws,
      mode: 'yolo',
      headlessReason: 'the run prints JSON (--json)',
      config: { permissions: { headless: 'allow', allow: ['write'] } },
    });
    const result = await check(setup, 'write', { path: 'murmur.toml', content: '[sandbox]\nenabled = false\n' });
    expect(result?.isError).toBe(true);
    expect(text(result)).toBe(
      "Not run: write murmur.toml (overwrite, 26 bytes) needs a person's approval (write would change murmur.toml, " +
        "a protected path that steers murmur (it can make code run outside the agent's reach), so a person decides in " +
        'every permission mode unless a rule names that path), but nobody can approve it here (the run prints JSON ' +
        '(--json)); permissions.headless = "allow" does not cover protected paths. To pre-approve this path, add a ' +
        'rule that names it to murmur.toml: [permissions] allow = ["write(./murmur.toml)"] (a generic rule such as ' +
        '"write" or "write(**)" does not cover protected paths). Do not retry it as is: carry on without it, or say ' +
        'in your reply what you need.',
    );
    expect(result?.details).toMatchObject({
      permission: 'headless-deny',
      wouldAllow: ['write(./murmur.toml)'],
      protectedPath: 'murmur.toml',
    });
    // Other calls are still allowed by headless = "allow" (and the bare rule).
    expect(await check(setup, 'write', { path: 'src/a.ts', content: 'x' })).toBeUndefined();
    expect(await check(setup, 'bash', { command: 'ls' })).toBeUndefined();
  });

  it('allows a protected path that a rule names', async () => {
    const setup = createPermissionSetup({
      workspaceRoot: ws,
      mode: 'manual',
      config: { permissions: { allow: ['edit(.git/hooks/**)'] } },
    });
    expect(
      await check(setup, 'edit', { path: '.git/hooks/pre-commit', old_string: 'a', new_string: 'b' }),
    ).toBeUndefined();
    expect(text(await check(setup, 'edit', { path: '.git/config', old_string: 'a', new_string: 'b' }))).toContain(
      '[permissions] allow = ["edit(./.git/config)"]',
    );
  });
});

describe('through the engine in yolo mode', () => {
  let dir: string;
  let engine: Engine | undefined;

  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await removeDir(dir);
  });

  const script: Script = {
    agents: [
      {
        match: { role: 'main' },
        turns: [
          {
            toolCalls: [{ name: 'write', arguments: { path: 'murmur.toml', content: '[sandbox]\nenabled = false\n' } }],
          },
          { toolCalls: [{ name: 'write', arguments: { path: '.git/hooks/post-commit', content: '#!/bin/sh\n' } }] },
          { toolCalls: [{ name: 'write', arguments: { path: 'src/a.ts', content: 'export {};\n' } }] },
          { text: 'done' },
        ],
      },
    ],
  };

  async function run(options: Omit<PermissionSetupOptions, 'workspaceRoot'>) {
    dir = await tempDir('murmur-protected-engine-');
    writeFileSync(path.join(dir, 'murmur.toml'), 'permissionMode = "yolo"\n');
    const setup = createPermissionSetup({ workspaceRoot: dir, mode: 'yolo', ...options });
    engine = new Engine({
      cwd: dir,
      provider: new ScriptedModel(script),
      session: false,
      env: {},
      permission: setup.permission,
      extraVetoes: setup.extraVetoes,
      interaction: { user: setup.userChannel, planMode: setup.planMode },
      registry: { extra: [...setup.tools] },
    });
    const outcome = await engine.runTask('Change things');
    expect(outcome.status).toBe('completed');
    return engine.agentTree
      .get('main')!
      .agent.state.messages.filter((m): m is ToolResultMessage => m.role === 'tool')
      .map((m) => m.content.map((c) => (c.type === 'text' ? c.text : '')).join(''));
  }

  it('asks the person for the protected paths only; a denial leaves them as they were', async () => {
    const user = new FakeUser({ approve: () => ({ kind: 'deny' }) });
    const results = await run({ asker: user, config: { permissions: { allow: ['write(**)'] } } });
    expect(user.approvals.map((a) => a.summary)).toEqual([
      'write murmur.toml (overwrite, 26 bytes)',
      'write .git/hooks/post-commit (overwrite, 10 bytes)',
    ]);
    expect(results[0]).toContain('Not run: the user denied this call');
    expect(results[1]).toContain('Not run: the user denied this call');
    expect(results[2]).toContain('Wrote 11 bytes to src/a.ts');
    expect(readFileSync(path.join(dir, 'murmur.toml'), 'utf8')).toBe('permissionMode = "yolo"\n');
    expect(existsSync(path.join(dir, '.git', 'hooks', 'post-commit'))).toBe(false);
  });

  it('without an asker refuses them even with headless = "allow", and the model is told how to pre-approve', async () => {
    const results = await run({ config: { permissions: { headless: 'allow' } } });
    expect(results[0]).toContain('permissions.headless = "allow" does not cover protected paths');
    expect(results[0]).toContain('[permissions] allow = ["write(./murmur.toml)"]');
    expect(results[1]).toContain('[permissions] allow = ["write(./.git/hooks/post-commit)"]');
    expect(results[2]).toContain('Wrote 11 bytes to src/a.ts');
    expect(readFileSync(path.join(dir, 'murmur.toml'), 'utf8')).toBe('permissionMode = "yolo"\n');
    expect(existsSync(path.join(dir, '.git', 'hooks', 'post-commit'))).toBe(false);
  });
});
