// Pointing at a row of the swarm timeline's <canvas> as a person would, for the suites that read its hover card.
import type { Locator, Page } from 'playwright-core';

/** Moves the mouse over row `index` of the timeline: in the plot, or (`label`) over its label. */
export async function hoverRow(page: Page, index: number, label = false): Promise<Locator> {
  const canvas = page.locator('canvas.timeline-canvas').first();
  const scroll = page.locator('.tl-scroll').first();
  const box = (await scroll.boundingBox())!;
  const [top, row, labelWidth] = await Promise.all(
    ['top', 'row', 'label-width'].map(async (k) => Number(await canvas.getAttribute(`data-${k}`))),
  );
  const scrollTop = await scroll.evaluate((el) => el.scrollTop);
  const y = box.y + top! + index * row! + row! / 2 - scrollTop;
  await page.mouse.move(box.x + (label ? 20 : labelWidth! + 30), y);
  return page.locator('.tl-tip').first();
}
