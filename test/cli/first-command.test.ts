// The README's first command, run as a person in a fresh checkout runs it once `npm ci` is done (npm test has built
// dist/ by now, as `npm ci` does through `prepare`): it is the checkout's own command (no npx, which installs the
// checkout into its cache first), its first line comes at once, it ends with its duration and token total, and the
// `git diff` it suggests shows the demo's own edits and nothing else.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** The command after `npm ci && ` on the first line of the README's first code block. */
function firstCommand(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = /```sh\n([^\n]*)\n/.exec(readme);
  const line = block?.[1] ?? '';
  const match = /^npm ci && (.+?)\s+#/.exec(line);
  if (!match) throw new Error(`the README's first command is not "npm ci && …  # …": ${JSON.stringify(line)}`);
  return match[1]!;
}

interface Ran {
  stdout: string;
  stderr: string;
  code: number | null;
  firstLineMs: number;
}

function runShell(command: string): Promise<Ran> {
  return new Promise((resolvePromise, reject) => {
    const started = Date.now();
    // npm's own noise off; no terminal, as in CI: the demo prints lines instead of drawing its dashboard.
    const child = spawn('sh', ['-c', command], {
      cwd: root,
      env: { ...process.env, MURMUR_MODEL: '', NO_COLOR: '1', npm_config_loglevel: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let firstLineMs = Number.NaN;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (Number.isNaN(firstLineMs) && stderr.includes('\n')) firstLineMs = Date.now() - started;
    });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ stdout, stderr, code, firstLineMs }));
  });
}

describe("the README's first command", () => {
  it('runs the checkout’s own demo at once, ends with its time and tokens, and its git diff shows only its edits', async () => {
    const command = firstCommand();
    expect(command).not.toMatch(/\bnpx\b/);
    const ran = await runShell(command);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr.split('\n')[0]).toMatch(/^murmur demo: /);
    // Generous: what is checked is that nothing is installed first (npx took ~30 s here).
    expect(ran.firstLineMs).toBeLessThan(15_000);
    expect(ran.stderr).toMatch(/Done in \d+\.\d s: 12 of 12 items completed, 12 verified · [\d.]+k? tokens/);
    const diff = /see the edits: cd (\S+) && git diff\)/.exec(ran.stderr);
    expect(diff, ran.stderr).not.toBeNull();
    const status = spawnSync('git', ['status', '--porcelain'], { cwd: diff![1], encoding: 'utf8' });
    const changed = status.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.slice(3));
    expect(changed).toHaveLength(12);
    expect(
      changed.every((f) => /^src\/[a-z]+\.js$/.test(f)),
      changed.join(', '),
    ).toBe(true);
  }, 120_000);
});
