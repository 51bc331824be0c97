// The library's `sandbox` option: agents' bash under bubblewrap as with --sandbox (a write outside the workspace is
// refused), saved with the run's settings (which a resume reads), checked against murmur.toml's
// schema, and a sandbox that cannot work here throws MurmurOptionsError naming `sandbox` before any run starts.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMurmur, MurmurOptionsError } from '../../api/index.js';
import { scriptedModel } from '../../api/testing.js';
import { ROOT } from '../murmur-bin.js';
import { removeDir, tempDir } from '../swarm/helpers.js';
import { bwrapAvailable, pathWithout } from '../sandbox/helpers.js';

const available = bwrapAvailable();
let dir: string;
let outside: string;
beforeEach(async () => {
  dir = await tempDir('murmur-api-sandbox-');
  mkdirSync(path.join(ROOT, 'test-output'), { recursive: true });
  outside = mkdtempSync(path.join(ROOT, 'test-output', 'api-sandbox-outside-'));
});
afterEach(async () => {
  await removeDir(dir);
  rmSync(outside, { recursive: true, force: true });
});

const bashThen = (command: string) =>
  scriptedModel({
    agents: [{ turns: [{ toolCalls: [{ name: 'bash', arguments: { command } }] }, { text: 'done' }] }],
  });

describe.skipIf(!available)('createMurmur({ sandbox })', () => {
  it("runs agents' bash in the sandbox and saves it with the run", async () => {
    const command = `touch ${outside}/x 2>/dev/null && echo outside=written > probe.txt || echo outside=refused > probe.txt`;
    const murmur = await createMurmur({ cwd: dir, model: bashThen(command), permissionMode: 'yolo', sandbox: true });
    const report = await murmur.run('probe');
    await murmur.close();
    expect(report.status).toBe('completed');
    expect(readFileSync(path.join(dir, 'probe.txt'), 'utf8')).toBe('outside=refused\n');
    expect(existsSync(path.join(outside, 'x'))).toBe(false);
    const [id] = readdirSync(path.join(dir, '.murmur', 'sessions'));
    const state = JSON.parse(readFileSync(path.join(dir, '.murmur', 'sessions', id!, 'state.json'), 'utf8'));
    expect(state.settings).toMatchObject({ sandbox: true });
  });
});

// No bwrap needed: a bad key, and a PATH without bwrap, hold on any machine.
describe('createMurmur({ sandbox }) refusals', () => {
  it('a bad key is named; a sandbox that cannot work throws MurmurOptionsError naming sandbox', async () => {
    const bad = await createMurmur({ cwd: dir, model: bashThen('true'), sandbox: { netwrk: true } as never }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(bad).toBeInstanceOf(MurmurOptionsError);
    expect((bad as Error).message).toContain('netwrk');

    const env = { ...process.env, PATH: pathWithout(dir) };
    const murmur = await createMurmur({ cwd: dir, model: bashThen('true'), sandbox: { network: true }, env });
    const error = await murmur.run('go').then(
      () => undefined,
      (e: unknown) => e,
    );
    await murmur.close();
    expect(error).toBeInstanceOf(MurmurOptionsError);
    expect((error as MurmurOptionsError).option).toBe('sandbox');
    expect((error as Error).message).toContain('install the package bubblewrap');
  });
});
