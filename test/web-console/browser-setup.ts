// What every browser suite of the console starts from: Chromium (Debian's package; a missing browser is a skip
// with a message, or a failure under CI / MURMUR_REQUIRE_SYSTEM_DEPS), a temp workspace, a real `murmur serve`
// and one page that has opened its link.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  browserRequired,
  CHROMIUM,
  childEnv,
  hasChromium,
  murmur,
  removeDir,
  startServe,
  tempDir,
  type Served,
} from './helpers.js';

/** Whether Chromium is here; throws when it must be and is not, warns when the suite is skipped. */
export function chromiumForSuite(): boolean {
  const available = hasChromium();
  if (!available && browserRequired())
    throw new Error(
      `the browser tests need Chromium at ${CHROMIUM}: install the Debian package "chromium" (apt-get install chromium)`,
    );
  if (!available)
    console.warn(
      `skipping the web console browser tests: no ${CHROMIUM}; install the Debian package "chromium" to run them`,
    );
  return available;
}

export interface Console {
  dir: string;
  workspace: string;
  env: Record<string, string>;
  served: Served;
  browser: Browser;
  page: Page;
  /** `murmur ARGS` in the workspace, with the console's environment. */
  cli(args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  /** `murmur schedule show ID --json`, which must succeed. */
  show(id: string): Promise<Task>;
  close(): Promise<void>;
}

export type Task = Record<string, unknown> & { id: string; title: string };

/** A workspace with a scripted model, `murmur serve --cwd` on it (extra flags after), and a page logged in. */
export async function openConsole(
  script: unknown,
  extraEnv: Record<string, string> = {},
  serveArgs: string[] = [],
): Promise<Console> {
  const dir = await tempDir();
  const workspace = path.join(dir, 'ws');
  mkdirSync(workspace);
  writeFileSync(path.join(dir, 'script.json'), JSON.stringify(script));
  const env = childEnv(dir, { MURMUR_MODEL: `scripted:${path.join(dir, 'script.json')}`, TZ: 'UTC', ...extraEnv });
  const served = await startServe(['--port', '0', '--cwd', workspace, ...serveArgs], workspace, env);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(15_000);
  await page.goto(served.link);
  const cli = async (args: string[]) => {
    const r = await murmur(args, workspace, env);
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  };
  return {
    dir,
    workspace,
    env,
    served,
    browser,
    page,
    cli,
    async show(id) {
      const r = await cli(['schedule', 'show', id, '--json']);
      if (r.exitCode !== 0) throw new Error(`murmur schedule show ${id} exited ${r.exitCode}: ${r.stderr}`);
      return JSON.parse(r.stdout) as Task;
    },
    async close() {
      await browser.close();
      await served.stop();
      await removeDir(dir);
    },
  };
}

/** One console for a describe block (`murmur serve --no-scheduler`: nothing fires while the suite works). */
export function consoleForSuite(script: unknown = { agents: [] }): () => Console {
  let con: Console | undefined;
  beforeAll(async () => {
    con = await openConsole(script, {}, ['--no-scheduler']);
  }, 60_000);
  afterAll(async () => {
    await con?.close();
  });
  return () => con!;
}

/** Types into a field as a person does: click it, select what is there, type over it (or delete it). */
export async function typeInto(page: Page, name: string, text: string): Promise<void> {
  await page.locator(`[name=${name}]`).click();
  await page.keyboard.press('Control+A');
  if (text === '') await page.keyboard.press('Backspace');
  else await page.keyboard.type(text);
}
