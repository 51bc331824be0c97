import { open, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMediaFileTool, readTool } from '../../tools/workspace-tools.js';
import { READ_MAX_BYTES, READ_RESULT_MAX_CHARS } from '../../tools/fs/read.js';
import { call, contextFor, removeDir, tempDir, text, writeTree } from './helpers.js';

const PNG_1x1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

let root: string;
let outside: string;

beforeAll(async () => {
  root = await tempDir();
  outside = await tempDir('murmur-outside-');
  const big = Array.from({ length: 200_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
  writeTree(root, {
    'small.txt': 'alpha\nbeta\r\ngamma',
    'big.log': big,
    'empty.txt': '',
    'image.png': PNG_1x1,
    'blob.bin': Buffer.from([1, 2, 0, 3, 4]),
    '.env': 'API_KEY=secret\n',
    'config/.env.local': 'TOKEN=secret\n',
    'wide.txt': `${'x'.repeat(300 * 1024)}\nsecond\n`,
  });
  writeTree(outside, { 'secret.txt': 'outside secret\n' });
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'escape.txt'));
  await symlink(outside, path.join(root, 'escape-dir'));
  await symlink(path.join(root, 'small.txt'), path.join(root, 'inside-link.txt'));
});

afterAll(async () => {
  await removeDir(root);
  await removeDir(outside);
});

describe('read', () => {
  it('shows numbered lines and strips CR', async () => {
    const result = await call(readTool, contextFor(root), { path: 'small.txt' });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe('     1\talpha\n     2\tbeta\n     3\tgamma');
  });

  it('reads a range and says how to read on', async () => {
    const result = await call(readTool, contextFor(root), { path: 'big.log', line_offset: 10, n_lines: 3 });
    expect(text(result)).toContain('    10\tline 10\n    11\tline 11\n    12\tline 12');
    expect(text(result)).toContain('Continue with line_offset=13');
  });

  it('stops at 1000 lines per call', async () => {
    const result = await call(readTool, contextFor(root), { path: 'big.log', n_lines: 5000 });
    const body = text(result);
    expect(body).toContain('  1000\tline 1000');
    expect(body).not.toContain('line 1001');
    expect(body).toContain('n_lines 5000 is above the limit of 1000');
    expect(body).toContain('line_offset=1001');
  });

  it('reads the end of a big file with a negative offset, numbered from the start', async () => {
    const result = await call(readTool, contextFor(root), { path: 'big.log', line_offset: -3 });
    expect(text(result)).toBe('199998\tline 199998\n199999\tline 199999\n200000\tline 200000');
  });

  it('pages backwards from the end with negative offsets and n_lines', async () => {
    const result = await call(readTool, contextFor(root), { path: 'big.log', line_offset: -5000, n_lines: 2 });
    const body = text(result);
    expect(body).toContain('195001\tline 195001\n195002\tline 195002');
    expect(body).toContain('Continue with line_offset=195003');
  });

  it('a negative offset larger than the file starts at line 1', async () => {
    const result = await call(readTool, contextFor(root), { path: 'small.txt', line_offset: -50 });
    expect(text(result)).toBe('     1\talpha\n     2\tbeta\n     3\tgamma');
  });

  it('tails a huge sparse file without reading all of it', async () => {
    // 4 GiB with a hole: reading it whole would exceed Node's buffer limit and take many seconds.
    const huge = path.join(root, 'huge.log');
    const header = Array.from({ length: 1000 }, (_, i) => `header ${i}`).join('\n') + '\n';
    await writeFile(huge, header);
    const handle = await open(huge, 'r+');
    const tailText = Array.from({ length: 100 }, (_, i) => `tail ${i + 1}`).join('\n') + '\n';
    await handle.write(Buffer.from(`\n${tailText}`), 0, undefined, 4 * 1024 ** 3);
    await handle.close();
    const started = process.memoryUsage().rss;
    const result = await call(readTool, contextFor(root), { path: 'huge.log', line_offset: -2 });
    expect(text(result)).toContain('    -2\ttail 99\n    -1\ttail 100');
    expect(text(result)).toContain('count back from the end');
    expect(process.memoryUsage().rss - started).toBeLessThan(200 * 1024 * 1024);
  });

  it('keeps a result within 100 KB and says the line is cut', async () => {
    const result = await call(readTool, contextFor(root), { path: 'wide.txt' });
    const body = text(result);
    expect(body.length).toBeLessThanOrEqual(READ_RESULT_MAX_CHARS);
    expect(body.length).toBeGreaterThan(READ_MAX_BYTES - 100);
    expect(body).toContain('is longer than 100 KB and is shown cut');
    expect(body).toContain('line_offset=2');
  });

  it('says an offset past the end is past the end', async () => {
    const result = await call(readTool, contextFor(root), { path: 'small.txt', line_offset: 10 });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('past the end of small.txt, which has 3 lines');
  });

  it('tells images to go to read_media_file and binaries apart', async () => {
    expect(text(await call(readTool, contextFor(root), { path: 'image.png' }))).toContain('use read_media_file');
    expect(text(await call(readTool, contextFor(root), { path: 'blob.bin' }))).toContain('is a binary file');
    expect(text(await call(readTool, contextFor(root), { path: 'empty.txt' }))).toBe('empty.txt is empty.');
  });

  it('refuses sensitive files unless configuration allows them', async () => {
    const refused = await call(readTool, contextFor(root), { path: 'config/.env.local' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('sensitive file');
    const allowed = await call(
      readTool,
      contextFor(root, { workspace: { root, extraRoots: [], allowSensitive: ['.env'] } }),
      { path: '.env' },
    );
    expect(text(allowed)).toBe('     1\tAPI_KEY=secret');
  });

  it('refuses paths outside the workspace and symlinks that lead out', async () => {
    const up = await call(readTool, contextFor(root), { path: '../x.txt' });
    expect(text(up)).toMatch(/resolves to .*outside the workspace/);
    const link = await call(readTool, contextFor(root), { path: 'escape.txt' });
    expect(link.isError).toBe(true);
    expect(text(link)).toContain('goes through a symlink');
    const viaDir = await call(readTool, contextFor(root), { path: 'escape-dir/secret.txt' });
    expect(text(viaDir)).toContain('goes through a symlink');
    const inside = await call(readTool, contextFor(root), { path: 'inside-link.txt' });
    expect(text(inside)).toContain('alpha');
  });

  it('allows extra roots from configuration', async () => {
    const ctx = contextFor(root, { workspace: { root, extraRoots: [outside], allowSensitive: [] } });
    expect(text(await call(readTool, ctx, { path: 'escape.txt' }))).toContain('outside secret');
    expect(text(await call(readTool, ctx, { path: path.join(outside, 'secret.txt') }))).toContain('outside secret');
  });

  it('records what it read in the agent ledger', async () => {
    const ctx = contextFor(root);
    await call(readTool, ctx, { path: 'small.txt' });
    expect(ctx.reads!.lastRead(path.join(root, 'small.txt'))).toMatchObject({ size: 17 });
  });

  it('accepts legacy argument names and quoted numbers', async () => {
    const result = await call(readTool, contextFor(root), { file_path: 'big.log', offset: '5', limit: '1' });
    expect(text(result)).toContain('     5\tline 5');
  });
});

describe('read_media_file', () => {
  it('returns an image block', async () => {
    const result = await call(readMediaFileTool, contextFor(root), { path: 'image.png' });
    expect(result.content[1]).toEqual({ type: 'image', mimeType: 'image/png', data: PNG_1x1.toString('base64') });
  });

  it('refuses files that are not media', async () => {
    const result = await call(readMediaFileTool, contextFor(root), { path: 'small.txt' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('not a supported image');
  });

  it('returns an error result for a path that is not a regular file', async () => {
    // A unix socket exists and resolves like a file, but cannot be read as one.
    const socketPath = path.join(root, 'camera.sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const result = await call(readMediaFileTool, contextFor(root), { path: 'camera.sock' });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('camera.sock is a socket, not a file');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
