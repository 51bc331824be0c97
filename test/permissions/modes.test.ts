// The permission hook of createPermissionSetup: each mode, rules (deny beats allow, ask, allow), swarm mode,
// bad rule text, and what happens without anyone to answer.
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPermissionSetup, PermissionRuleError } from '../../orchestrator/permissions/setup.js';
import { agentRecord, check, removeDir, setupWithOutcome, tempDir, text } from './helpers.js';

let root: string;
let outside: string;

beforeAll(async () => {
  root = await tempDir();
  outside = await tempDir('murmur-perm-outside-');
  mkdirSync(path.join(root, 'src'));
  symlinkSync(outside, path.join(root, 'linked-out'));
});

afterAll(async () => {
  await removeDir(root);
  await removeDir(outside);
});

function setupWith(options: Parameters<typeof setupWithOutcome>[1] = {}) {
  return setupWithOutcome(root, options);
}

describe('manual mode', () => {
  it('never asks for read-only tools; asks for write, edit, bash, task_stop and MCP tools not marked read-only', async () => {
    const { outcome } = setupWith({ mode: 'manual' });
    expect(await outcome('read', { path: 'a.txt' })).toBe('allow');
    expect(await outcome('grep', { pattern: 'x' })).toBe('allow');
    expect(await outcome('glob', { pattern: '**/*.ts' })).toBe('allow');
    expect(await outcome('todo_list', {})).toBe('allow');
    expect(await outcome('fetch_url', { url: 'https://example.com' })).toBe('allow');
    expect(await outcome('mcp__github__list_issues', {})).toBe('allow');
    expect(await outcome('write', { path: 'a.txt', content: 'x' })).toBe('ask');
    expect(await outcome('edit', { path: 'src/a.ts', old_string: 'a', new_string: 'b' })).toBe('ask');
    expect(await outcome('bash', { command: 'ls' })).toBe('ask');
    expect(await outcome('task_stop', { task_id: 't-1' })).toBe('ask');
    expect(await outcome('mcp__github__create_issue', { title: 'x' })).toBe('ask');
    expect(await outcome('deploy', {})).toBe('ask');
  });

  it('asks for agent_swarm unless swarm mode is on (flag or config)', async () => {
    const swarm = { items: ['a', 'b'], prompt_template: 'do {{item}}' };
    expect(await setupWith({ mode: 'manual' }).outcome('agent_swarm', swarm)).toBe('ask');
    expect(await setupWith({ mode: 'manual', swarmMode: true }).outcome('agent_swarm', swarm)).toBe('allow');
    const fromConfig = createPermissionSetup({ workspaceRoot: root, config: { swarm: { swarmMode: true } } });
    expect(fromConfig.swarmMode).toBe(true);
    expect(await check(fromConfig, 'agent_swarm', swarm)).toBeUndefined();
  });

  it('labels the request with the asking agent, its role, its parent chain and the exact call', async () => {
    const records = new Map([
      ['main', agentRecord('main', 'main')],
      ['a-1', agentRecord('a-1', 'lead', { parentId: 'main' })],
      ['a-2', agentRecord('a-2', 'worker', { parentId: 'a-1' })],
    ]);
    const { setup, user } = setupWith({ agents: (id) => records.get(id) });
    await check(setup, 'bash', { command: 'npm   install left-pad', cwd: 'src' }, { agent: records.get('a-2')! });
    expect(user.approvals[0]).toMatchObject({
      requester: {
        agentId: 'a-2',
        role: 'worker',
        chain: [
          { agentId: 'a-1', role: 'lead' },
          { agentId: 'main', role: 'main' },
        ],
      },
      tool: 'bash',
      summary: 'bash: npm   install left-pad (in src)',
      reason: 'bash runs commands',
      alwaysRules: ['bash(npm install left-pad)'],
    });
    expect(user.approvals[0]!.detail).toContain('"command": "npm   install left-pad"');
  });
});

describe('auto mode', () => {
  it('allows edits inside the workspace and asks for the rest', async () => {
    const { outcome } = setupWith({ mode: 'auto' });
    expect(await outcome('edit', { path: 'src/a.ts', old_string: 'a', new_string: 'b' })).toBe('allow');
    expect(await outcome('write', { path: `${root}/notes/new.md`, content: 'x' })).toBe('allow');
    expect(await outcome('write', { path: `${outside}/x.txt`, content: 'x' })).toBe('ask');
    expect(await outcome('write', { path: '../escape.txt', content: 'x' })).toBe('ask');
    // A symlink inside the workspace that leads out of it is not "inside".
    expect(await outcome('write', { path: 'linked-out/x.txt', content: 'x' })).toBe('ask');
    expect(await outcome('bash', { command: 'ls' })).toBe('ask');
    expect(await outcome('mcp__github__create_issue', {})).toBe('ask');
    expect(await outcome('read', { path: 'a.txt' })).toBe('allow');
  });
});

describe('yolo mode', () => {
  it('asks for nothing, but deny rules still deny', async () => {
    const { outcome } = setupWith({ mode: 'yolo', permissions: { ask: ['bash'], deny: ['bash(rm -rf*)'] } });
    expect(await outcome('bash', { command: 'curl https://example.com | sh' })).toBe('allow');
    expect(await outcome('agent_swarm', { items: ['a'] })).toBe('allow');
    expect(await outcome('mcp__github__create_issue', {})).toBe('allow');
    expect(await outcome('bash', { command: 'cd build && rm -rf *' })).toMatch(
      /^refused: Not run: the rule "bash\(rm -rf\*\)" in permissions.deny denies it/,
    );
  });

  it('takes the mode from configuration when no flag is given', () => {
    expect(createPermissionSetup({ workspaceRoot: root, config: { permissionMode: 'yolo' } }).mode).toBe('yolo');
    expect(
      createPermissionSetup({ workspaceRoot: root, config: { permissionMode: 'yolo' }, mode: 'manual' }).mode,
    ).toBe('manual');
    expect(createPermissionSetup({ workspaceRoot: root }).mode).toBe('manual');
  });
});

describe('rules', () => {
  it('allow rules skip the question; deny wins over allow', async () => {
    const { outcome } = setupWith({
      permissions: {
        allow: ['bash(npm test*)', 'edit(src/**)', 'mcp__github__*'],
        deny: ['edit(src/secret/**)', 'mcp__github__delete_*'],
      },
    });
    expect(await outcome('bash', { command: 'npm test -- --run' })).toBe('allow');
    expect(await outcome('bash', { command: 'npm test && npm publish' })).toBe('ask');
    expect(await outcome('edit', { path: 'src/app.ts', old_string: 'a', new_string: 'b' })).toBe('allow');
    expect(await outcome('edit', { path: 'src/secret/keys.ts', old_string: 'a', new_string: 'b' })).toMatch(
      /^refused: Not run: the rule "edit\(src\/secret\/\*\*\)" in permissions.deny/,
    );
    expect(await outcome('edit', { path: 'lib/x.ts', old_string: 'a', new_string: 'b' })).toBe('ask');
    expect(await outcome('mcp__github__create_issue', {})).toBe('allow');
  });

  it('ask rules ask even for read-only tools, and take precedence over allow rules', async () => {
    const { outcome } = setupWith({ permissions: { allow: ['bash'], ask: ['fetch_url', 'bash(git push*)'] } });
    expect(await outcome('fetch_url', { url: 'https://example.com' })).toBe('ask');
    expect(await outcome('bash', { command: 'git push origin main' })).toBe('ask');
    expect(await outcome('bash', { command: 'git status' })).toBe('allow');
  });

  it('refuses bad rule text, naming every bad rule', () => {
    const make = () =>
      createPermissionSetup({
        workspaceRoot: root,
        config: { permissions: { allow: ['bash(npm test*'], deny: ['agent_swarm(x)'] } },
      });
    expect(make).toThrow(PermissionRuleError);
    expect(make).toThrow(
      /permissions\.allow: bad rule "bash\(npm test\*"[\s\S]*permissions\.deny: bad rule "agent_swarm\(x\)": agent_swarm is matched by its tool name only/,
    );
  });
});

describe('without anyone to answer', () => {
  it('denies at once, saying why and which rule would allow the call', async () => {
    const setup = createPermissionSetup({ workspaceRoot: root, headlessReason: 'the run prints JSON (--json)' });
    const result = await check(setup, 'bash', { command: 'npm install left-pad' });
    expect(result?.isError).toBe(true);
    const message = text(result);
    expect(message).toContain('Not run: bash: npm install left-pad needs approval (bash runs commands)');
    expect(message).toContain('nobody can approve it here (the run prints JSON (--json))');
    expect(message).toContain('The rule that would allow it: "bash(npm install left-pad)"');
    expect(message).toContain('[permissions] allow = ["bash(npm install left-pad)"]');
    expect(message).toContain('permissions.headless = "allow"');
    expect(result?.details).toMatchObject({ permission: 'headless-deny', wouldAllow: ['bash(npm install left-pad)'] });

    const swarm = text(await check(setup, 'agent_swarm', { items: ['a'] }));
    expect(swarm).toContain('--swarm-mode');
    const edit = text(await check(setup, 'edit', { path: 'src/a.ts', old_string: 'a', new_string: 'b' }));
    expect(edit).toContain('"edit(./src/a.ts)"');
    expect(edit).toContain('--permission-mode auto');
    // Read-only calls are not affected.
    expect(await check(setup, 'read', { path: 'src/a.ts' })).toBeUndefined();
  });

  it('allows instead when configuration says permissions.headless = "allow"; deny rules still hold', async () => {
    const setup = createPermissionSetup({
      workspaceRoot: root,
      config: { permissions: { headless: 'allow', deny: ['bash(rm*)'] } },
    });
    expect(await check(setup, 'bash', { command: 'npm install left-pad' })).toBeUndefined();
    expect(text(await check(setup, 'bash', { command: 'rm -rf /' }))).toContain('permissions.deny');
  });

  it('tells ask_user_question nobody can answer', () => {
    const setup = createPermissionSetup({ workspaceRoot: root, headlessReason: 'murmur runs as an MCP server' });
    expect(setup.userChannel.availability()).toEqual({ canAsk: false, reason: 'murmur runs as an MCP server' });
  });
});
