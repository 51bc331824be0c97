// The console in a real browser: playwright-core driving the Chromium of the Debian package `chromium`, against
// a real `murmur serve` (with its scheduler) and real scripted runs and swarms. Screenshots of each page go to
// test-output/web-console/ for a reviewer. One browser for the whole file.
import { readFileSync, statSync, writeFileSync, mkdirSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { previewSchedule } from '../../scheduler/store.js';
import { chromiumForSuite } from './browser-setup.js';
import {
  CHROMIUM,
  childEnv,
  MAIN,
  murmur,
  removeDir,
  screenshotPath,
  startServe,
  tempDir,
  type Served,
} from './helpers.js';
import { execa } from 'execa';

const available = chromiumForSuite();

let dir: string;
let workspace: string;
let env: Record<string, string>;
let served: Served;
let browser: Browser;
let page: Page;
const SCRIPT = {
  latencyMs: 0,
  agents: [
    { match: { prompt: 'Live (\\S+)' }, turns: [{ latencyMs: 150, text: '$1 checked live' }] },
    { match: { prompt: 'Check (\\S+)' }, turns: [{ text: '$1 ok' }] },
    { match: { prompt: 'Audit' }, turns: [{ text: 'Audit done: no outdated packages' }] },
  ],
};

describe.skipIf(!available)('the web console in Chromium', () => {
  beforeAll(async () => {
    dir = await tempDir();
    workspace = path.join(dir, 'ws');
    mkdirSync(workspace);
    const script = path.join(dir, 'script.json');
    writeFileSync(script, JSON.stringify(SCRIPT));
    env = childEnv(dir, { MURMUR_MODEL: `scripted:${script}`, MURMUR_CRON_CHECK_MS: '200', TZ: 'UTC' });
    served = await startServe(['--port', '0', '--cwd', workspace], workspace, env);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(15_000);
    await page.goto(served.link);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await served?.stop();
    if (dir) await removeDir(dir);
  });

  it('creates a weekly task through the form: predicted timeline, then its card with rule · next run · run count', async () => {
    expect(new URL(page.url()).searchParams.get('token')).toBeNull();
    await page.goto(`${served.base}/tasks/new`);
    await page.fill('input[name=title]', 'Weekly dependency audit');
    await page.check('input[name=kind][value=weekly]');
    await page.selectOption('select[name=day]', '1');
    await page.fill('input[name=time]', '09:00');
    await page.selectOption('select[name=timezone]', 'UTC');
    await page.fill('textarea[name=prompt]', 'Audit the dependencies and list outdated packages');
    const items = page.locator('#predicted li');
    await expect
      .poll(async () => (await items.allInnerTexts()).join(' | '), { timeout: 10_000 })
      .toMatch(/theoretical last: \d{4}-\d\d-\d\d 09:00.*UTC.*next: .*09:00.*UTC.*then: .*09:00.*UTC/);
    expect(await items.count()).toBe(3);
    expect(await items.first().getAttribute('class')).toContain('theoretical');
    expect(
      Number(
        await items
          .first()
          .evaluate(
            (el) =>
              (globalThis as unknown as { getComputedStyle(e: unknown): { opacity: string } }).getComputedStyle(el)
                .opacity,
          ),
      ),
    ).toBeLessThan(1);
    await page.screenshot({ path: screenshotPath('new-task'), fullPage: true });

    await page.click('button[type=submit]');
    await page.waitForURL(/\/tasks$/);
    const next = previewSchedule({ cron: '0 9 * * 1', timezone: 'UTC' }, Date.now(), 1);
    if (!next.ok) throw new Error('preview failed');
    const when = `${next.value[0]!.slice(0, 10)} 09:00`;
    const card = page.locator('.card', { hasText: 'Weekly dependency audit' });
    await expect.poll(() => card.locator('.rule').innerText()).toBe(`at 09:00 on Monday (UTC) · next ${when} · 0 runs`);
    expect(await card.locator('.summary').innerText()).toBe('Audit the dependencies and list outdated packages');
    expect(await card.locator('button, .badge').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('tasks'), fullPage: true });
  });

  it('pauses the task, finds it under Paused (not Active), resumes it', async () => {
    await page.goto(`${served.base}/tasks`);
    await page.click('.card >> text=Weekly dependency audit');
    await page.waitForURL(/\/tasks\/st-/);
    await page.click('[data-action=pause]');
    await page.waitForSelector('[data-action=unpause]');
    await page.goto(`${served.base}/tasks`);
    await page.click('.filter[data-filter=paused]');
    await page.waitForURL(/status=paused/);
    expect(await page.locator('.card', { hasText: 'Weekly dependency audit' }).count()).toBe(1);
    await page.screenshot({ path: screenshotPath('tasks-paused'), fullPage: true });
    await page.click('.filter[data-filter=active]');
    await page.waitForURL(/status=active/);
    expect(await page.locator('.card', { hasText: 'Weekly dependency audit' }).count()).toBe(0);
    await page.goto(`${served.base}/tasks?status=paused`);
    await page.click('.card >> text=Weekly dependency audit');
    await page.click('[data-action=unpause]');
    await page.waitForSelector('[data-action=pause]');
    // The Settings tab is the creation form, pre-filled.
    expect(await page.inputValue('input[name=title]')).toBe('Weekly dependency audit');
    expect(await page.isChecked('input[name=kind][value=weekly]')).toBe(true);
    await page.screenshot({ path: screenshotPath('task-settings'), fullPage: true });
  });

  it('runs it now and shows the run in History with its trigger, state and session link', async () => {
    await page.goto(`${served.base}/tasks`);
    await page.click('.card >> text=Weekly dependency audit');
    await page.click('[data-action=run-now]');
    await page.waitForURL(/tab=history/);
    await expect
      .poll(
        async () => {
          await page.reload();
          const rows = page.locator('table.history tbody tr');
          return (await rows.count()) > 0 ? rows.first().innerText() : '';
        },
        { timeout: 25_000, interval: 500 },
      )
      .toMatch(/run now.*succeeded/s);
    const row = page.locator('table.history tbody tr').first();
    expect(await row.locator('.trigger').innerText()).toBe('run now');
    // A Run now stands for no fire time: no lateness, but how long it ran.
    expect(await row.locator('td').nth(3).innerText()).toBe('—');
    expect(await row.locator('td.duration').innerText()).toMatch(/^(under 1 s|\d+ s)$/);
    const link = row.locator('a[href^="/sessions/"]');
    expect(await link.count()).toBe(1);
    await page.screenshot({ path: screenshotPath('task-history'), fullPage: true });
    await link.click();
    await page.waitForSelector('#tree li');
    expect(await page.locator('#tree').innerText()).toContain('Audit done');
    await page.screenshot({ path: screenshotPath('session-run'), fullPage: true });
    await page.goto(`${served.base}/tasks`);
    expect(await page.locator('.card', { hasText: 'Weekly dependency audit' }).locator('.rule').innerText()).toMatch(
      / · 1 run$/,
    );
  }, 40_000);

  it('a live 1,000-item scripted swarm: its page updates while it runs and ends with 1,000 bars', async () => {
    const items = path.join(dir, 'items.txt');
    writeFileSync(items, Array.from({ length: 1000 }, (_, i) => `f${i}.ts`).join('\n'));
    const before = new Set(
      existsSync(path.join(workspace, '.murmur/sessions')) ? readdirSync(path.join(workspace, '.murmur/sessions')) : [],
    );
    const swarm = execa(
      process.execPath,
      [
        MAIN,
        'swarm',
        '--template',
        'Live {{item}}',
        '--items-file',
        items,
        '--max-concurrency',
        '100',
        '--no-dashboard',
        '--cwd',
        workspace,
      ],
      { reject: false, cwd: workspace, env, extendEnv: false, stdin: 'ignore' },
    );
    let id: string | undefined;
    await expect
      .poll(
        () => {
          const all = existsSync(path.join(workspace, '.murmur/sessions'))
            ? readdirSync(path.join(workspace, '.murmur/sessions'))
            : [];
          id = all.find(
            (s) => !before.has(s) && existsSync(path.join(workspace, '.murmur/sessions', s, 'events.jsonl')),
          );
          return id;
        },
        { timeout: 15_000, interval: 50 },
      )
      .toBeTruthy();
    await page.goto(`${served.base}/sessions/${id}`);
    const canvas = page.locator('canvas.timeline-canvas');
    await canvas.waitFor({ timeout: 10_000 });
    const firstVersion = Number(await page.evaluate('document.body.dataset.version'));
    const firstStatus = await page.locator('#status').innerText();
    await expect
      .poll(async () => Number(await page.evaluate('Number(document.body.dataset.version)')), { timeout: 20_000 })
      .toBeGreaterThan(firstVersion);
    await expect.poll(() => page.locator('#status').innerText(), { timeout: 30_000 }).toBe('completed');
    expect((await swarm).exitCode).toBe(0);
    expect(firstStatus).toBe('running');
    await expect.poll(() => canvas.getAttribute('data-bars')).toBe('1000');
    await expect.poll(() => canvas.getAttribute('data-items')).toBe('1000');
    expect(await page.locator('#swarms canvas').count()).toBe(1);
    await page.screenshot({ path: screenshotPath('session-swarm-1000'), fullPage: false });
    // The sessions list, newest first.
    await page.goto(`${served.base}/sessions`);
    expect(await page.locator('table.sessions tbody tr').first().innerText()).toContain(id!);
    await page.screenshot({ path: screenshotPath('sessions'), fullPage: true });

    // The self-contained report opens with networking off and shows the timeline.
    const report = await murmur(['report', id!, '--html', '--cwd', workspace], workspace, env);
    expect(report.exitCode).toBe(0);
    const file = report.stdout.trim();
    expect(statSync(file).size).toBeLessThan(2_000_000);
    expect(readFileSync(file, 'utf8')).not.toMatch(/(src|href)="(https?:)?\/\//);
    const offline = await browser.newContext({ offline: true });
    const requests: string[] = [];
    await offline.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      requests.push(url);
      return route.abort();
    });
    const reportPage = await offline.newPage();
    await reportPage.setViewportSize({ width: 1280, height: 900 });
    await reportPage.goto(`file://${file}`);
    const reportCanvas = reportPage.locator('canvas.timeline-canvas');
    await reportCanvas.waitFor();
    await expect.poll(() => reportCanvas.getAttribute('data-bars')).toBe('1000');
    expect(requests).toEqual([]);
    await reportPage.screenshot({ path: screenshotPath('report'), fullPage: false });
    await offline.close();
  }, 90_000);
});
