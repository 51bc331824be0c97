// glob and the JavaScript grep fallback never list or enter a folder outside the folder searched, whatever the
// pattern text looks like (brace expansion, "." segments), and a failing folder listing is an error, not a crash.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globTool } from '../../tools/workspace-tools.js';
import { grepWithJavaScript } from '../../tools/fs/grep-js.js';
import { IgnoreWalker, walkFiles } from '../../tools/fs/ignore-walk.js';
import type { GrepQuery } from '../../tools/fs/grep-query.js';
import { call, contextFor, removeDir, tempDir, text, writeTree } from './helpers.js';

let parent: string;
let root: string;

beforeAll(async () => {
  parent = await tempDir('murmur-parent-');
  root = path.join(parent, 'ws');
  await mkdir(root);
  // A dotfile next to the workspace is what made the sensitive-file check throw inside the crawl.
  writeTree(parent, {
    'outside-secret.txt': 'TOKEN outside\n',
    '.npmrc': 'TOKEN npmrc\n',
    'sibling/inner.txt': 'TOKEN sibling\n',
  });
  writeTree(root, { 'inside.txt': 'TOKEN inside\n', 'src/a.ts': 'TOKEN a\n' });
});

afterAll(async () => {
  await removeDir(parent);
});

const ESCAPING_PATTERNS = [
  '..{/,}*',
  '{..,src}/*',
  '..{/,/sibling/}*',
  './../*',
  'src/./../../*',
  '{.,..}/**/*',
  '..?(/)*',
];

describe('glob stays inside the folder it searches', () => {
  for (const pattern of ESCAPING_PATTERNS) {
    it(`never lists a file outside the workspace for ${JSON.stringify(pattern)}`, async () => {
      const result = await call(globTool, contextFor(root), { pattern });
      expect(text(result)).not.toMatch(/outside-secret\.txt|\.npmrc|inner\.txt/);
    });
  }

  it('says so when a pattern reaches outside the folder', async () => {
    const result = await call(globTool, contextFor(root), { pattern: '..{/,}*' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('outside');
  });

  it('stays inside a sub-folder given as path', async () => {
    const result = await call(globTool, contextFor(root), { pattern: '..{/,}*', path: 'src' });
    expect(text(result)).not.toContain('inside.txt');
  });
});

describe('the JavaScript grep fallback stays inside the folder it searches', () => {
  const query = (glob: string, target = ''): GrepQuery => ({
    pattern: 'TOKEN',
    base: root,
    target,
    targetIsFile: false,
    mode: 'files',
    ignoreCase: false,
    before: 0,
    after: 0,
    multiline: false,
    includeIgnored: true,
    glob,
  });
  for (const glob of ['..{/,}*', '../*', '{..,src}/*']) {
    it(`never searches a file outside for the glob ${JSON.stringify(glob)}`, async () => {
      const outcome = await grepWithJavaScript(query(glob));
      const files = outcome.ok ? outcome.files.map((hit) => hit.path) : [];
      expect(files.join('\n')).not.toMatch(/outside-secret\.txt|\.npmrc|inner\.txt|\.\./);
    });
  }
});

describe('a listing that fails inside the crawl', () => {
  // A search root outside the base breaks the walker's own contract; the sensitive-file check then throws on
  // the "../" path. That must come back as an error, not escape the fs callback and end the process.
  it('rejects the walk with the error instead of throwing from the fs callback', async () => {
    await expect(walkFiles({ base: root, searchRoot: parent, patterns: ['*'], includeIgnored: false })).rejects.toThrow(
      /relative/,
    );
  });

  it('hands the error to the readdir callback', async () => {
    const walker = new IgnoreWalker(root, false);
    const readdir = walker.fsAdapter(parent).readdir as unknown as (
      dir: string,
      options: unknown,
      callback: (error: Error | null, entries: unknown[]) => void,
    ) => void;
    const outcome = await new Promise<{ error: Error | null; entries: unknown[] }>((resolve) =>
      readdir(`${parent}/`, {}, (error, entries) => resolve({ error, entries })),
    );
    expect(outcome.error?.message).toMatch(/relative/);
    expect(outcome.entries).toEqual([]);
    expect(walker.failure).toBe(outcome.error);
  });

  it('never reads a folder outside the one it is confined to', async () => {
    const walker = new IgnoreWalker(root, false);
    const readdir = walker.fsAdapter(root).readdir as unknown as (
      dir: string,
      options: unknown,
      callback: (error: Error | null, entries: unknown[]) => void,
    ) => void;
    const outcome = await new Promise<{ error: Error | null; entries: unknown[] }>((resolve) =>
      readdir(`${parent}/`, {}, (error, entries) => resolve({ error, entries })),
    );
    expect(outcome).toEqual({ error: null, entries: [] });
    expect(walker.refused).toEqual([parent]);
  });
});
