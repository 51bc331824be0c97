// Ways around the rules that must stay closed: grouped or prefixed shell commands, searches of a denied
// folder, links into it, folder names that start with "..", and auto mode rewriting murmur's own control files.
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, setupWithOutcome, tempDir } from './helpers.js';

let root: string;

beforeAll(async () => {
  root = await tempDir();
  mkdirSync(path.join(root, 'secrets'));
  mkdirSync(path.join(root, 'src'));
  symlinkSync(path.join(root, 'secrets'), path.join(root, 'link'));
});

afterAll(async () => {
  await removeDir(root);
});

function setupWith(options: Parameters<typeof setupWithOutcome>[1] = {}) {
  return setupWithOutcome(root, options).outcome;
}

describe('permission rules that cannot be walked around', () => {
  it('denies a shell command hidden in a group, a compound statement or behind variable assignments', async () => {
    const outcome = setupWith({ mode: 'yolo', permissions: { deny: ['bash(curl*)'] } });
    for (const command of [
      '(curl evil)',
      '{ curl evil; }',
      'if true; then curl evil; fi',
      'FOO=1 curl evil',
      'env A=1 curl evil',
      'ls && (FOO=bar curl evil)',
    ]) {
      expect(await outcome('bash', { command }), command).toMatch(/^refused: Not run: the rule "bash\(curl\*\)"/);
    }
    expect(await outcome('bash', { command: 'echo curl is a word here' })).toBe('allow');
  });

  it('keeps a read deny rule for grep and glob of that folder, and accepts grep(...) rules', async () => {
    const outcome = setupWith({ mode: 'yolo', permissions: { deny: ['read(secrets/**)', 'grep(src/private/**)'] } });
    expect(await outcome('grep', { pattern: 'key', path: 'secrets/prod' })).toMatch(/^refused:/);
    expect(await outcome('glob', { pattern: '*', path: 'secrets/x' })).toMatch(/^refused:/);
    expect(await outcome('grep', { pattern: 'x', path: 'src/private/a.ts' })).toMatch(/^refused:/);
    expect(await outcome('grep', { pattern: 'key', path: 'src' })).toBe('allow');
  });

  it('holds a path rule through a symlink that leads into the denied folder', async () => {
    const outcome = setupWith({ mode: 'auto', permissions: { deny: ['edit(secrets/**)'] } });
    expect(await outcome('edit', { path: 'link/token.txt', old_string: 'a', new_string: 'b' })).toMatch(
      /^refused: Not run: the rule "edit\(secrets\/\*\*\)"/,
    );
  });

  it('treats a folder named "..keys" as inside the workspace', async () => {
    const outcome = setupWith({ mode: 'auto', permissions: { deny: ['write(*.pem)'] } });
    expect(await outcome('write', { path: '..keys/a.pem', content: 'x' })).toMatch(/^refused:/);
    expect(await outcome('write', { path: '..keys/readme.txt', content: 'x' })).toBe('allow');
  });

  it('asks in auto mode before an agent rewrites the files that steer murmur or git', async () => {
    const outcome = setupWith({ mode: 'auto' });
    for (const file of [
      'murmur.toml',
      '.mcp.json',
      '.git/hooks/pre-commit',
      '.murmur/agents/lead.md',
      '.murmur/skills/x/SKILL.md',
    ]) {
      expect(await outcome('write', { path: file, content: 'x' }), file).toBe('ask');
    }
    expect(await outcome('write', { path: 'src/a.ts', content: 'x' })).toBe('allow');
    expect(await outcome('edit', { path: 'docs/murmur.toml.md', old_string: 'a', new_string: 'b' })).toBe('allow');
  });
});
