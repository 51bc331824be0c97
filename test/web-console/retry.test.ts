// Retrying failed items from the console, in Chromium (the done-when of issue 33's "find and act on items"): a real
// `murmur swarm` of 50 items whose scripted model fails 5 of them on their first attempt only. The session page's
// "failed" filter lists exactly those 5 with their reasons; "Retry failed (5)" runs them again (a detached
// `murmur resume ID --retry-failed`), the page follows the session until it completed, and `murmur report` shows
// both attempts of each. Stop asks first: Cancel keeps the session running, Confirm stops it.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumForSuite, openConsole, type Console } from './browser-setup.js';
import { screenshotPath } from './helpers.js';
import { seriousViolations } from './axe.js';

const available = chromiumForSuite();
const FLAKY = [4, 13, 22, 37, 49].map((n) => `flaky-${n}`);
const ITEMS = Array.from({ length: 50 }, (_, i) =>
  FLAKY.includes(`flaky-${i + 1}`) ? `flaky-${i + 1}` : `ok-${i + 1}`,
);
const SCRIPT = {
  latencyMs: 0,
  agents: [
    {
      match: { prompt: 'Check (flaky-\\S+)' },
      turns: [{ fail: '$1 broke on its first try', attempts: 1, latencyMs: 300, text: '$1 fixed' }],
    },
    { match: { prompt: 'Check (ok-\\S+)' }, turns: [{ latencyMs: 20, text: '$1 ok' }] },
    // Keeps a session running while Stop is tried.
    { match: { prompt: 'Wait (\\S+)' }, turns: [{ latencyMs: 30_000, text: '$1 waited' }] },
  ],
};

let con: Console;
const rowItems = (page: Page) => page.locator('.items-list tbody td.item').allInnerTexts();
const rowOf = (page: Page, item: string) =>
  page.locator('.items-list tbody tr').filter({ has: page.locator('td.item', { hasText: new RegExp(`^${item}$`) }) });
const control = async (page: Page, base: string, id: string) =>
  (await (await page.request.get(`${base}/api/sessions/${id}/control`)).json()) as { running: boolean; status: string };

describe.skipIf(!available)('retrying failed items and stopping with a confirmation, in Chromium', () => {
  beforeAll(async () => {
    con = await openConsole(SCRIPT, {}, ['--no-scheduler']);
  }, 60_000);
  afterAll(async () => {
    await con?.close();
  });

  it('the failed filter lists the 5 failures with their reasons; Retry failed (5) completes them; the report keeps both attempts', async () => {
    const { page, served } = con;
    const run = await con.cli([
      'swarm',
      '--template',
      'Check {{item}}',
      '--items',
      ...ITEMS,
      '--no-dashboard',
      '--json',
    ]);
    expect(run.exitCode).toBe(1);
    const id = (JSON.parse(run.stdout) as { sessionId: string }).sessionId;

    await page.goto(`${served.base}/sessions/${id}?state=failed`);
    expect(await page.locator('#status').innerText()).toBe('failed');
    await expect.poll(() => rowItems(page)).toEqual(FLAKY);
    for (const item of FLAKY)
      expect(await rowOf(page, item).locator('td.reason').innerText()).toBe(`${item} broke on its first try`);
    const retry = page.locator('#retry');
    await expect.poll(() => retry.innerText()).toBe('Retry failed (5)');
    // The console agrees on what could run again.
    const offered = (await (await page.request.get(`${served.base}/api/sessions/${id}/retry`)).json()) as {
      items: { item: string; attempt: number }[];
    };
    expect(offered.items.map((i) => [i.item, i.attempt])).toEqual(FLAKY.map((item) => [item, 1]));
    await page.screenshot({ path: screenshotPath('retry-before'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    await Promise.all([page.waitForEvent('load'), retry.click()]);
    // The reloaded page follows the retry live until the session completed.
    await expect.poll(() => page.locator('#status').innerText(), { timeout: 30_000 }).toBe('completed');
    await expect.poll(async () => (await control(page, served.base, id)).running, { timeout: 10_000 }).toBe(false);
    await expect.poll(() => page.locator('#retry').count()).toBe(0);
    // Each retried row says how its first attempt ended.
    await page.goto(`${served.base}/sessions/${id}?q=flaky`);
    await expect.poll(() => rowItems(page)).toEqual(FLAKY);
    for (const item of FLAKY) {
      const row = rowOf(page, item);
      expect(await row.locator('.state').innerText()).toBe('completed');
      expect(await row.locator('.earlier').innerText()).toBe(`attempt 1 failed: ${item} broke on its first try`);
    }
    // The agent tree counts the 50 items once, and the 55 agents (a second one for each retried item) apart.
    expect(await page.locator('#tree details[data-group^="swarm:"] > summary').innerText()).toBe('50 items, 55 agents');
    await page.screenshot({ path: screenshotPath('retry-after'), fullPage: true });

    // The self-contained HTML report says the same under each retried row.
    const html = path.join(con.dir, 'retried.html');
    expect((await con.cli(['report', id, '--html', '-o', html])).exitCode).toBe(0);
    await page.goto(`file://${html}?q=flaky`);
    await expect
      .poll(() => page.locator('.items-list .earlier').allInnerTexts())
      .toEqual(FLAKY.map((item) => `attempt 1 failed: ${item} broke on its first try`));
    await page.screenshot({ path: screenshotPath('retry-report-html'), fullPage: true });

    const report = await con.cli(['report', id]);
    expect(report.exitCode).toBe(0);
    expect(report.stdout).toContain('<summary>completed: 50</summary>');
    for (const item of FLAKY) {
      expect(report.stdout).toMatch(
        new RegExp(`item="${item}" outcome="completed" rounds="0" attempt="2">${item} fixed<`),
      );
      expect(report.stdout).toMatch(
        new RegExp(
          `<earlier_attempt item="${item}" attempt="1" outcome="failed" agent_id="a-\\d+" reason="${item} broke on its first try"/>`,
        ),
      );
    }
  }, 120_000);

  it('a retry while the session runs is refused in words; unknown items are named', async () => {
    const { page, served } = con;
    const list = (await (await page.request.get(`${served.base}/api/sessions`)).json()) as { id: string }[];
    const id = list[0]!.id;
    const post = (body: unknown) =>
      page.request.post(`${served.base}/api/sessions/${id}/retry`, { data: body, headers: { origin: served.base } });
    const unknown = await post({ items: ['nope'] });
    expect(unknown.status()).toBe(400);
    expect(((await unknown.json()) as { error: string }).error).toBe(
      `session ${id} has no item "nope"; its items: "${ITEMS.slice(0, 5).join('", "')}" and 45 more`,
    );
    const wrong = await post({ failed: 'yes' });
    expect(wrong.status()).toBe(400);
    expect(((await wrong.json()) as { error: string }).error).toBe(
      'failed must be true (retry every failed item) or absent',
    );
    // The console's gates hold: no token, or the cookie from another origin, is refused before the route.
    const forged = await fetch(`${served.base}/api/sessions/${id}/retry`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ failed: true }),
    });
    expect(forged.status).toBe(401);
    const otherOrigin = await page.request.post(`${served.base}/api/sessions/${id}/retry`, {
      data: { failed: true },
      headers: { origin: 'http://127.0.0.1:1' },
    });
    expect(otherOrigin.status()).toBe(403);
    const nothing = await post({ failed: true });
    expect(nothing.status()).toBe(400);
    expect(((await nothing.json()) as { error: string }).error).toContain('nothing to retry');
  });

  it("a row's own Retry runs that item alone again (by label); the other failed item stays failed", async () => {
    const { page, served } = con;
    const items = ['flaky-1', 'ok-a', 'flaky-2'];
    const run = await con.cli([
      'swarm',
      '--template',
      'Check {{item}}',
      '--items',
      ...items,
      '--no-dashboard',
      '--json',
    ]);
    const id = (JSON.parse(run.stdout) as { sessionId: string }).sessionId;
    await page.goto(`${served.base}/sessions/${id}?state=failed`);
    await expect.poll(() => rowItems(page)).toEqual(['flaky-1', 'flaky-2']);
    await expect.poll(() => page.locator('#retry').innerText()).toBe('Retry failed (2)');
    await Promise.all([page.waitForEvent('load'), rowOf(page, 'flaky-1').locator('button.retry-item').click()]);
    await expect.poll(() => page.locator('#status').innerText(), { timeout: 30_000 }).toBe('failed');
    await expect.poll(async () => (await control(page, served.base, id)).running, { timeout: 10_000 }).toBe(false);
    await page.reload();
    await expect.poll(() => rowItems(page)).toEqual(['flaky-2']);
    await expect.poll(() => page.locator('#retry').innerText()).toBe('Retry failed (1)');
    const report = JSON.parse((await con.cli(['report', id, '--json'])).stdout) as {
      items: { item: string; outcome: string; attempt?: number }[];
    };
    expect(report.items.map((r) => [r.item, r.outcome, r.attempt])).toEqual([
      ['flaky-1', 'completed', 2],
      ['ok-a', 'completed', undefined],
      ['flaky-2', 'failed', undefined],
    ]);
  }, 60_000);

  it('Stop asks first, naming what will stop: Cancel keeps the session running, Confirm stops it', async () => {
    const { page, served } = con;
    const waiting = ['w-1', 'w-2', 'w-3', 'w-4'];
    const run = con.cli([
      'swarm',
      '--template',
      'Wait {{item}}',
      '--items',
      ...waiting,
      '--max-concurrency',
      '2',
      '--no-dashboard',
      '--json',
    ]);
    let id = '';
    await expect
      .poll(
        async () => {
          const list = (await (await page.request.get(`${served.base}/api/sessions`)).json()) as {
            id: string;
            status: string;
          }[];
          id = list.find((s) => s.status === 'running')?.id ?? '';
          return id;
        },
        { timeout: 20_000 },
      )
      .not.toBe('');
    await page.goto(`${served.base}/sessions/${id}`);
    const stop = page.locator('#session-actions button[data-action=stop]');
    await expect.poll(() => stop.isEnabled()).toBe(true);
    // A retry is refused while it runs.
    const refused = await page.request.post(`${served.base}/api/sessions/${id}/retry`, {
      data: { failed: true },
      headers: { origin: served.base },
    });
    expect(refused.status()).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toContain(`session ${id} is still running`);
    await expect.poll(() => page.locator('.if-state[data-state="launched"]').innerText()).toMatch(/2$/);

    await stop.click();
    const dialog = page.locator('dialog#stop-confirm');
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.locator('p').innerText()).toBe(
      `Stop session ${id}? It ends its work now (running agents: 2, queued items: 2); you can resume it later.`,
    );
    await page.screenshot({ path: screenshotPath('stop-confirm'), fullPage: false });
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await new Promise((r) => setTimeout(r, 700));
    expect((await control(page, served.base, id)).running).toBe(true);
    expect(await page.locator('#status').innerText()).toBe('running');

    await stop.click();
    await dialog.getByRole('button', { name: 'Confirm stop' }).click();
    const done = await run;
    expect(done.exitCode).not.toBe(0);
    await expect.poll(() => page.locator('#status').innerText(), { timeout: 20_000 }).toBe('aborted');
    // Stopped, its items can be retried from the page.
    await expect.poll(() => page.locator('#retry').innerText(), { timeout: 10_000 }).toBe('Retry failed (4)');
    await page.screenshot({ path: screenshotPath('stop-confirmed'), fullPage: false });
  }, 90_000);
});
