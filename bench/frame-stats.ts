// Frame times of a console page in Chromium: requestAnimationFrame intervals (what a person sees as smooth or not)
// and the swarm timeline's own paint times (`window.murmurTimelineStats`, kept by the page's script). Used by the
// console bench while a page follows a live 1,000-item swarm, and while a person scrolls and zooms it.
import type { Page } from 'playwright-core';

export interface FrameStats {
  frames: number;
  /** requestAnimationFrame intervals (ms). */
  p50: number;
  p95: number;
  max: number;
  /** The timeline's paints: how many, and their p95 and longest (ms). */
  paints: number;
  paintP95: number;
  paintMax: number;
}

function pct(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** Starts recording frame intervals in the page (until the next navigation). */
export async function recordFrames(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    const frames = (window.__frames = []);
    let last = performance.now();
    const tick = (t) => { frames.push(t - last); last = t; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  })()`);
}

export async function collectFrames(page: Page): Promise<FrameStats> {
  const raw = (await page.evaluate(
    '({ frames: window.__frames || [], paints: window.murmurTimelineStats || [] })',
  )) as {
    frames: number[];
    paints: number[];
  };
  // The first interval spans the page's load; the rest are the frames while it followed the run.
  const frames = raw.frames.slice(1).sort((a, b) => a - b);
  const paints = [...raw.paints].sort((a, b) => a - b);
  return {
    frames: frames.length,
    p50: pct(frames, 0.5),
    p95: pct(frames, 0.95),
    max: frames.at(-1) ?? 0,
    paints: paints.length,
    paintP95: pct(paints, 0.95),
    paintMax: paints.at(-1) ?? 0,
  };
}

/** Scrolls the timeline down and sideways and zooms it in and out, as a person would, until `done()`. */
export async function interact(page: Page, done: () => boolean): Promise<void> {
  const scroll = page.locator('.tl-scroll').first();
  try {
    await scroll.waitFor({ timeout: 5_000 });
  } catch {
    return;
  }
  const box = await scroll.boundingBox();
  if (!box) return;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let i = 0; !done() && i < 400; i++) {
    if (i % 10 === 4) {
      await page.keyboard.down('Control');
      await page.mouse.wheel(0, i % 20 === 4 ? -300 : 300);
      await page.keyboard.up('Control');
    } else await page.mouse.wheel(i % 3 === 0 ? 200 : 0, 300);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function frameLine(s: FrameStats): string {
  const ms = (v: number) => v.toFixed(1);
  const paints = `${s.paints} timeline paints, p95 ${ms(s.paintP95)} ms, max ${ms(s.paintMax)} ms`;
  if (s.frames === 0) return paints;
  return `${s.frames} frames, interval p50 ${ms(s.p50)} ms, p95 ${ms(s.p95)} ms, max ${ms(s.max)} ms; ${paints}`;
}
