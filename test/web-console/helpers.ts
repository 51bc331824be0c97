// Shared fixtures for the web console suites: temp workspaces, a real `murmur serve` child process of the built
// command (package.json's bin; npm test builds it) and its link, and the Chromium of the Debian package `chromium`.
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { MURMUR_BIN } from '../murmur-bin.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const MAIN = MURMUR_BIN;
export const SCREENSHOTS = path.join(ROOT, 'test-output/web-console');
export const CHROMIUM = '/usr/bin/chromium';

export async function tempDir(prefix = 'murmur-console-'): Promise<string> {
  return realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** The environment of a child: none of the developer's MURMUR_* settings, HOME in the temp folder. */
export function childEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('MURMUR_')) env[k] = v;
  return { ...env, HOME: home, NO_COLOR: '1', ...extra };
}

export function murmur(args: string[], cwd: string, env: Record<string, string>) {
  return execa(process.execPath, [MAIN, ...args], { reject: false, cwd, env, extendEnv: false, stdin: 'ignore' });
}

export interface Served {
  child: ResultPromise;
  /** The link of the first stdout line. */
  link: string;
  base: string;
  token: string;
  stderr: () => string;
  stop(): Promise<void>;
}

/** Starts `murmur serve` and waits for its first stdout line. */
export async function startServe(args: string[], cwd: string, env: Record<string, string>): Promise<Served> {
  const child = execa(process.execPath, [MAIN, 'serve', ...args], {
    reject: false,
    cwd,
    env,
    extendEnv: false,
    stdin: 'ignore',
    buffer: false,
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const link = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`murmur serve printed no link: ${out} ${err}`)), 15_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0]!;
      if (out.includes('\n')) {
        clearTimeout(timer);
        const m = /^murmur console: (\S+)$/.exec(line);
        if (m) resolve(m[1]!);
        else reject(new Error(`unexpected first line: ${line}`));
      }
    });
    void child.then((r) => reject(new Error(`murmur serve exited ${r.exitCode}: ${err}`)));
  });
  const url = new URL(link);
  return {
    child,
    link,
    base: `${url.protocol}//${url.host}`,
    token: url.searchParams.get('token')!,
    stderr: () => err,
    async stop() {
      child.kill('SIGTERM');
      await child;
    },
  };
}

/** Whether the browser tests must run (CI, or MURMUR_REQUIRE_SYSTEM_DEPS), where a missing browser is a failure. */
export function browserRequired(): boolean {
  return Boolean(process.env.CI || process.env.MURMUR_REQUIRE_SYSTEM_DEPS);
}

export function hasChromium(): boolean {
  return existsSync(CHROMIUM);
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return path.join(SCREENSHOTS, `${name}.png`);
}
