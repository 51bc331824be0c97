import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editTool, readTool, writeTool } from '../../tools/workspace-tools.js';
import { call, contextFor, createLedger, removeDir, tempDir, text, writeTree } from './helpers.js';

let root: string;

beforeEach(async () => {
  root = await tempDir();
});

afterEach(async () => {
  await removeDir(root);
});

describe('write', () => {
  it('creates missing folders and reports a new file', async () => {
    const result = await call(writeTool, contextFor(root), { path: 'a/b/c.txt', content: 'hello\n' });
    expect(text(result)).toBe('Wrote 6 bytes to a/b/c.txt (new file).');
    expect(await readFile(path.join(root, 'a/b/c.txt'), 'utf8')).toBe('hello\n');
  });

  it('overwrites atomically and keeps the file mode', async () => {
    const file = path.join(root, 'run.sh');
    await writeFile(file, 'old');
    await chmod(file, 0o755);
    const result = await call(writeTool, contextFor(root), { path: 'run.sh', content: '#!/bin/sh\necho hi\n' });
    expect(text(result)).toContain('replaced its 3 bytes');
    expect((await stat(file)).mode & 0o777).toBe(0o755);
    expect(await readFile(file, 'utf8')).toBe('#!/bin/sh\necho hi\n');
  });

  it('appends without adding a newline', async () => {
    writeTree(root, { 'log.txt': 'one' });
    await call(writeTool, contextFor(root), { path: 'log.txt', content: 'two', mode: 'append' });
    expect(await readFile(path.join(root, 'log.txt'), 'utf8')).toBe('onetwo');
  });

  it('refuses a path outside the workspace', async () => {
    const result = await call(writeTool, contextFor(root), { path: '/etc/murmur-test.txt', content: 'x' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('outside the workspace');
  });

  it('refuses to overwrite, append to or create a sensitive file without an allow', async () => {
    writeTree(root, { '.npmrc': '//registry/:_authToken=old\n', '.env': 'KEY=1\n' });
    const ctx = contextFor(root);
    const npmrc = await call(writeTool, ctx, { path: '.npmrc', content: 'stolen' });
    expect(npmrc.isError).toBe(true);
    expect(text(npmrc)).toContain('.npmrc is a sensitive file');
    expect(text(npmrc)).toContain('Writing it needs an explicit allow');
    expect((await call(writeTool, ctx, { file_path: '.env', content: 'KEY=2\n' })).isError).toBe(true);
    expect((await call(writeTool, ctx, { path: '.env', content: 'MORE=1\n', mode: 'append' })).isError).toBe(true);
    expect((await call(writeTool, ctx, { path: 'keys/deploy.pem', content: 'x' })).isError).toBe(true);
    expect(await readFile(path.join(root, '.npmrc'), 'utf8')).toBe('//registry/:_authToken=old\n');
    expect(await readFile(path.join(root, '.env'), 'utf8')).toBe('KEY=1\n');
    await expect(stat(path.join(root, 'keys'))).rejects.toThrow();
  });

  it('writes a sensitive file that configuration allows', async () => {
    const ctx = contextFor(root, { workspace: { root, extraRoots: [], allowSensitive: ['.env'] } });
    const result = await call(writeTool, ctx, { path: '.env', content: 'KEY=1\n' });
    expect(result.isError).toBeUndefined();
    expect(await readFile(path.join(root, '.env'), 'utf8')).toBe('KEY=1\n');
  });

  it('rejects an unknown mode naming the rule', async () => {
    const result = await call(writeTool, contextFor(root), { path: 'x.txt', content: 'x', mode: 'prepend' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('/mode');
  });
});

describe('edit', () => {
  it('replaces a unique match and returns a small diff', async () => {
    writeTree(root, { 'a.ts': 'const a = 1;\nconst b = 2;\nconst c = 3;\n' });
    const result = await call(editTool, contextFor(root), {
      path: 'a.ts',
      old_string: 'const b = 2;',
      new_string: 'const b = 20;',
    });
    expect(result.isError).toBeUndefined();
    expect(await readFile(path.join(root, 'a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 20;\nconst c = 3;\n');
    expect(text(result)).toContain('Edited a.ts: 1 replacement.');
    expect(text(result)).toContain('-     2| const b = 2;');
    expect(text(result)).toContain('+     2| const b = 20;');
  });

  it('refuses several matches, giving the count and suggesting replace_all', async () => {
    writeTree(root, { 'a.ts': 'x = 1\nx = 1\nx = 1\n' });
    const result = await call(editTool, contextFor(root), { path: 'a.ts', old_string: 'x = 1', new_string: 'x = 2' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('matches 3 places');
    expect(text(result)).toContain('replace_all: true');
    const all = await call(editTool, contextFor(root), {
      path: 'a.ts',
      old_string: 'x = 1',
      new_string: 'x = 2',
      replace_all: true,
    });
    expect(text(all)).toContain('3 replacements');
    expect(await readFile(path.join(root, 'a.ts'), 'utf8')).toBe('x = 2\nx = 2\nx = 2\n');
  });

  it('says when there is no match and shows the closest line', async () => {
    writeTree(root, { 'a.ts': 'function hello(name) {\n  return name;\n}\n' });
    const result = await call(editTool, contextFor(root), {
      path: 'a.ts',
      old_string: 'function helo(name) {',
      new_string: 'x',
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('old_string was not found in a.ts');
    expect(text(result)).toContain('The closest line is 1: "function hello(name) {"');
  });

  it('refuses old_string equal to new_string', async () => {
    writeTree(root, { 'a.ts': 'x\n' });
    const result = await call(editTool, contextFor(root), { path: 'a.ts', old_string: 'x', new_string: 'x' });
    expect(text(result)).toContain('the same');
  });

  it('keeps CRLF line endings and a BOM', async () => {
    const file = path.join(root, 'win.txt');
    await writeFile(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('one\r\ntwo\r\nthree\r\n')]));
    const result = await call(editTool, contextFor(root), {
      path: 'win.txt',
      old_string: 'one\ntwo',
      new_string: 'one\nTWO\nmore',
    });
    expect(result.isError).toBeUndefined();
    const bytes = await readFile(file);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString('utf8')).toBe('one\r\nTWO\r\nmore\r\nthree\r\n');
  });

  it('refuses a file that another agent changed since this agent read it', async () => {
    writeTree(root, { 'shared.ts': 'let value = 1;\nlet other = 1;\n' });
    const first = contextFor(root, { agentId: 'worker-1', reads: createLedger() });
    const second = contextFor(root, { agentId: 'worker-2', reads: createLedger() });
    await call(readTool, first, { path: 'shared.ts' });
    await call(readTool, second, { path: 'shared.ts' });
    // The first worker gets there first (its edit changes the size, so the stamp differs on any clock).
    const firstEdit = await call(editTool, first, {
      path: 'shared.ts',
      old_string: 'let value = 1;',
      new_string: 'let value = 22;',
    });
    expect(firstEdit.isError).toBeUndefined();
    const stale = await call(editTool, second, {
      path: 'shared.ts',
      old_string: 'let other = 1;',
      new_string: 'let other = 2;',
    });
    expect(stale.isError).toBe(true);
    expect(text(stale)).toContain('changed on disk since you last read it');
    expect(text(stale)).toContain('Read it again');
    await call(readTool, second, { path: 'shared.ts' });
    const retried = await call(editTool, second, {
      path: 'shared.ts',
      old_string: 'let other = 1;',
      new_string: 'let other = 2;',
    });
    expect(retried.isError).toBeUndefined();
  });

  it('lets an agent edit the same file twice in a row (its own writes update its ledger)', async () => {
    writeTree(root, { 'a.ts': 'a\nb\n' });
    const ctx = contextFor(root);
    await call(readTool, ctx, { path: 'a.ts' });
    expect((await call(editTool, ctx, { path: 'a.ts', old_string: 'a', new_string: 'A' })).isError).toBeUndefined();
    expect((await call(editTool, ctx, { path: 'a.ts', old_string: 'b', new_string: 'B' })).isError).toBeUndefined();
    expect(await readFile(path.join(root, 'a.ts'), 'utf8')).toBe('A\nB\n');
  });

  it('refuses to edit a sensitive file without an allow', async () => {
    writeTree(root, { '.env': 'KEY=1\n' });
    const result = await call(editTool, contextFor(root), { path: '.env', old_string: 'KEY=1', new_string: 'KEY=2' });
    expect(text(result)).toContain('sensitive file');
  });
});
