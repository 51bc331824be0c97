// Paths a read(…) deny rule keeps from the agents stay out of every search of the workspace: grep (ripgrep and
// the JavaScript fallback) and glob, even with include_ignored.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hiddenByDenyRules } from '../../orchestrator/permissions/hidden-paths.js';
import { grepWithJavaScript } from '../../tools/fs/grep-js.js';
import { globTool, grepTool } from '../../tools/workspace-tools.js';
import type { RuntimeTool } from '../../tools/contract.js';

function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'murmur-hidden-'));
  mkdirSync(join(root, 'secrets', 'prod'), { recursive: true });
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'secrets', 'prod', 'db.txt'), 'password=hunter2\n');
  writeFileSync(join(root, 'top-secret.txt'), 'password=root-only\n');
  writeFileSync(join(root, 'src', 'top-secret.txt'), 'password=nested\n');
  writeFileSync(join(root, 'src', 'app.ts'), 'const password = process.env.PW;\n');
  return root;
}

async function call(tool: RuntimeTool, root: string, hidden: readonly string[], args: object): Promise<string> {
  const ctx = {
    agentId: 'a-1',
    role: 'worker',
    cwd: root,
    callId: 'c',
    workspace: { root, extraRoots: [], allowSensitive: [], hidden },
  };
  const result = await tool.impl(ctx, args as never, new AbortController().signal, () => undefined);
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

describe('paths hidden by read deny rules', () => {
  const hidden = hiddenByDenyRules({
    permissions: { deny: ['read(secrets/**)', 'read(./top-secret.txt)', 'bash(curl*)', 'read(/etc/**)'] },
  });

  it('turns read(…) deny rules into gitignore patterns, anchoring ./ at the root', () => {
    expect(hidden).toEqual(['secrets/**', '/top-secret.txt']);
  });

  it('keeps them out of grep and glob, include_ignored or not', async () => {
    const root = workspace();
    for (const includeIgnored of [false, true]) {
      const found = await call(grepTool, root, hidden, { pattern: 'password', include_ignored: includeIgnored });
      expect(found).toContain('src/app.ts');
      expect(found).toContain('src/top-secret.txt');
      expect(found).not.toContain('secrets/prod');
      expect(found).not.toMatch(/^top-secret\.txt$/m);
      const listed = await call(globTool, root, hidden, { pattern: '**/*.txt', include_ignored: includeIgnored });
      expect(listed).toContain('src/top-secret.txt');
      expect(listed).not.toContain('db.txt');
      expect(listed).not.toMatch(/^top-secret\.txt$/m);
    }
  });

  it('keeps them out of the JavaScript fallback too', async () => {
    const root = workspace();
    const outcome = await grepWithJavaScript({
      pattern: 'password',
      base: root,
      target: '',
      targetIsFile: false,
      mode: 'files',
      ignoreCase: false,
      before: 0,
      after: 0,
      multiline: false,
      includeIgnored: true,
      hidden,
    });
    expect(outcome.ok && outcome.files.map((f) => f.path).sort()).toEqual(['src/app.ts', 'src/top-secret.txt']);
  });
});
