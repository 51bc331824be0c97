// The swarm timeline in Chromium, used as a person would: a verified swarm of 14 items (one with a long path) on
// its session page — labelled rows, a time axis, a legend of only what occurs, hover cards, verifiers inside
// their item's row and counted apart, zoom, and a click that opens the agent's transcript. Screenshots go to
// test-output/web-console/.
import { statSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumForSuite, openConsole, type Console } from './browser-setup.js';
import { murmur, screenshotPath } from './helpers.js';
import { hoverRow } from './timeline-rows.js';
import { ITEMS, LONG_ITEM, REWORKED, runVerifiedSwarm, VERIFY_SCRIPT } from './verified-swarm.js';

const available = chromiumForSuite();
let con: Console;
let id: string;

/** What the tests read of the timeline's <canvas> inside the page (the suite has no DOM types). */
interface CanvasPixels {
  width: number;
  clientWidth: number;
  getContext(k: '2d'): { getImageData(...n: number[]): { data: Uint8ClampedArray } };
}

/** Pixels of the canvas near a colour, in a rectangle of CSS pixels. */
async function pixelsLike(page: Page, rgb: [number, number, number], x: number, y: number, w: number, h: number) {
  return page
    .locator('canvas.timeline-canvas')
    .first()
    .evaluate(
      (el, a) => {
        const c = el as unknown as CanvasPixels;
        const d = c.width / c.clientWidth;
        const { data } = c.getContext('2d').getImageData(a.x * d, a.y * d, a.w * d, a.h * d);
        let n = 0;
        for (let i = 0; i < data.length; i += 4)
          if (
            Math.abs(data[i]! - a.rgb[0]) + Math.abs(data[i + 1]! - a.rgb[1]) + Math.abs(data[i + 2]! - a.rgb[2]) <
            60
          )
            n++;
        return n;
      },
      { rgb, x, y, w, h },
    );
}

/** The timeline's horizontal frame: scroll offset and the plot's width (the spacer is label + plot + padding). */
async function frame(page: Page): Promise<{ sx: number; plot: number; label: number; zoom: string | null }> {
  const canvas = page.locator('canvas.timeline-canvas').first();
  const label = Number(await canvas.getAttribute('data-label-width'));
  const [sx, spacer] = await page
    .locator('.tl-scroll')
    .first()
    .evaluate((el) => {
      const box = el as unknown as { scrollLeft: number; querySelector(s: string): { offsetWidth: number } };
      return [box.scrollLeft, box.querySelector('.tl-spacer').offsetWidth];
    });
  return { sx: sx!, plot: spacer! - label - 10, label, zoom: await canvas.getAttribute('data-zoom') };
}

interface Model {
  t0: number;
  endedAt?: number;
  lastTs: number;
  swarms: { startedAt: number; endedAt?: number; changes: number[] }[];
}

/** Where item `item`'s bar has its middle (its first to its last change), as a share of the swarm's span. */
async function barMiddle(page: Page, session: string, item: number): Promise<number> {
  const m = (await (await page.request.get(`${con.served.base}/api/sessions/${session}`)).json()) as Model;
  const s = m.swarms[0]!;
  const times = s.changes.filter((_, k) => k % 3 === 1 && s.changes[k - 1] === item);
  const start = s.startedAt - m.t0;
  const end = Math.max((s.endedAt ?? m.endedAt ?? m.lastTs) - m.t0, start + 1);
  return ((times[0]! + times.at(-1)!) / 2 - start) / (end - start);
}

/** Focuses row `row` (item `item`) with the arrows, zooms in with +: how far (px) the middle of its bar moved. */
async function keyZoomDrift(page: Page, row: number, item: number): Promise<number> {
  await page.locator('.tl-scroll').first().focus();
  for (let i = 0; i <= row; i++) await page.keyboard.press('ArrowDown');
  const share = await barMiddle(page, id, item);
  const fit = await frame(page);
  await page.keyboard.press('+');
  await expect.poll(async () => (await frame(page)).zoom).not.toBe(fit.zoom);
  const zoomed = await frame(page);
  return Math.abs(zoomed.label + share * zoomed.plot - zoomed.sx - (fit.label + share * fit.plot - fit.sx));
}

describe.skipIf(!available)('the swarm timeline in Chromium', () => {
  beforeAll(async () => {
    con = await openConsole(VERIFY_SCRIPT, {}, ['--no-scheduler']);
    id = await runVerifiedSwarm(con);
  }, 90_000);
  afterAll(async () => {
    await con?.close();
  });

  it('labels rows, draws an axis with ticks, counts verifiers apart and lists only what occurs', async () => {
    const { page, served } = con;
    await page.goto(`${served.base}/sessions/${id}`);
    const canvas = page.locator('canvas.timeline-canvas');
    await expect.poll(() => canvas.getAttribute('data-items')).toBe('14');
    expect(await page.locator('.swarm h2').innerText()).toMatch(/\(14 items, 15 verifiers, worker\)$/);
    expect(await canvas.getAttribute('data-verifiers')).toBe('15');
    expect(await page.locator('#tree summary').first().innerText()).toBe('14 items (15 verifiers)');
    const ticks = (await canvas.getAttribute('data-ticks'))!.split(',');
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    expect(ticks[0]).toMatch(/^0( ms| s)$/);
    const legend = await page.locator('.swarm .legend li').allInnerTexts();
    expect(legend).toEqual(
      expect.arrayContaining(['queued', 'launched', 'verifying', 'completed', 'verifier', 'verdict: pass']),
    );
    expect(legend).toEqual(expect.arrayContaining(['verdict: fail', 'rate limited', '429 (rate limited)', 'capacity']));
    for (const absent of ['failed', 'aborted', 'conflict', 'retry']) expect(legend).not.toContain(absent);
    // The capacity label sits in the label column; its line only over the plot.
    const labelWidth = Number(await canvas.getAttribute('data-label-width'));
    const blue: [number, number, number] = [0x35, 0x58, 0xd6];
    expect(await pixelsLike(page, blue, 0, 0, labelWidth - 2, 34)).toBe(0);
    expect(await pixelsLike(page, blue, labelWidth, 0, 600, 34)).toBeGreaterThan(0);
    expect(await pixelsLike(page, [0x3a, 0x3a, 0x3e], 0, 0, labelWidth - 2, 34)).toBeGreaterThan(0);
    await page.screenshot({ path: screenshotPath('timeline-verified'), fullPage: true });
  });

  it('hovering a row shows item, state, duration, agent, verifier, verdict, round and tokens; a long label in full', async () => {
    const { page } = con;
    const tip = await hoverRow(page, ITEMS.indexOf(REWORKED));
    await expect.poll(() => tip.isVisible()).toBe(true);
    const text = await tip.innerText();
    expect(text).toContain(REWORKED);
    expect(text).toMatch(/state: completed/);
    expect(text).toMatch(/duration: \d/);
    expect(text).toMatch(/agent: a-\d+/);
    expect(text).toMatch(/verifiers: a-\d+, a-\d+/);
    expect(text).toMatch(/verdict: pass/);
    expect(text).toMatch(/round: 2/);
    expect(text).toMatch(/tokens: 1\.\dk/);
    await page.screenshot({ path: screenshotPath('timeline-hover'), fullPage: false });
    const longTip = await hoverRow(page, ITEMS.indexOf(LONG_ITEM), true);
    await expect.poll(() => longTip.innerText()).toContain(LONG_ITEM);
    await page.screenshot({ path: screenshotPath('timeline-hover-label'), fullPage: false });
    await page.mouse.move(5, 5);
    await expect.poll(() => tip.isVisible()).toBe(false);
  });

  it('zooms in and out (buttons and Ctrl + wheel) and back to fit', async () => {
    const { page } = con;
    const scroll = page.locator('.tl-scroll').first();
    const width = () => scroll.evaluate((el) => el.scrollWidth);
    const fit = await width();
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await expect.poll(width).toBeGreaterThan(fit * 1.8);
    const box = (await scroll.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + 80);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -200);
    await page.keyboard.up('Control');
    await expect.poll(width).toBeGreaterThan(fit * 2.2);
    const ticks = await page.locator('canvas.timeline-canvas').getAttribute('data-ticks');
    expect(ticks!.split(',').length).toBeGreaterThanOrEqual(3);
    await page.screenshot({ path: screenshotPath('timeline-zoomed'), fullPage: false });
    await page.getByRole('button', { name: 'Fit' }).click();
    await expect.poll(width).toBeLessThanOrEqual(fit + 1);
  });

  it('Ctrl + wheel zooms around the pointer (the time under it stays put); + and − around the focused row', async () => {
    const { page, served } = con;
    await page.goto(`${served.base}/sessions/${id}`);
    await page.locator('canvas.timeline-canvas[data-items]').waitFor();
    const box = (await page.locator('.tl-scroll').first().boundingBox())!;
    // Twice in, at two places (the second with the view scrolled), then out: the pointer's time keeps its x.
    for (const [share, delta] of [
      [0.3, -200],
      [0.75, -200],
      [0.5, 200],
    ] as const) {
      const before = await frame(page);
      const x = before.label + share * (box.width - before.label);
      const time = (x - before.label + before.sx) / before.plot;
      await page.mouse.move(box.x + x, box.y + 90);
      await page.keyboard.down('Control');
      await page.mouse.wheel(0, delta);
      await page.keyboard.up('Control');
      await expect.poll(async () => (await frame(page)).zoom).not.toBe(before.zoom);
      const after = await frame(page);
      expect(Math.abs(after.label + time * after.plot - after.sx - x)).toBeLessThanOrEqual(2);
    }
    // The keyboard: the row whose bar lies furthest left focused (far from the middle, where a zoom used to
    // stay), + zooms around the middle of its bar: that time keeps its x.
    await page.getByRole('button', { name: 'Fit' }).click();
    const middles = await Promise.all(ITEMS.map((_, i) => barMiddle(page, id, i)));
    const row = middles.indexOf(Math.min(...middles));
    expect(await keyZoomDrift(page, row, row)).toBeLessThanOrEqual(2);
    await page.screenshot({ path: screenshotPath('timeline-zoom-focused-row'), fullPage: false });
    // Narrowed by a search, row 0 is item f9.ts, not the first item: its own bar stays put.
    await page.goto(`${served.base}/sessions/${id}?q=f9`);
    await expect.poll(() => page.locator('canvas.timeline-canvas').getAttribute('data-shown')).toBe('1');
    expect(await keyZoomDrift(page, 0, ITEMS.indexOf('f9.ts'))).toBeLessThanOrEqual(2);
  });

  it('clicking a row opens that agent’s transcript', async () => {
    const { page, served } = con;
    await page.goto(`${served.base}/sessions/${id}`);
    await page.locator('canvas.timeline-canvas').waitFor();
    const tip = await hoverRow(page, 0);
    const agent = /agent: (a-\d+)/.exec(await tip.innerText())![1]!;
    await page.mouse.down();
    await page.mouse.up();
    await page.waitForURL(new RegExp(`/sessions/${id}/agents/${agent}$`));
    expect(await page.locator('h1').innerText()).toBe(`Transcript of ${agent}`);
    expect(await page.locator('.transcript').innerText()).toContain('Check f0.ts');
    expect(await page.locator('.transcript').innerText()).toContain('f0.ts checked');
    await page.screenshot({ path: screenshotPath('transcript'), fullPage: true });
    await page.getByRole('link', { name: `Session ${id}` }).click();
    await page.waitForURL(new RegExp(`/sessions/${id}$`));
  });

  it('`murmur report --html` of a verified 1,000-item swarm: the same drawing, hover data inline, no transcript links, under 2 MB', async () => {
    const script = path.join(con.dir, 'fast.json');
    writeFileSync(
      script,
      JSON.stringify({
        agents: [
          { match: { role: 'worker' }, turns: [{ text: 'done', usage: { input: 1000, output: 40 } }] },
          { match: { role: 'verifier' }, turns: [{ text: 'VERDICT: pass', usage: { input: 200, output: 5 } }] },
        ],
      }),
    );
    const list = path.join(con.dir, 'items.txt');
    const items = Array.from({ length: 1000 }, (_, i) => `src/module-${i}/component-file-${i}.ts`);
    writeFileSync(list, items.join('\n'));
    const run = await con.cli([
      'swarm',
      '--template',
      'Check {{item}}',
      '--items-file',
      list,
      '--verify',
      '--max-concurrency',
      '100',
      '--model',
      `scripted:${script}`,
      '--no-dashboard',
      '--json',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const session = (JSON.parse(run.stdout) as { sessionId: string }).sessionId;
    const report = await murmur(['report', session, '--html'], con.workspace, con.env);
    expect(report.exitCode, String(report.stderr)).toBe(0);
    const file = String(report.stdout).trim();
    const bytes = statSync(file).size;
    expect(bytes).toBeLessThan(2_000_000);
    const html = readFileSync(file, 'utf8');
    for (const key of ['"items":[', '"agentIds":[', '"tokens":[', '"verdicts":[', '"rounds":[', '"verifierIds":['])
      expect(html).toContain(key);
    expect(html).toContain(items[500]);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);

    const offline = await con.browser.newContext({ offline: true, viewport: { width: 1280, height: 900 } });
    const page = await offline.newPage();
    await page.goto(`file://${file}`);
    const canvas = page.locator('canvas.timeline-canvas');
    await expect.poll(() => canvas.getAttribute('data-items')).toBe('1000');
    expect(await canvas.getAttribute('data-verifiers')).toBe('1000');
    expect((await canvas.getAttribute('data-ticks'))!.split(',').length).toBeGreaterThanOrEqual(3);
    expect(await page.locator('.swarm h2').innerText()).toMatch(/\(1000 items, 1000 verifiers, worker\)$/);
    const tip = await hoverRow(page, 2);
    await expect.poll(() => tip.innerText()).toContain(items[2]);
    const text = await tip.innerText();
    expect(text).toMatch(
      /state: completed[\s\S]*agent: a-\d+[\s\S]*verifier: a-\d+[\s\S]*verdict: pass[\s\S]*round: 1[\s\S]*tokens: 1\.2k/,
    );
    expect(text).not.toContain('transcript');
    await page.screenshot({ path: screenshotPath('report-verified-1000'), fullPage: false });
    await page.mouse.down();
    await page.mouse.up();
    expect(page.url()).toBe(`file://${file}`);
    await page.locator('#tree summary').first().click();
    await page.waitForSelector('#tree details[open] li');
    expect(await page.locator('#tree a[href*="/agents/"]').count()).toBe(0);
    await offline.close();
    console.log(`report.html of a verified 1,000-item swarm: ${(bytes / 1024).toFixed(0)} KB`);
  }, 90_000);
});
