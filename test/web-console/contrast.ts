// What a person can read, measured inside the page: every visible text node's colour against the background it
// is drawn on (the ancestors' background colours composited, each with its alpha, and the element's opacity),
// held to WCAG AA — 4.5:1, or 3:1 for large text (≥ 24px, or ≥ 18.66px bold). Inputs' values and placeholders
// count as text too; a disabled control is exempt (WCAG 1.4.3). This measures every node, including the ones
// axe-core leaves "incomplete" (it cannot tell their background), so none goes unchecked. Also: text that runs out
// of the page sideways or out of a box that clips it.
import type { Page } from 'playwright-core';

export interface LowContrast {
  text: string;
  where: string;
  fg: string;
  bg: string;
  ratio: number;
  needed: number;
}

/** The page-side measure as source (plain JS: no helper a TypeScript transform could add). */
const MEASURE = `(scope) => {
  const parse = (c) => { const m = /rgba?\\(([^)]+)\\)/.exec(c); if (!m) return [0, 0, 0, 0]; const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, under) => { const a = top[3] + under[3] * (1 - top[3]); if (a === 0) return [0, 0, 0, 0]; return [0, 1, 2].map((k) => (top[k] * top[3] + under[k] * under[3] * (1 - top[3])) / a).concat(a); };
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) { const b = parse(getComputedStyle(e).backgroundColor); if (b[3] > 0) { layers.push(b); if (b[3] >= 1) break; } }
    let bg = [255, 255, 255, 1];
    for (let k = layers.length - 1; k >= 0; k--) bg = over(layers[k], bg);
    return bg;
  };
  const opacity = (el) => { let o = 1; for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.classList.length ? '.' + [...el.classList].join('.') : '');
  const where = (el) => { const parts = []; for (let e = el; e && parts.length < 3 && e !== document.body; e = e.parentElement) parts.unshift(name(e)); return parts.join(' > '); };
  const shown = (el) => { if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false; const r = el.getBoundingClientRect(); return r.width > 1 && r.height > 1; };
  const out = [], seen = new Set();
  const check = (el, text, color) => {
    if (el.closest(':disabled, [aria-disabled=true]') || !shown(el)) return;
    const cs = getComputedStyle(el), bg = background(el);
    const fg = over([...color.slice(0, 3), color[3] * opacity(el)], bg);
    const a = lum(fg), b = lum(bg), ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(cs.fontSize), bold = Number(cs.fontWeight) >= 700;
    const needed = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
    const key = where(el) + '|' + text + '|' + ratio.toFixed(2);
    if (ratio < needed && !seen.has(key)) {
      seen.add(key);
      out.push({ text: text.slice(0, 40), where: where(el), fg: cs.color, bg: 'rgb(' + bg.slice(0, 3).map(Math.round).join(',') + ')', ratio: Math.round(ratio * 100) / 100, needed });
    }
  };
  const root = scope ? document.querySelector(scope) : document.body;
  if (!root) return out;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement, text = n.textContent.trim();
    if (!text || !el || el.closest('script, style, option, noscript')) continue;
    check(el, text, parse(getComputedStyle(el).color));
  }
  for (const el of root.querySelectorAll('input:not([type=checkbox]):not([type=radio]):not([type=hidden]), textarea')) {
    if (el.value) check(el, el.value, parse(getComputedStyle(el).color));
    else if (el.placeholder) check(el, el.placeholder, parse(getComputedStyle(el, '::placeholder').color));
  }
  return out;
}`;

/** Text under WCAG AA contrast in the page (or inside `scope`, a selector), each with where it is and its ratio. */
export async function lowContrast(page: Page, scope?: string): Promise<LowContrast[]> {
  return (await page.evaluate(`(${MEASURE})(${JSON.stringify(scope ?? null)})`)) as LowContrast[];
}

/** Text a person cannot reach: past the page's right edge, or cut by a box that clips and does not scroll. */
const CLIPPED = `(() => {
  const out = [], width = document.documentElement.clientWidth;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement, text = n.textContent.trim();
    if (!text || !el || el.closest('script, style, option') || !el.checkVisibility({ visibilityProperty: true })) continue;
    // Hidden for the eye on purpose (a legend or a live region only screen readers read: a 1 px box).
    const own = el.getBoundingClientRect();
    if (own.width <= 1 || own.height <= 1) continue;
    const range = document.createRange(); range.selectNodeContents(n);
    const r = range.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    // Text inside a box that scrolls can be scrolled to; text past a box that clips, or past the page, cannot.
    let cut = false, scrolls = false;
    for (let e = el; e && !cut && !scrolls; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.overflowX === 'auto' || cs.overflowX === 'scroll') scrolls = true;
      else if (cs.overflowX === 'hidden' || cs.overflowX === 'clip') { const b = e.getBoundingClientRect(); cut = r.right > b.right + 1 || r.left < b.left - 1; }
    }
    if (!scrolls) cut = cut || r.right > width + 1 || r.left < -1;
    if (cut) out.push(text.slice(0, 40) + ' (' + el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + ')');
  }
  return out;
})()`;

/** The page scrolls sideways (the document wider than the window), and the text that is cut. */
export async function sideways(page: Page): Promise<{ scrollWidth: number; clientWidth: number; clipped: string[] }> {
  const [scrollWidth, clientWidth] = (await page.evaluate(
    '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
  )) as [number, number];
  return { scrollWidth, clientWidth, clipped: (await page.evaluate(CLIPPED)) as string[] };
}
