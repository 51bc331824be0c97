import { symlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rgPath } from '@vscode/ripgrep';
import { globTool, grepTool } from '../../tools/workspace-tools.js';
import { formatGrep } from '../../tools/fs/grep-format.js';
import { grepWithJavaScript } from '../../tools/fs/grep-js.js';
import type { GrepQuery } from '../../tools/fs/grep-query.js';
import { grepWithRipgrep } from '../../tools/fs/grep-rg.js';
import { discoverRipgrep, findRipgrep } from '../../tools/fs/ripgrep-path.js';
import { call, contextFor, removeDir, tempDir, text, writeTree } from './helpers.js';

let root: string;
let outside: string;

beforeAll(async () => {
  root = await tempDir();
  outside = await tempDir('murmur-outside-');
  writeTree(root, {
    '.gitignore': 'build/\n*.log\n!keep.log\n',
    'src/a.ts': 'export const alpha = 1;\n// TODO one\nconst after = 2;\n',
    'src/b.tsx': "const beta = 'TODO two';\n",
    'src/c.js': 'todo three\n',
    'src/nested/.gitignore': 'generated.ts\n',
    'src/nested/generated.ts': 'TODO generated\n',
    'src/nested/real.ts': 'line one\nline two\nTODO real\nline four\nline five\nline six\nline seven\nTODO again\n',
    'build/out.js': 'TODO build\n',
    'debug.log': 'TODO log\n',
    'keep.log': 'TODO keep\n',
    'docs/.ignore': 'draft.md\n',
    'docs/draft.md': 'TODO draft\n',
    'docs/final.md': 'TODO final\n',
    'other/.ignore': 'x.md\ny.md\n',
    'other/.rgignore': '!x.md\n',
    'other/x.md': 'TODO x\n',
    'other/y.md': 'TODO y\n',
    'crlf.txt': 'first\r\nTODO crlf\r\n',
    '.env': 'TODO secret\n',
    'config/.env.production': 'TODO secret\n',
    'keys/id_rsa': 'TODO key\n',
    'keys/server.pem': 'TODO pem\n',
    '.aws/credentials': 'TODO aws\n',
    '.github/workflows/ci.yml': 'TODO ci\n',
    '.git/HEAD': 'TODO git\n',
    'binary.dat': Buffer.from('TODO\0binary'),
  });
  writeTree(outside, { 'secret.ts': 'TODO outside\n' });
  await symlink(path.join(outside, 'secret.ts'), path.join(root, 'src/link.ts'));
  await symlink(outside, path.join(root, 'src/linkdir'));
});

afterAll(async () => {
  await removeDir(root);
  await removeDir(outside);
});

const VISIBLE = [
  '.github/workflows/ci.yml',
  'crlf.txt',
  'docs/final.md',
  'keep.log',
  'other/x.md',
  'src/a.ts',
  'src/b.tsx',
  'src/nested/real.ts',
];
const IGNORED = ['build/out.js', 'debug.log', 'docs/draft.md', 'other/y.md', 'src/nested/generated.ts'];

function lines(result: { content: unknown[] }): string[] {
  return text(result as never)
    .split('\n')
    .slice(1);
}

describe('grep', () => {
  it('lists matching files sorted by path, honouring nested ignore files and hiding sensitive ones', async () => {
    const result = await call(grepTool, contextFor(root), { pattern: 'TODO' });
    expect(text(result).split('\n')[0]).toBe(`${VISIBLE.length} files match.`);
    expect(lines(result)).toEqual(VISIBLE);
  });

  it('searches ignored files with include_ignored but never sensitive ones', async () => {
    const result = await call(grepTool, contextFor(root), { pattern: 'TODO', include_ignored: true });
    expect(lines(result)).toEqual([...VISIBLE, ...IGNORED].sort());
    expect(text(result)).not.toMatch(/\.env|id_rsa|\.pem|credentials|\.git\/|outside/);
  });

  it('refuses to search a sensitive file given as path', async () => {
    const result = await call(grepTool, contextFor(root), { pattern: 'TODO', path: '.env' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('sensitive');
  });

  it('shows content with line numbers and context', async () => {
    const result = await call(grepTool, contextFor(root), {
      pattern: 'TODO',
      path: 'src/nested',
      output_mode: 'content',
      '-C': 1,
    });
    expect(lines(result)).toEqual([
      'src/nested/real.ts-2-line two',
      'src/nested/real.ts:3:TODO real',
      'src/nested/real.ts-4-line four',
      '--',
      'src/nested/real.ts-7-line seven',
      'src/nested/real.ts:8:TODO again',
    ]);
  });

  it('counts, filters by type and glob, and ignores case', async () => {
    const counts = await call(grepTool, contextFor(root), {
      pattern: 'todo',
      output_mode: 'count',
      '-i': true,
      type: 'ts',
    });
    expect(lines(counts)).toEqual(['src/a.ts:1', 'src/b.tsx:1', 'src/nested/real.ts:2']);
    const globbed = await call(grepTool, contextFor(root), { pattern: 'TODO', glob: '*.{md,yml}' });
    expect(lines(globbed)).toEqual(['.github/workflows/ci.yml', 'docs/final.md', 'other/x.md']);
  });

  it('pages with offset and head_limit', async () => {
    const first = await call(grepTool, contextFor(root), { pattern: 'TODO', head_limit: 3 });
    expect(lines(first).slice(0, 3)).toEqual(VISIBLE.slice(0, 3));
    expect(text(first)).toContain('Continue with offset=3');
    const second = await call(grepTool, contextFor(root), { pattern: 'TODO', head_limit: 3, offset: 3 });
    expect(lines(second).slice(0, 3)).toEqual(VISIBLE.slice(3, 6));
  });

  it('says when nothing matches and reports a bad pattern', async () => {
    expect(text(await call(grepTool, contextFor(root), { pattern: 'NOPE_NOT_HERE' }))).toContain('No matches');
    const bad = await call(grepTool, contextFor(root), { pattern: 'a(' });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('regex parse error');
  });

  it('refuses a search path outside the workspace', async () => {
    expect(text(await call(grepTool, contextFor(root), { pattern: 'TODO', path: 'src/linkdir' }))).toContain(
      'goes through a symlink',
    );
  });
});

describe('ripgrep discovery', () => {
  it('prefers RG_PATH, then @vscode/ripgrep, then rg on PATH', async () => {
    const binDir = await tempDir('murmur-bin-');
    const copy = path.join(binDir, 'rg');
    await symlink(rgPath, copy);
    const bundled = async () => '/bundled/rg';
    expect(await discoverRipgrep({ env: { RG_PATH: copy, PATH: binDir }, bundled })).toEqual({
      path: copy,
      source: 'RG_PATH',
    });
    expect(await discoverRipgrep({ env: { RG_PATH: '/nowhere/rg', PATH: binDir }, bundled })).toEqual({
      path: '/bundled/rg',
      source: '@vscode/ripgrep',
    });
    const none = async () => undefined;
    expect(await discoverRipgrep({ env: { PATH: `/nowhere:${binDir}` }, bundled: none })).toEqual({
      path: copy,
      source: 'PATH',
    });
    expect(await discoverRipgrep({ env: { PATH: '/nowhere' }, bundled: none })).toBeUndefined();
    expect(await findRipgrep({ PATH: '' })).toEqual({ path: rgPath, source: '@vscode/ripgrep' });
    await removeDir(binDir);
  });
});

describe('the JavaScript fallback', () => {
  const base = (): Omit<GrepQuery, 'pattern'> => ({
    base: root,
    target: '',
    targetIsFile: false,
    mode: 'files',
    ignoreCase: false,
    before: 0,
    after: 0,
    multiline: false,
    includeIgnored: false,
  });
  const cases: Array<Partial<GrepQuery> & { pattern: string }> = [
    { pattern: 'TODO' },
    { pattern: 'TODO', includeIgnored: true },
    { pattern: 'todo', ignoreCase: true, mode: 'count' },
    { pattern: 'TODO', mode: 'content' },
    { pattern: 'TODO', mode: 'content', before: 1, after: 2 },
    { pattern: 'TODO', mode: 'content', before: 3, after: 3, target: 'src/nested' },
    { pattern: 'TODO', type: 'ts', mode: 'content' },
    { pattern: 'TODO', glob: '*.{md,yml}' },
    { pattern: 'TODO', glob: 'src/**/*.ts' },
    { pattern: 'TODO', glob: '!*.ts' },
    { pattern: 'TODO', target: 'src' },
    { pattern: 'TODO', target: 'build' },
    { pattern: 'TODO', target: 'src/a.ts', targetIsFile: true, mode: 'content' },
    { pattern: 'line t\\w+\\nTODO', multiline: true, mode: 'content' },
    { pattern: 'crlf$', mode: 'content' },
    { pattern: '^\\s*//', mode: 'content' },
  ];
  for (const testCase of cases) {
    it(`gives the same results as ripgrep: ${JSON.stringify(testCase)}`, async () => {
      const query = { ...base(), ...testCase } as GrepQuery;
      const fromRg = await grepWithRipgrep(rgPath, query);
      const fromJs = await grepWithJavaScript(query);
      expect(fromRg.ok && fromJs.ok).toBe(true);
      if (!fromRg.ok || !fromJs.ok) return;
      const show = (file: string) => file;
      const page = { offset: 0, headLimit: 0 };
      const rgText = formatGrep(fromRg.files, query, show, true, page).text;
      expect(formatGrep(fromJs.files, query, show, true, page).text).toBe(rgText);
      expect(rgText.split('\n').length).toBeGreaterThan(1);
    });
  }
});

describe('glob', () => {
  it('lists files newest first, with brace patterns, honouring nested ignore files', async () => {
    const now = Date.now() / 1000;
    await utimes(path.join(root, 'src/b.tsx'), now, now + 100);
    await utimes(path.join(root, 'src/a.ts'), now, now + 50);
    const result = await call(globTool, contextFor(root), { pattern: '**/*.{ts,tsx}' });
    expect(text(result).split('\n')).toEqual(['src/b.tsx', 'src/a.ts', 'src/nested/real.ts']);
  });

  it('lists ignored files with include_ignored but never sensitive ones or .git', async () => {
    const all = text(await call(globTool, contextFor(root), { pattern: '**/*', include_ignored: true }))
      .split('\n')
      .sort();
    for (const file of IGNORED) expect(all).toContain(file);
    expect(all.join('\n')).not.toMatch(/\.env|id_rsa|\.pem|credentials|\.git\/|link/);
    const hidden = text(await call(globTool, contextFor(root), { pattern: '**/*' })).split('\n');
    for (const file of IGNORED) expect(hidden).not.toContain(file);
    expect(hidden).toContain('.gitignore');
    expect(hidden).toContain('.github/workflows/ci.yml');
  });

  it('searches from a path and lists an explicitly given ignored folder', async () => {
    expect(text(await call(globTool, contextFor(root), { pattern: '*.md', path: 'docs' })).split('\n')).toEqual([
      'docs/final.md',
    ]);
    expect(text(await call(globTool, contextFor(root), { pattern: '**/*', path: 'build' }))).toBe('build/out.js');
  });

  it('stops at 100 files and says so', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 120; i++) many[`many/f${String(i).padStart(3, '0')}.txt`] = 'x';
    writeTree(root, many);
    const result = await call(globTool, contextFor(root), { pattern: 'many/*.txt' });
    const body = text(result);
    expect(body.split('\n').filter((line) => line.startsWith('many/'))).toHaveLength(100);
    expect(body).toContain('Showing the 100 newest of 120 matching files');
  });

  it('refuses patterns that leave the folder', async () => {
    expect(text(await call(globTool, contextFor(root), { pattern: '../**/*' }))).toContain('contains ".."');
    expect(text(await call(globTool, contextFor(root), { pattern: '/etc/*' }))).toContain('is absolute');
  });
});
