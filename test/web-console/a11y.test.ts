// Every page of the console (and the HTML report) checked by axe-core inside Chromium: no serious or critical
// violation. Then the keyboard alone: Tab to the main actions of a task page and a session page and use them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumForSuite, openConsole, type Console, type Task } from './browser-setup.js';
import { murmur, screenshotPath } from './helpers.js';
import { seriousViolations } from './axe.js';
import { runVerifiedSwarm, VERIFY_SCRIPT } from './verified-swarm.js';

const available = chromiumForSuite();
let con: Console;
let sessionId: string;
let task: Task;

/** Presses Tab until the focused element matches `selector` (at most `max` presses); fails if it never does. */
async function tabTo(page: Page, selector: string, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

describe.skipIf(!available)('accessibility: axe-core on every page, and the keyboard', () => {
  beforeAll(async () => {
    con = await openConsole(VERIFY_SCRIPT, {}, ['--no-scheduler']);
    sessionId = await runVerifiedSwarm(con);
    const r = await con.cli(['schedule', 'add', '--cron', '0 9 * * 1', '--title', 'Weekly audit', '--prompt', 'Audit']);
    expect(r.exitCode, r.stderr).toBe(0);
    task = (JSON.parse((await con.cli(['schedule', 'list', '--json'])).stdout) as Task[])[0]!;
  }, 90_000);
  afterAll(async () => {
    await con?.close();
  });

  it('finds no serious or critical violation on any page', async () => {
    const { page, served } = con;
    const pages = [
      '/tasks',
      '/tasks?status=paused',
      '/tasks/new',
      `/tasks/${task.id}?tab=settings`,
      `/tasks/${task.id}?tab=history`,
      '/sessions',
      `/sessions/${sessionId}`,
      `/sessions/${sessionId}/agents/a-1`,
      '/sessions/no-such-session',
      '/runs/new',
      '/swarms/new',
    ];
    const found: string[] = [];
    for (const url of pages) {
      await page.goto(`${served.base}${url}`);
      if (url === `/sessions/${sessionId}`) await page.locator('canvas.timeline-canvas').waitFor();
      found.push(...(await seriousViolations(page)).map((v) => `${url}: ${v}`));
    }
    // Without the token: the page that says how to get the link.
    const stranger = await con.browser.newPage();
    await stranger.goto(`${served.base}/tasks`);
    found.push(...(await seriousViolations(stranger)).map((v) => `no token: ${v}`));
    await stranger.close();
    // The self-contained report.
    const report = await murmur(['report', sessionId, '--html'], con.workspace, con.env);
    expect(report.exitCode, String(report.stderr)).toBe(0);
    const reportPage = await con.browser.newPage();
    await reportPage.goto(`file://${String(report.stdout).trim()}`);
    await reportPage.locator('canvas.timeline-canvas').waitFor();
    found.push(...(await seriousViolations(reportPage)).map((v) => `report: ${v}`));
    await reportPage.close();
    expect(found).toEqual([]);
  }, 60_000);

  it('reaches and uses a task page’s actions with the keyboard alone', async () => {
    const { page, served } = con;
    await page.goto(`${served.base}/tasks`);
    await tabTo(page, `a.card[data-id="${task.id}"]`);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/tasks/${task.id}$`));
    await tabTo(page, '[data-action=pause]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-action=unpause]');
    expect((await con.show(task.id)).status).toBe('paused');
    await tabTo(page, '[data-action=unpause]');
    await page.keyboard.press('Space');
    await page.waitForSelector('[data-action=pause]');
    expect((await con.show(task.id)).status).toBe('active');
    await tabTo(page, '[data-action=run-now]');
    await page.keyboard.press('Enter');
    await page.waitForURL(/tab=history/);
    await expect.poll(() => page.locator('#history').innerText()).toContain('requested');
    await tabTo(page, 'a.tab[href$="tab=settings"]');
    await page.keyboard.press('Enter');
    await page.waitForURL(/tab=settings/);
    await tabTo(page, 'input[name=title]');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Weekly audit by keyboard');
    await tabTo(page, 'button[type=submit]', 120);
    await page.screenshot({ path: screenshotPath('keyboard-task-save'), fullPage: false });
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await con.show(task.id)).title).toBe('Weekly audit by keyboard');
  }, 60_000);

  it('reaches and uses a session page’s timeline and tree with the keyboard alone', async () => {
    const { page, served } = con;
    await page.goto(`${served.base}/sessions/${sessionId}`);
    await page.locator('canvas.timeline-canvas').waitFor();
    await tabTo(page, 'button[data-zoom=in]');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('canvas.timeline-canvas').getAttribute('data-zoom')).toBe('2.00');
    await tabTo(page, 'button[data-zoom=fit]');
    await page.keyboard.press('Space');
    await tabTo(page, '.tl-scroll');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const tip = page.locator('.tl-tip');
    await expect.poll(() => tip.innerText()).toContain('f1.ts');
    expect(await page.locator('.swarm [aria-live]').innerText()).toMatch(/^f1\.ts: completed/);
    await page.screenshot({ path: screenshotPath('keyboard-timeline'), fullPage: false });
    const agent = /agent: (a-\d+)/.exec(await tip.innerText())![1]!;
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/agents/${agent}$`));
    await page.goBack();
    await page.locator('canvas.timeline-canvas').waitFor();
    // The agent tree: open the swarm's items, then follow an agent's link to its transcript.
    await tabTo(page, '#tree summary');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#tree details[open] li');
    await tabTo(page, '#tree a[href*="/agents/"]');
    const href = (await page.evaluate("document.activeElement.getAttribute('href')")) as string;
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === href);
  }, 60_000);
});
