// What a person sees is legible, on every page of the console and the HTML report: every text's contrast at rest,
// under the pointer and under the keyboard's focus (WCAG AA); no sideways scroll from 1400 px down to 360 px and
// no text cut off; counts in the singular where there is one. Screenshots of each page at both widths, and of the
// states measured, go to test-output/web-console/legible-*.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumForSuite, openConsole, type Console } from './browser-setup.js';
import { screenshotPath } from './helpers.js';
import { lowContrast, sideways, type LowContrast } from './contrast.js';
import { EVERY_PAGE_SCRIPT, seedEveryPage, type PageToVisit, type Seeded } from './every-page.js';

const available = chromiumForSuite();
let con: Console;
let seeded: Seeded;
let stranger: Page;

/** What can be pointed at or reached with Tab, on show. */
const INTERACTIVE = 'a[href], button, summary, input, select, textarea, [tabindex="0"]';
/** Pointed-at elements per page at most (a session's list of items has many links alike). */
const MAX_HOVERED = 40;

async function open(target: PageToVisit, width: number): Promise<Page> {
  const page = target.stranger ? stranger : con.page;
  await page.setViewportSize({ width, height: 900 });
  await page.goto(target.url.startsWith('file://') ? target.url : `${con.served.base}${target.url}`);
  if (target.ready) await page.locator(target.ready).first().waitFor();
  return page;
}

const said = (name: string, state: string, found: LowContrast[]) =>
  found.map((f) => `${name} ${state}: "${f.text}" ${f.where} ${f.fg} on ${f.bg} = ${f.ratio} (needs ${f.needed})`);

/** Marks one element to measure inside it alone. */
async function probe(page: Page, index: number, name: string, state: string): Promise<string[]> {
  await page.evaluate(`document.querySelector('[data-probe]')?.removeAttribute('data-probe')`);
  const marked = (await page.evaluate(
    `(() => { const el = ${index < 0 ? 'document.activeElement' : `[...document.querySelectorAll(${JSON.stringify(INTERACTIVE)})].filter((e) => e.checkVisibility())[${index}]`}; if (!el || el === document.body) return false; el.setAttribute('data-probe', ''); return true; })()`,
  )) as boolean;
  return marked ? said(name, state, await lowContrast(page, '[data-probe]')) : [];
}

describe.skipIf(!available)('what a person sees is legible', () => {
  beforeAll(async () => {
    con = await openConsole(EVERY_PAGE_SCRIPT, { MURMUR_CRON_CHECK_MS: '200' });
    seeded = await seedEveryPage(con);
    stranger = await con.browser.newPage();
  }, 90_000);
  afterAll(async () => {
    await con?.close();
  });

  it('every text on every page reaches WCAG AA contrast at rest, hovered and focused with Tab', async () => {
    const found: string[] = [];
    for (const target of seeded.pages) {
      const page = await open(target, 1400);
      found.push(...said(target.name, 'at rest', await lowContrast(page)));
      const count = Math.min(
        MAX_HOVERED,
        (await page.evaluate(
          `[...document.querySelectorAll(${JSON.stringify(INTERACTIVE)})].filter((e) => e.checkVisibility()).length`,
        )) as number,
      );
      for (let i = 0; i < count; i++) {
        await page.evaluate(`document.querySelector('[data-probe]')?.removeAttribute('data-probe')`);
        const box = (await page.evaluate(
          `(() => { const el = [...document.querySelectorAll(${JSON.stringify(INTERACTIVE)})].filter((e) => e.checkVisibility())[${i}]; el.scrollIntoView({ block: 'center' }); const r = el.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`,
        )) as [number, number];
        await page.mouse.move(box[0], box[1]);
        found.push(...(await probe(page, i, target.name, 'hovered')));
      }
      await page.mouse.move(0, 0);
      await page.evaluate('window.scrollTo(0, 0); document.activeElement?.blur()');
      for (let i = 0; i < count; i++) {
        await page.keyboard.press('Tab');
        found.push(...(await probe(page, -1, target.name, 'focused')));
      }
      if (target.name === 'tasks') {
        await page.locator('.filter[data-filter=paused]').focus();
        await page.screenshot({ path: screenshotPath('legible-tasks-filter-focused') });
      }
    }
    // The timeline's hover card, over a row of the swarm.
    const page = await open(
      seeded.pages.find((p) => p.name === 'session-swarm')!,
      1400,
    );
    const box = (await page.locator('.tl-scroll').boundingBox())!;
    await page.mouse.move(box.x + 300, box.y + 70);
    await page.locator('.tl-tip').waitFor();
    found.push(...said('session-swarm', 'timeline hover card', await lowContrast(page, '.tl-frame')));
    await page.screenshot({ path: screenshotPath('legible-timeline-tip') });
    expect(found).toEqual([]);
  }, 120_000);

  it('scrolls no page sideways at 360 px or 1400 px, and cuts no text off', async () => {
    const found: string[] = [];
    for (const width of [360, 1400])
      for (const target of seeded.pages) {
        const page = await open(target, width);
        const { scrollWidth, clientWidth, clipped } = await sideways(page);
        if (scrollWidth > clientWidth)
          found.push(`${target.name} at ${width}: ${scrollWidth} px wide in ${clientWidth}`);
        found.push(...clipped.map((c) => `${target.name} at ${width}: cut off: ${c}`));
        await page.screenshot({ path: screenshotPath(`legible-${target.name}-${width}`), fullPage: true });
      }
    expect(found).toEqual([]);
  }, 120_000);

  it('says one agent, one tool call and one item in the singular', async () => {
    const page = await open(
      seeded.pages.find((p) => p.name === 'session-one-failed')!,
      1400,
    );
    expect(await page.locator('#meta').innerText()).toMatch(/(^| · )1 agent · /);
    expect(await page.locator('.swarm h2').innerText()).toMatch(/\(1 item, worker\)$/);
    await page.locator('#tree summary').click();
    const tree = await page.locator('#tree').innerText();
    expect(tree).toMatch(/ · 1 tool call · /);
    expect(tree).not.toMatch(/\b1 (agents|tool calls|turns|items)\b/);
    expect(await page.locator('.if-count').innerText()).toBe('1 item');
  });
});
