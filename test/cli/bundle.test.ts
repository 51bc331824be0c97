// The bundled command (`npm run build` → packages/cli/dist/bundle/main.js, the command package's bin): it starts, runs a scripted
// task, and its crash traces name source files through the maps beside the chunks.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mapStack } from '../../cli/stack-map.js';
import { workspace } from './helpers.js';

const root = resolve(import.meta.dirname, '../..');
// The command's package (packages/cli): its bin, relative to it.
const commandDir = join(root, 'packages', 'cli');
const bin = (JSON.parse(readFileSync(join(commandDir, 'package.json'), 'utf8')) as { bin: { murmur: string } }).bin
  .murmur;

// npm test builds the bundle first (test/global-setup.ts refuses a stale one); rebuilding it here would pull it
// from under the other suites that spawn it at the same time.
const node = (args: string[], cwd = root) =>
  execFileSync(process.execPath, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MURMUR_MODEL: '', NO_COLOR: '1' },
  });

describe('the bundled murmur command', () => {
  it("is the package's bin, starts with a shebang, and prints help and the version", () => {
    expect(bin).toBe('dist/bundle/main.js');
    // The checkout's own manifest names the same file, for whoever starts `murmur` from a checkout by its bin.
    const checkout = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: { murmur: string } };
    expect(join(root, checkout.bin.murmur)).toBe(join(commandDir, bin));
    expect(readFileSync(join(commandDir, bin), 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    expect(node([join(commandDir, bin), '--help'])).toContain('murmur run');
    expect(node([join(commandDir, bin), '--version']).trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  // Checked on the bundle `npm test` builds first; the build writes every file anew (temp file + rename).
  it.skipIf(process.platform === 'win32')('is executable, so `npx murmur` in a checkout starts it', () => {
    expect((statSync(join(commandDir, bin)).mode & 0o111).toString(8)).toBe('111');
  });

  it('runs a one-turn task on the scripted model and lists its session', () => {
    const dir = workspace({
      's.json': JSON.stringify({ agents: [{ match: { role: 'main' }, turns: [{ text: 'bundled hello' }] }] }),
    });
    expect(node([join(commandDir, bin), 'run', '--no-dashboard', '--model', 'scripted:s.json', 'hi'], dir)).toBe(
      'bundled hello\n',
    );
    expect(node([join(commandDir, bin), 'sessions', '--json'], dir)).toContain('"status":"completed"');
  });
});

describe('stack traces from a bundle', () => {
  it('map minified frames back to the source file and line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'murmur-stack-'));
    writeFileSync(join(dir, 'thrower.ts'), 'export function explode(): never {\n  throw new Error("kaboom");\n}\n');
    writeFileSync(
      join(dir, 'entry.ts'),
      'import { explode } from "./thrower.js";\ntry { explode(); } catch (e) { process.stdout.write((e as Error).stack ?? ""); }\n',
    );
    const esbuild = await import('esbuild');
    await esbuild.build({
      entryPoints: [join(dir, 'entry.ts')],
      outfile: join(dir, 'out/entry.mjs'),
      bundle: true,
      minify: true,
      sourcemap: 'linked',
      format: 'esm',
      platform: 'node',
      logLevel: 'error',
    });
    const stack = node([join(dir, 'out/entry.mjs')], dir);
    expect(stack).not.toContain('thrower.ts');
    expect(mapStack(stack)).toContain(`${join(dir, 'thrower.ts')}:2:`);
  });

  it('name source files in every stack read once the command installed the mapping (an agent\'s "internal error" reason too)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'murmur-stack-'));
    writeFileSync(
      join(dir, 'thrower.ts'),
      'export function explode(): never {\n  throw new TypeError("e is not a constructor");\n}\n',
    );
    writeFileSync(
      join(dir, 'entry.ts'),
      `import { installStackMapping } from ${JSON.stringify(join(root, 'cli/stack-map.ts'))};\nimport { explode } from "./thrower.js";\ninstallStackMapping();\ntry { explode(); } catch (e) { process.stdout.write(\`internal error: \${(e as Error).stack}\`); }\n`,
    );
    const esbuild = await import('esbuild');
    await esbuild.build({
      entryPoints: [join(dir, 'entry.ts')],
      outfile: join(dir, 'out/entry.mjs'),
      bundle: true,
      minify: true,
      sourcemap: 'linked',
      sourcesContent: false,
      format: 'esm',
      platform: 'node',
      logLevel: 'error',
    });
    const reason = node([join(dir, 'out/entry.mjs')], dir);
    expect(reason).toMatch(/^internal error: TypeError: e is not a constructor\n/);
    expect(reason).toContain(`${join(dir, 'thrower.ts')}:2:`);
    expect(reason).not.toContain('entry.mjs:');
  });
});
