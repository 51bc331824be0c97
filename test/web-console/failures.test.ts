// Failures explained and items found, in Chromium: a real `murmur swarm` whose scripted model fails four of its 13
// items (two call a tool with bad arguments and then have no turn left, two match no script entry). The session
// page is opened while the swarm runs with a filter in its address; the filter holds through the live updates,
// lists exactly the failed items with their reasons and counts, combines with a search by label, survives a
// reload, the hover card says why, and a failed agent's transcript starts with its reason and last tool error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumForSuite, openConsole, type Console } from './browser-setup.js';
import { screenshotPath } from './helpers.js';

const available = chromiumForSuite();
const SLOW = 'slow-1';
const OK = Array.from({ length: 8 }, (_, i) => `ok-${i + 1}`);
const BAD = ['bad-1', 'bad-2'];
const LOST = ['lost-1', 'LOST-2'];
const ITEMS = [SLOW, OK[0]!, BAD[0]!, LOST[0]!, ...OK.slice(1, 5), BAD[1]!, LOST[1]!, ...OK.slice(5)];
const FAILED = [...BAD, ...LOST];
const SCRIPT = {
  latencyMs: 0,
  agents: [
    // Keeps the swarm running while the page opens and follows it.
    { match: { prompt: 'Check (slow-\\S+)' }, turns: [{ latencyMs: 8000, text: '$1 ok' }] },
    { match: { prompt: 'Check (ok-\\S+)' }, turns: [{ latencyMs: 100, text: '$1 ok' }] },
    // A tool called with bad arguments, then no turn left: the agent fails, its last tool error is read's.
    { match: { prompt: 'Check (bad-\\S+)' }, turns: [{ toolCalls: [{ name: 'read', arguments: { nope: 1 } }] }] },
  ],
};

let con: Console;
let id: string;

const rows = (page: Page) => page.locator('.items-list tbody tr');
const rowItems = (page: Page) => page.locator('.items-list tbody td.item').allInnerTexts();
const button = (page: Page, state: string) => page.locator(`.if-state[data-state="${state}"]`);
const shown = (page: Page) => page.locator('canvas.timeline-canvas').getAttribute('data-shown');

describe.skipIf(!available)('failed items explained and found, in Chromium', () => {
  beforeAll(async () => {
    con = await openConsole(SCRIPT, {}, ['--no-scheduler']);
  }, 60_000);
  afterAll(async () => {
    await con?.close();
  });

  it('a filter in the address holds while the live swarm updates the page, and lists exactly the failed items with their reasons', async () => {
    const { page, served } = con;
    const run = con.cli(['swarm', '--template', 'Check {{item}}', '--items', ...ITEMS, '--no-dashboard', '--json']);
    // A busy machine can take over a second to start the swarm's session (poll's default wait).
    await expect
      .poll(
        async () => {
          const list = (await (await page.request.get(`${served.base}/api/sessions`)).json()) as { id: string }[];
          return list[0]?.id;
        },
        { timeout: 15_000 },
      )
      .toBeTruthy();
    id = ((await (await page.request.get(`${served.base}/api/sessions`)).json()) as { id: string }[])[0]!.id;
    await page.goto(`${served.base}/sessions/${id}?state=failed`);
    expect(await page.locator('#status').innerText()).toBe('running');
    const versionAtLoad = Number(await page.locator('body').getAttribute('data-version'));
    const done = await run;
    expect(done.exitCode).toBe(1);
    await expect.poll(() => page.locator('#status').innerText(), { timeout: 30_000 }).toBe('failed');
    // Re-rendered by the live updates, the filter still on.
    expect(Number(await page.locator('body').getAttribute('data-version'))).toBeGreaterThan(versionAtLoad);
    expect(await button(page, 'failed').getAttribute('aria-pressed')).toBe('true');
    expect(await button(page, 'all').getAttribute('aria-pressed')).toBe('false');
    await expect
      .poll(() => rowItems(page))
      .toEqual(
        FAILED.map((x) => ITEMS.indexOf(x))
          .sort((a, b) => a - b)
          .map((i) => ITEMS[i]),
      );
    await expect.poll(() => shown(page)).toBe('4');
    expect(await button(page, 'failed').innerText()).toMatch(/^failed\s*4$/);
    expect(await button(page, 'completed').innerText()).toMatch(/^completed\s*9$/);
    expect(await button(page, 'all').innerText()).toMatch(/^all\s*13$/);
    // Only the states present (and "all") are offered.
    const offered = await Promise.all(
      (await page.locator('.if-state:not([hidden])').all()).map((b) => b.getAttribute('data-state')),
    );
    expect(offered).toEqual(['all', 'completed', 'failed']);
    expect(await page.locator('.if-count').innerText()).toBe('4 of 13 items failed');
    for (const item of BAD)
      expect(await rows(page).filter({ hasText: item }).locator('td.reason').innerText()).toMatch(
        new RegExp(`has no turn 2 in its script.*Check ${item}`),
      );
    for (const item of LOST)
      expect(await rows(page).filter({ hasText: item }).locator('td.reason').innerText()).toMatch(
        new RegExp(`no script entry matches.*Check ${item}`),
      );
    // The session ended: each failed row offers a retry of that item.
    const retry = page.locator('button.retry-item');
    expect(await retry.count()).toBe(4);
    expect(await retry.first().getAttribute('data-swarm')).toBe('s-1');
    expect(await Promise.all((await retry.all()).map((b) => b.getAttribute('data-item')))).toEqual(
      await rowItems(page),
    );
    await page.screenshot({ path: screenshotPath('items-failed-filter'), fullPage: true });
  }, 60_000);

  it('the hover card of a failed bar says why it failed', async () => {
    const { page } = con;
    const scroll = page.locator('.tl-scroll').first();
    const canvas = page.locator('canvas.timeline-canvas').first();
    const box = (await scroll.boundingBox())!;
    const [top, row, label] = await Promise.all(
      ['top', 'row', 'label-width'].map(async (k) => Number(await canvas.getAttribute(`data-${k}`))),
    );
    // Row 1 of the filtered timeline is the second failed item.
    await page.mouse.move(box.x + label + 30, box.y + top + row + row / 2);
    const tip = page.locator('.tl-tip').first();
    await expect.poll(() => tip.isVisible()).toBe(true);
    const second = (await rowItems(page))[1]!;
    expect(await tip.innerText()).toContain(second);
    expect(await tip.innerText()).toMatch(/state: failed\s+reason: scripted model: .*Check /);
    await page.screenshot({ path: screenshotPath('items-failed-hover'), fullPage: false });
    await page.mouse.move(5, 5);
  });

  it('a search by label narrows the list and the timeline, combines with the state, and is kept in the address across a reload', async () => {
    const { page } = con;
    const search = page.getByLabel('Search items');
    await search.fill('-1');
    await expect.poll(() => rowItems(page)).toEqual(['bad-1', 'lost-1']);
    await expect.poll(() => shown(page)).toBe('2');
    expect(await page.locator('.if-count').innerText()).toBe('2 of 13 items failed matching “-1”');
    await expect.poll(() => page.locator('.if-live').innerText()).toBe('2 of 13 items failed matching “-1”');
    await page.getByRole('button', { name: /^all/ }).click();
    await expect.poll(() => rowItems(page)).toEqual([SLOW, 'ok-1', 'bad-1', 'lost-1']);
    expect(await page.locator('.if-count').innerText()).toBe('4 of 13 items matching “-1”');
    // Case does not matter.
    await search.fill('lost');
    await expect.poll(() => rowItems(page)).toEqual(LOST);
    await page.getByRole('button', { name: /^completed/ }).click();
    await expect.poll(() => page.locator('.items-list').innerText()).toContain('No item matches.');
    await expect.poll(() => shown(page)).toBe('0');
    await page.getByRole('button', { name: /^failed/ }).click();
    await search.fill('BAD');
    await expect.poll(() => rowItems(page)).toEqual(BAD);
    await expect.poll(() => page.evaluate('location.search')).toBe('?state=failed&q=BAD');
    await page.reload();
    await expect.poll(() => rowItems(page)).toEqual(BAD);
    expect(await page.getByLabel('Search items').inputValue()).toBe('BAD');
    expect(await button(page, 'failed').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => shown(page)).toBe('2');
    await page.screenshot({ path: screenshotPath('items-search-reloaded'), fullPage: true });
  });

  it('a failed agent’s transcript starts with its reason and its last tool error', async () => {
    const { page, served } = con;
    await page.goto(`${served.base}/sessions/${id}?state=failed&q=bad-1`);
    const link = rows(page).first().locator('a');
    const agent = await link.innerText();
    await link.click();
    await page.waitForURL(new RegExp(`/sessions/${id}/agents/${agent}$`));
    const failure = page.locator('.failure');
    expect(await failure.locator('h2').innerText()).toBe('Failed');
    expect(await failure.locator('.reason').innerText()).toMatch(/has no turn 2 in its script.*Check bad-1/);
    expect(await failure.locator('.tool-error-head').innerText()).toBe('Last tool error, from read:');
    expect(await failure.locator('.tool-error').innerText()).toMatch(/Invalid arguments for tool "read": \/path/);
    // At the top: before the transcript's first message.
    const [f, first] = await Promise.all([failure.boundingBox(), page.locator('.message').first().boundingBox()]);
    expect(f!.y).toBeLessThan(first!.y);
    await page.screenshot({ path: screenshotPath('transcript-failed'), fullPage: true });
    // An agent that matched no script: its reason, and no tool error.
    await page.goto(`${served.base}/sessions/${id}?q=lost-1`);
    const lost = await rows(page).first().locator('a').innerText();
    await page.goto(`${served.base}/sessions/${id}/agents/${lost}`);
    expect(await page.locator('.failure .reason').innerText()).toMatch(/no script entry matches agent .*Check lost-1/);
    expect(await page.locator('.failure .tool-error').count()).toBe(0);
    // A completed agent's page has no such section.
    await page.goto(`${served.base}/sessions/${id}?q=ok-1`);
    await rows(page).first().locator('a').click();
    await page.waitForURL(/\/agents\//);
    expect(await page.locator('.failure').count()).toBe(0);
  });
});
