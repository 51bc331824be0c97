// The built CLI in a child process, with a clean model environment, and temp workspaces: shared by the CLI tests.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { MURMUR_BIN } from '../murmur-bin.js';

/** package.json's bin: the bundled command users get. */
export const CLI = MURMUR_BIN;

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `murmur ARGS` with no model chosen by the environment (MURMUR_MODEL and API keys removed). */
export function murmur(
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<Ran> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    MURMUR_MODEL: undefined,
    OPENAI_API_KEY: undefined,
    ANTHROPIC_API_KEY: undefined,
    NO_COLOR: '1',
    ...options.env,
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: options.cwd, env: env as NodeJS.ProcessEnv, timeout: 20_000 },
      (error, stdout, stderr) => {
        done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** A temp folder holding these files (names may contain folders). */
export function workspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'murmur-cli-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}
