// A big swarm in Chromium (issue 31 item 4): a real `murmur swarm` of 6,000 items, three of which fail, shown from
// its timeline file in rows of 10 items. A person hovers a row for its mix of states, narrows to the failed rows,
// drills into one to see its items (the failure's reason, a transcript link), goes back to all the rows, and opens
// the self-contained `murmur report --html`, which shows the rows without a console behind it.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForSuite, openConsole, type Console } from './browser-setup.js';
import { screenshotPath } from './helpers.js';
import { hoverRow } from './timeline-rows.js';

const available = chromiumForSuite();
const COUNT = 6000;
const BAD = [1234, 3001, 5999];
const label = (n: number) => (BAD.includes(n) ? `bad-${n}` : `ok-${n}`);
const SCRIPT = {
  latencyMs: 0,
  agents: [
    { match: { prompt: 'Fix (bad-\\S+)' }, turns: [{ fail: '$1 would not compile' }] },
    { match: { prompt: 'Fix (ok-\\S+)' }, turns: [{ text: '$1 fixed' }] },
  ],
};

let con: Console;
let id: string;

describe.skipIf(!available)('a 6,000-item swarm in the console, by buckets, in Chromium', () => {
  beforeAll(async () => {
    con = await openConsole(SCRIPT, {}, ['--no-scheduler']);
    const items = path.join(con.dir, 'items.txt');
    writeFileSync(items, Array.from({ length: COUNT }, (_, i) => `${label(i + 1)}\n`).join(''));
    const run = await con.cli([
      'swarm',
      '--template',
      'Fix {{item}}',
      '--items-file',
      items,
      '--no-dashboard',
      '--json',
    ]);
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(1);
    id = (JSON.parse(run.stdout) as { sessionId: string }).sessionId;
  }, 180_000);
  afterAll(async () => {
    await con?.close();
  });

  it('shows 600 rows of 10 items from the timeline file, with each row’s mix of states', async () => {
    const { page, served } = con;
    const model = (await (await page.request.get(`${served.base}/api/sessions/${id}`)).json()) as {
      swarms: { items: string[]; buckets: { size: number; count: number }; counts: Record<string, number> }[];
    };
    expect(model.swarms[0]!.buckets).toMatchObject({ size: 10, count: COUNT });
    expect(model.swarms[0]!.items).toHaveLength(600);
    expect(model.swarms[0]!.counts).toEqual({ completed: COUNT - 3, failed: 3 });

    await page.goto(`${served.base}/sessions/${id}`);
    await expect.poll(() => page.locator('.swarm h2').first().textContent()).toContain('6,000 items in rows of 10');
    await expect.poll(() => page.locator('.if-count').textContent()).toBe('6,000 items');
    // The three failures are offered for a retry, counted from the timeline.
    await expect.poll(() => page.locator('#retry').textContent()).toBe('Retry failed (3)');
    // Row 123 holds items 1,231–1,240, bad-1234 among them.
    await page
      .locator('.tl-scroll')
      .first()
      .evaluate((el) => (el.scrollTop = 123 * 16));
    const tip = await hoverRow(page, 123);
    await expect.poll(() => tip.textContent()).toContain('items 1,231–1,240');
    expect(await tip.textContent()).toContain('9 completed · 1 failed');
    await page.screenshot({ path: screenshotPath('big-swarm-buckets') });
  });

  it('narrows to the rows with a failure, drills into one, and goes back', async () => {
    const { page, served } = con;
    await page.goto(`${served.base}/sessions/${id}?state=failed`);
    await expect.poll(() => page.locator('.if-count').textContent()).toBe('3 of 6,000 items failed');
    const rows = page.locator('.items-list tbody td.item');
    expect(await rows.allInnerTexts()).toEqual(['items 1,231–1,240', 'items 3,001–3,010', 'items 5,991–6,000']);

    // The second row shown (items 3,001–3,010), opened from the keyboard.
    await page.locator('.tl-scroll').first().focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.swarm h2').first().textContent()).toContain('items 3,001–3,010 of 6,000');
    await expect.poll(() => rows.allInnerTexts()).toEqual(['bad-3001']);
    await expect.poll(() => page.locator('.if-count').textContent()).toBe('1 of 10 items failed');
    const failed = page.locator('.items-list tbody tr').first();
    expect(await failed.locator('td.reason').textContent()).toContain('bad-3001 would not compile');
    await page.screenshot({ path: screenshotPath('big-swarm-drilled') });

    // Its transcript is one click away.
    const link = failed.locator('a');
    const agent = await link.textContent();
    await link.click();
    await expect.poll(() => page.url()).toContain(`/sessions/${id}/agents/${agent}`);
    expect(await page.locator('main').textContent()).toContain('Fix bad-3001');
    await page.goBack();

    await page.goto(`${served.base}/sessions/${id}`);
    await page.locator('.tl-scroll').first().focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => rows.first().textContent()).toBe('ok-1');
    await page.getByRole('button', { name: '← All 6,000 items' }).click();
    await expect.poll(() => page.locator('.swarm h2').first().textContent()).toContain('6,000 items in rows of 10');
    expect(await rows.first().textContent()).toBe('items 1–10');
  });

  it('tells a bad range in words', async () => {
    const { page, served } = con;
    const r = await page.request.get(`${served.base}/api/sessions/${id}/swarms/s-1/items?from=10&to=5`);
    expect(r.status()).toBe(400);
    expect(((await r.json()) as { error: string }).error).toContain('from "10" and to "5" are not a range of items');
    const gone = await page.request.get(`${served.base}/api/sessions/${id}/swarms/s-9/items?from=0&to=5`);
    expect(gone.status()).toBe(404);
  });

  it('the HTML report holds the rows, not the items, and says where to see a bucket’s items', async () => {
    const { page } = con;
    const out = path.join(con.dir, 'big.html');
    const report = await con.cli(['report', id, '--html', '-o', out]);
    expect(report.exitCode, report.stderr).toBe(0);
    expect(existsSync(out)).toBe(true);
    expect(statSync(out).size).toBeLessThan(1 << 20);
    expect(readFileSync(out, 'utf8')).not.toContain('ok-4321');
    await page.goto(`file://${out}`);
    await expect.poll(() => page.locator('.swarm h2').first().textContent()).toContain('6,000 items in rows of 10');
    expect(await page.locator('.tl-help').first().textContent()).toContain('Open the session in the console');
  });
});
