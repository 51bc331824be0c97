// The swarm timeline's drawing, part of the page's script (the console's session page and `murmur report --html`
// share it): one <canvas> per swarm, painted from the model's flat arrays. Only the rows in view are painted, so a
// frame costs the same for 10 items or 10,000; the item labels (left) and the capacity strip and time axis (top)
// stay put while the rows scroll under them. Plain ES2020 as text, no build step.
import { ITEM_STATES, MARK_KINDS } from './session-model.js';

/** Bar colours by item state (also the legend's). */
export const STATE_COLORS: Record<string, string> = {
  queued: '#c9ccd3',
  launched: '#4f7bea',
  rate_limited: '#f0a020',
  verifying: '#9b59d0',
  completed: '#2e9e5b',
  failed: '#d64541',
  aborted: '#7d7d7d',
  conflict: '#e0589b',
  waiting: '#c77800',
};
const MARK_COLORS = ['#111111', '#c77800', '#0f6b2f', '#b3261e'];

export const TIMELINE_DRAW_JS = `
const TL = { LABEL: 180, CAP: 34, AXIS: 22, ROW: 16, PAD: 10, MAXH: 540 };
const TL_STATES = ${JSON.stringify(ITEM_STATES)};
const TL_COLORS = ${JSON.stringify(STATE_COLORS)};
const TL_MARKS = ${JSON.stringify(MARK_KINDS)};
const TL_MARK_COLORS = ${JSON.stringify(MARK_COLORS)};
const TL_VERIFIER = '#4a1d75', TL_CAPACITY = '#3558d6';
const TL_RUNNING = new Set(['queued', 'launched', 'rate_limited', 'verifying']);
// The states whose reason a row shows (a completed item's old verdict reasons are history, not news).
const TL_EXPLAINED = new Set(['failed', 'aborted', 'conflict', 'waiting']);
// Tick steps (ms): the first that leaves about 90 px between ticks.
const TL_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 216e5, 432e5, 864e5];

function tlDuration(ms) {
  if (ms < 1000) return Math.round(ms) + ' ms';
  if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 1 : 0) + ' s';
  const s = Math.round(ms / 1000);
  if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
  return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
}
function tlTick(ms, step) {
  if (step < 1000) return (ms >= 1000 ? (ms / 1000).toFixed(step < 100 ? 2 : 1) + ' s' : Math.round(ms) + ' ms');
  const s = Math.round(ms / 1000);
  if (step < 60000) return s < 60 ? s + ' s' : Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
  if (s < 3600) return Math.floor(s / 60) + ' min';
  return Math.floor(s / 3600) + ':' + String(Math.floor((s % 3600) / 60)).padStart(2, '0') + ' h';
}

/**
 * Per item: its changes, marks and verifiers as lists of its own, and what the hover says of it. n: the rows on
 * show — every item, until the filter (swarm-filter-script.ts) narrows them to its shown items.
 */
function tlIndex(s, m) {
  const n = s.items.length;
  const rows = new Array(n);
  for (let i = 0; i < n; i++) rows[i] = { t: [], st: [], marks: [], ver: [] };
  let bars = 0;
  const states = new Set();
  const c = s.changes;
  for (let i = 0; i < c.length; i += 3) {
    const r = rows[c[i]];
    if (!r) continue;
    if (r.t.length === 0) bars++;
    r.t.push(c[i + 1]); r.st.push(c[i + 2]); states.add(c[i + 2]);
  }
  const marks = new Set();
  for (let i = 0; i < s.marks.length; i += 3) { const r = rows[s.marks[i]]; if (r) { r.marks.push(s.marks[i + 1], s.marks[i + 2]); marks.add(s.marks[i + 2]); } }
  const v = s.verifiers || [];
  for (let i = 0; i < v.length; i += 3) { const r = rows[v[i]]; if (r) r.ver.push(v[i + 1], v[i + 2], i / 3); }
  const start = s.startedAt - m.t0;
  const end = Math.max((s.endedAt || m.endedAt || m.lastTs) - m.t0, start + 1);
  return { rows, bars, states, marks, start, end, n, verifiers: v.length / 3 };
}

/** What the hover (and the keyboard's row) says of item i. */
function tlDescribe(s, ix, i) {
  const r = ix.rows[i];
  const state = r.st.length ? TL_STATES[r.st[r.st.length - 1]] : 'not started';
  let from = -1;
  for (let k = 0; k < r.st.length; k++) if (TL_STATES[r.st[k]] !== 'queued') { from = r.t[k]; break; }
  const until = TL_RUNNING.has(state) ? ix.end : r.t[r.t.length - 1];
  const verdict = ['', 'pass', 'fail'][(s.verdicts || [])[i] || 0];
  const vids = [];
  for (let k = 0; k < r.ver.length; k += 3) vids.push(s.verifierIds[r.ver[k + 2]]);
  return { item: s.items[i], state, duration: from < 0 ? '—' : tlDuration(until - from), agent: (s.agentIds || [])[i] || '',
    verifiers: vids, verdict, round: (s.rounds || [])[i] || 0, tokens: (s.tokens || [])[i] || 0,
    // A bucket's reason is its mix of states, always worth saying.
    reason: s.buckets || TL_EXPLAINED.has(state) || verdict === 'fail' ? (s.reasons || [])[i] || '' : '' };
}

/** A label cut to fit the label column, with an ellipsis (measured once per item and kept). */
function tlLabel(g, v, i) {
  const cached = v.labels[i];
  if (cached !== undefined) return cached;
  let text = v.s.items[i];
  const room = TL.LABEL - 12;
  if (g.measureText(text).width > room) {
    let lo = 0, hi = text.length;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (g.measureText('…' + text.slice(text.length - mid)).width <= room) lo = mid; else hi = mid - 1; }
    text = '…' + text.slice(text.length - lo);
  }
  v.labels[i] = text;
  return text;
}

/** Paints what is in view: rows under the fixed top strip (capacity, axis) and label column. */
function tlPaint(v) {
  const t0 = performance.now();
  const { canvas, scroll, s, ix } = v;
  const W = scroll.clientWidth, H = scroll.clientHeight;
  const dpr = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(W * dpr) || canvas.height !== Math.round(H * dpr)) {
    canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
    canvas.style.width = W + 'px'; canvas.style.height = H + 'px';
  }
  const g = canvas.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, W, H);
  const top = TL.CAP + TL.AXIS, plot = tlPlotWidth(v), sx = scroll.scrollLeft, sy = scroll.scrollTop;
  const span = ix.end - ix.start;
  const x = (t) => TL.LABEL + ((t - ix.start) / span) * plot - sx;
  const first = Math.max(0, Math.floor(sy / TL.ROW)), last = Math.min(ix.n, Math.ceil((sy + H - top) / TL.ROW));
  // Rows.
  g.save(); g.beginPath(); g.rect(TL.LABEL, top, W - TL.LABEL, H - top); g.clip();
  const stub = Math.max(2, plot * 0.004);
  // Row j of the view shows item shown[j] (all items, or those the filter and the search let through).
  for (let j = first; j < last; j++) {
    const y = top + j * TL.ROW - sy, r = ix.rows[v.shown[j]];
    if (j % 2 === 1) { g.fillStyle = '#f5f6f8'; g.fillRect(TL.LABEL, y, W - TL.LABEL, TL.ROW); }
    for (let k = 0; k < r.t.length; k++) {
      const st = TL_STATES[r.st[k]];
      const a = x(r.t[k]);
      const b = k + 1 < r.t.length ? x(r.t[k + 1]) : TL_RUNNING.has(st) ? x(ix.end) : a + stub;
      if (b < TL.LABEL || a > W) continue;
      g.fillStyle = TL_COLORS[st] || '#999';
      g.fillRect(a, y + 2, Math.max(1, b - a), TL.ROW - 6);
    }
    for (let k = 0; k < r.ver.length; k += 3) {
      const a = x(r.ver[k]), b = r.ver[k + 1] < 0 ? x(ix.end) : x(r.ver[k + 1]);
      g.fillStyle = TL_VERIFIER; g.fillRect(a, y + TL.ROW - 5, Math.max(2, b - a), 3);
    }
    for (let k = 0; k < r.marks.length; k += 2) {
      g.fillStyle = TL_MARK_COLORS[r.marks[k + 1]] || '#111'; g.fillRect(x(r.marks[k]) - 1, y + 1, 3, TL.ROW - 3);
    }
    if (j === v.hover || j === v.focus) { g.strokeStyle = '#1d1d1f'; g.lineWidth = 1; g.strokeRect(TL.LABEL + 0.5, y + 0.5, W - TL.LABEL - 1, TL.ROW - 1); }
  }
  // Ticks' grid lines over the rows.
  const step = TL_STEPS.find((st) => (st / span) * plot >= 90) || TL_STEPS[TL_STEPS.length - 1];
  const ticks = [];
  const from = Math.max(0, Math.floor(((sx / plot) * span) / step) * step);
  g.fillStyle = 'rgba(0,0,0,0.07)';
  for (let t = from; t <= span; t += step) { const px = x(ix.start + t); if (px > W) break; if (px >= TL.LABEL) { g.fillRect(px, top, 1, H - top); ticks.push(t); } }
  g.restore();
  // Labels.
  g.fillStyle = '#fff'; g.fillRect(0, top, TL.LABEL, H - top);
  g.font = '12px system-ui, sans-serif'; g.textBaseline = 'middle';
  for (let j = first; j < last; j++) {
    const y = top + j * TL.ROW - sy;
    if (y + TL.ROW < top) continue;
    g.fillStyle = j === v.hover || j === v.focus ? '#1d1d1f' : '#3a3a3e';
    g.fillText(tlLabel(g, v, v.shown[j]), 6, y + TL.ROW / 2);
  }
  g.fillStyle = '#dcdcd8'; g.fillRect(TL.LABEL - 1, top, 1, H - top);
  // Top strip: capacity (label in the label column, the line over the plot) and the axis.
  g.fillStyle = '#fff'; g.fillRect(0, 0, W, top);
  const cap = s.capacity;
  let maxCap = s.maxConcurrency || 1;
  for (let i = 1; i < cap.length; i += 2) maxCap = Math.max(maxCap, cap[i]);
  g.fillStyle = '#3a3a3e'; g.textBaseline = 'alphabetic';
  // Without a capacity change there is no line: the strip says only the swarm's limit.
  if (cap.length) { g.fillText('capacity', 6, 14); g.fillStyle = '#6b6b70'; g.fillText('max ' + maxCap, 6, 28); }
  else if (s.maxConcurrency) { g.fillStyle = '#6b6b70'; g.fillText('at most ' + s.maxConcurrency + ' at once', 6, 20); }
  if (cap.length) {
    g.save(); g.beginPath(); g.rect(TL.LABEL, 0, W - TL.LABEL, TL.CAP); g.clip();
    g.strokeStyle = TL_CAPACITY; g.lineWidth = 1.5; g.beginPath();
    const yOf = (c) => TL.CAP - 4 - (c / maxCap) * (TL.CAP - 10);
    for (let i = 0; i < cap.length; i += 2) {
      const px = x(cap[i]), py = yOf(cap[i + 1]);
      if (i === 0) g.moveTo(px, py); else g.lineTo(px, py);
      g.lineTo(i + 2 < cap.length ? x(cap[i + 2]) : x(ix.end), py);
    }
    g.stroke(); g.restore();
  }
  g.fillStyle = '#dcdcd8'; g.fillRect(0, top - 1, W, 1); g.fillRect(TL.LABEL - 1, 0, 1, top);
  g.fillStyle = '#3a3a3e'; g.fillText('time', 6, top - 6);
  for (const t of ticks) {
    const px = x(ix.start + t);
    g.fillRect(px, top - 6, 1, 6);
    if (px + 4 < W - 20) g.fillText(tlTick(t, step), px + 3, top - 8);
  }
  const ds = canvas.dataset;
  ds.bars = String(ix.bars); ds.items = String(s.items.length); ds.shown = String(ix.n); ds.changes = String(s.changes.length / 3);
  ds.verifiers = String(ix.verifiers); ds.ticks = ticks.map((t) => tlTick(t, step)).join(',');
  ds.labelWidth = String(TL.LABEL); ds.top = String(top); ds.row = String(TL.ROW); ds.capacityMax = String(maxCap);
  tlStat(performance.now() - t0);
}
/** The plot's width at the current zoom (the whole span fits at zoom 1). */
function tlPlotWidth(v) { return Math.max(50, (v.scroll.clientWidth - TL.LABEL - TL.PAD) * v.zoom); }
/** How long each paint took (ms), for the bench and the tests: the last 2,000. */
const tlStats = [];
function tlStat(ms) { if (tlStats.length >= 2000) tlStats.shift(); tlStats.push(ms); }
window.murmurTimelineStats = tlStats;
`;
