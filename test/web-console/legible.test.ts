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
/** Tab presses per page: past the top bar, the filters and the page's own controls. */
const TABS = 30;

/**
 * Marks the interactive elements to point at, one of each kind (tag and classes: a table of 200 links alike is
 * one link's look), with data-hover=N; returns how many.
 */
const MARK_KINDS = `(() => {
  const kinds = new Set();
  let n = 0;
  for (const el of document.querySelectorAll(${JSON.stringify(INTERACTIVE)})) {
    const kind = el.tagName + '.' + el.className + '.' + (el.parentElement && el.parentElement.tagName);
    if (!el.checkVisibility() || kinds.has(kind)) continue;
    kinds.add(kind);
    el.setAttribute('data-hover', String(n++));
  }
  return n;
})()`;

async function open(target: PageToVisit, width: number): Promise<Page> {
  const page = target.stranger ? stranger : con.page;
  await page.setViewportSize({ width, height: 900 });
  await page.goto(target.url.startsWith('file://') ? target.url : `${con.served.base}${target.url}`);
  if (target.ready) await page.locator(target.ready).first().waitFor();
  return page;
}

const said = (name: string, state: string, found: LowContrast[]) =>
  found.map((f) => `${name} ${state}: "${f.text}" ${f.where} ${f.fg} on ${f.bg} = ${f.ratio} (needs ${f.needed})`);

/** Each kind of control under the pointer, then each Tab stop: the text inside it, measured in that state. */
async function hoveredAndFocused(page: Page, name: string): Promise<string[]> {
  const found: string[] = [];
  const kinds = (await page.evaluate(MARK_KINDS)) as number;
  for (let i = 0; i < kinds; i++) {
    const at = (await page.evaluate(
      `(() => { const el = document.querySelector('[data-hover="${i}"]'); if (!el) return null; el.scrollIntoView({ block: 'center' }); const r = el.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`,
    )) as [number, number] | null;
    // A live page may have drawn that part again (its marks gone): nothing to point at.
    if (!at) continue;
    await page.mouse.move(at[0], at[1]);
    found.push(...said(name, 'hovered', await lowContrast(page, `[data-hover="${i}"]`)));
  }
  await page.mouse.move(0, 0);
  await page.evaluate('window.scrollTo(0, 0); document.activeElement?.blur()');
  for (let i = 0; i < TABS; i++) {
    await page.keyboard.press('Tab');
    const focused = (await page.evaluate(
      `(() => { document.querySelector('[data-focus]')?.removeAttribute('data-focus'); const el = document.activeElement; if (!el || el === document.body) return false; el.setAttribute('data-focus', ''); return true; })()`,
    )) as boolean;
    if (focused) found.push(...said(name, 'focused', await lowContrast(page, '[data-focus]')));
  }
  return found;
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
      found.push(...(await hoveredAndFocused(page, target.name)));
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
    // The tree fills in once its rows are read: on a loaded machine, after the click returns.
    await expect.poll(() => page.locator('#tree').innerText()).toMatch(/ · 1 tool call · /);
    const tree = await page.locator('#tree').innerText();
    expect(tree).not.toMatch(/\b1 (agents|tool calls|turns|items)\b/);
    expect(await page.locator('.if-count').innerText()).toBe('1 item');
  });
});
