// The swarm timeline on the page: its frame (a canvas under a native scroll area, so scrolling is the browser's
// own and a paint covers only what is in view), the legend of what occurs, zoom (buttons, Ctrl + wheel at the pointer, + − 0 at the focused row),
// the hover card (item, state, duration, agent, verifiers, verdict, round, tokens), and opening a row's transcript
// by click or by keyboard (↑ ↓ pick a row, Enter opens it); a big swarm's row is a bucket, and opening it drills
// down to its items (timeline-buckets-script.ts). In a report there are no transcript links.
export const TIMELINE_CSS = `
.swarm h2{font-size:16px;margin:4px 0}.tl-bar{display:flex;justify-content:space-between;align-items:center;gap:12px;flex-wrap:wrap}
.swarm .legend{list-style:none;padding:0}.tl-zoom{display:flex;gap:4px}.tl-zoom .button{padding:2px 10px}.tl-back{margin-left:auto;padding:2px 10px}
.tl-frame{position:relative;border-top:1px solid var(--line);margin-top:4px}.tl-frame canvas{position:absolute;left:0;top:0;pointer-events:none}
.tl-scroll{position:absolute;inset:0;overflow:auto}.tl-scroll:focus-visible{outline:2px solid var(--accent);outline-offset:-2px}.tl-scroll.link{cursor:pointer}
.tl-tip{position:absolute;z-index:2;background:#1d1d1f;color:#fff;font-size:12px;line-height:1.5;padding:6px 9px;border-radius:6px;max-width:420px;pointer-events:none;word-break:break-all}
.tl-tip b{display:block;font-size:13px}.tl-help{font-size:12px;margin:6px 0 0}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}`;

export const TIMELINE_VIEW_JS = `
const tlViews = new Map();
const TL_MARK_NAMES = { retry: 'retry', '429': '429 (rate limited)', pass: 'verdict: pass', fail: 'verdict: fail' };

/** The legend: only the states, marks and lines this swarm has. */
function tlLegend(s, ix) {
  const parts = [];
  TL_STATES.forEach((st, k) => { if (ix.states.has(k)) parts.push([TL_COLORS[st], st.replace('_', ' ')]); });
  if (ix.verifiers) parts.push([TL_VERIFIER, 'verifier']);
  TL_MARKS.forEach((mk, k) => { if (ix.marks.has(k)) parts.push([TL_MARK_COLORS[k], TL_MARK_NAMES[mk]]); });
  if (s.capacity.length) parts.push([TL_CAPACITY, 'capacity']);
  return parts.map(([c, name]) => '<li><i style="background:' + c + '"></i>' + esc(name) + '</li>').join('');
}

function tlCreate(box, s) {
  const el = document.createElement('section');
  el.className = 'swarm'; el.dataset.swarm = s.id;
  const hid = 'swarm-title-' + s.id.replace(/[^A-Za-z0-9_-]/g, '_');
  el.setAttribute('aria-labelledby', hid);
  el.innerHTML = '<h2 id="' + hid + '"></h2><p class="meta counts"></p><div class="tl-bar"><ul class="legend" aria-label="Legend"></ul>' +
    '<div class="tl-zoom" role="group" aria-label="Zoom the timeline"><button type="button" class="button" data-zoom="in" aria-label="Zoom in">+</button>' +
    '<button type="button" class="button" data-zoom="out" aria-label="Zoom out">−</button><button type="button" class="button" data-zoom="fit">Fit</button></div></div>' +
    '<div class="tl-frame"><canvas class="timeline-canvas" aria-hidden="true"></canvas><div class="tl-scroll" tabindex="0" role="group"><div class="tl-spacer"></div></div><div class="tl-tip" role="tooltip" hidden></div></div>' +
    '<p class="tl-help meta"></p><p class="sr-only" aria-live="polite"></p>';
  box.appendChild(el);
  const v = { el, s, canvas: el.querySelector('canvas'), scroll: el.querySelector('.tl-scroll'), spacer: el.querySelector('.tl-spacer'),
    frame: el.querySelector('.tl-frame'), tip: el.querySelector('.tl-tip'), live: el.querySelector('[aria-live]'),
    zoom: 1, hover: -1, focus: -1, raf: 0, labels: [], legend: '' };
  if (tlLinks()) v.scroll.classList.add('link');
  v.scroll.addEventListener('scroll', () => tlSchedule(v), { passive: true });
  v.scroll.addEventListener('wheel', (e) => {
    if (!e.ctrlKey && !e.metaKey) return;
    e.preventDefault();
    tlZoom(v, e.deltaY < 0 ? 1.25 : 0.8, e.clientX - v.scroll.getBoundingClientRect().left);
  }, { passive: false });
  v.scroll.addEventListener('mousemove', (e) => {
    const box = v.scroll.getBoundingClientRect();
    const row = tlRowAt(v, e.clientY - box.top);
    if (row !== v.hover) { v.hover = row; tlSchedule(v); }
    tlShowTip(v, row, e.clientX - box.left, e.clientY - box.top);
  });
  v.scroll.addEventListener('mouseleave', () => { v.hover = -1; tlShowTip(v, v.focus, -1, -1); tlSchedule(v); });
  v.scroll.addEventListener('click', (e) => {
    const row = tlRowAt(v, e.clientY - v.scroll.getBoundingClientRect().top);
    if (row >= 0) tlOpen(v, row);
  });
  v.scroll.addEventListener('keydown', (e) => tlKey(v, e));
  v.scroll.addEventListener('blur', () => { v.focus = -1; if (v.hover < 0) tlShowTip(v, -1); tlSchedule(v); });
  for (const b of el.querySelectorAll('[data-zoom]')) b.addEventListener('click', () => {
    if (b.dataset.zoom === 'fit') tlFit(v); else tlZoom(v, b.dataset.zoom === 'in' ? 2 : 0.5);
  });
  return v;
}
function tlLinks() { return typeof data === 'object' && data.transcripts !== false; }
function tlSchedule(v) { if (!v.raf) v.raf = requestAnimationFrame(() => { v.raf = 0; tlPaint(v); }); }
function tlRowAt(v, y) {
  const top = TL.CAP + TL.AXIS;
  if (y < top) return -1;
  const row = Math.floor((y - top + v.scroll.scrollTop) / TL.ROW);
  return row >= 0 && row < v.ix.n ? row : -1;
}
/** Spacer and frame sized to the rows and the zoom; a view at the right end stays there as the swarm grows. */
function tlSize(v) {
  const top = TL.CAP + TL.AXIS, sc = v.scroll;
  const atEnd = v.zoom > 1 && sc.scrollLeft > 0 && sc.scrollLeft + sc.clientWidth >= sc.scrollWidth - 2;
  // On a narrow screen the labels get at most 30% of the frame (labels cut to fit again), the plot the rest.
  const label = Math.max(100, Math.min(180, Math.round(sc.clientWidth * 0.3)));
  if (label !== TL.LABEL) { TL.LABEL = label; for (const o of tlViews.values()) o.labels = []; }
  v.frame.style.height = Math.min(TL.MAXH, top + v.ix.n * TL.ROW + 16) + 'px';
  v.spacer.style.width = Math.ceil(TL.LABEL + tlPlotWidth(v) + TL.PAD) + 'px';
  v.spacer.style.height = top + v.ix.n * TL.ROW + 'px';
  if (atEnd) sc.scrollLeft = sc.scrollWidth;
}
/**
 * Zooms by factor keeping a point in place: the time under anchor (an x in the frame; the plot's middle when
 * absent) stays at that x — or, given time, that time lands at anchor.
 */
function tlZoom(v, factor, anchor, time) {
  const sc = v.scroll, ax = anchor === undefined ? TL.LABEL + (sc.clientWidth - TL.LABEL) / 2 : Math.max(TL.LABEL, anchor);
  const at = time === undefined ? (sc.scrollLeft + ax - TL.LABEL) / tlPlotWidth(v) : (time - v.ix.start) / (v.ix.end - v.ix.start);
  const most = Math.max(1, Math.min(5000, (v.ix.end - v.ix.start) / 20));
  v.zoom = Math.min(most, Math.max(1, v.zoom * factor));
  tlSize(v);
  sc.scrollLeft = at * tlPlotWidth(v) - (ax - TL.LABEL);
  v.canvas.dataset.zoom = v.zoom.toFixed(2);
  tlSchedule(v);
}
/** The whole span in view again (and said so on the canvas, as every zoom is). */
function tlFit(v) { v.zoom = 1; tlSize(v); v.canvas.dataset.zoom = '1.00'; tlSchedule(v); }
/**
 * The keyboard's zoom: around the focused row's bar (the middle of its time), kept where it is when in view and
 * brought to the middle when not, so zooming in never leaves that row empty; without a focused row, the view's middle.
 */
function tlKeyZoom(v, factor) {
  // Row j of the view is item shown[j] (the filter narrows the rows): never index the rows with j itself.
  const r = v.focus >= 0 ? v.ix.rows[v.shown[v.focus]] : undefined;
  if (!r || !r.t.length) return tlZoom(v, factor);
  const last = TL_STATES[r.st[r.st.length - 1]];
  const time = (r.t[0] + (TL_RUNNING.has(last) ? v.ix.end : r.t[r.t.length - 1])) / 2;
  const x = TL.LABEL + ((time - v.ix.start) / (v.ix.end - v.ix.start)) * tlPlotWidth(v) - v.scroll.scrollLeft;
  const inView = x >= TL.LABEL && x <= v.scroll.clientWidth;
  tlZoom(v, factor, inView ? x : undefined, time);
}
function tlOpen(v, row) {
  if (v.s.buckets) return tlDrill(v, row);
  const agent = (v.s.agentIds || [])[v.shown[row]];
  if (!tlLinks() || !agent) return;
  location.href = '/sessions/' + encodeURIComponent(v.m.id) + '/agents/' + encodeURIComponent(agent);
}
function tlKey(v, e) {
  const n = v.ix.n, page = Math.max(1, Math.floor((v.scroll.clientHeight - TL.CAP - TL.AXIS) / TL.ROW) - 1);
  const move = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page, Home: -n, End: n }[e.key];
  if (move !== undefined && n > 0) {
    e.preventDefault();
    v.focus = Math.max(0, Math.min(n - 1, (v.focus < 0 ? (move > 0 ? -1 : n) : v.focus) + move));
    const y = v.focus * TL.ROW, view = v.scroll.clientHeight - TL.CAP - TL.AXIS - 16;
    if (y < v.scroll.scrollTop) v.scroll.scrollTop = y;
    else if (y + TL.ROW > v.scroll.scrollTop + view) v.scroll.scrollTop = y + TL.ROW - view;
    const d = tlDescribe(v.s, v.ix, v.shown[v.focus]);
    v.live.textContent = d.item + ': ' + d.state + ', ' + d.duration + (d.verdict ? ', verdict ' + d.verdict : '') + (d.reason ? ', ' + d.reason : '');
    tlShowTip(v, v.focus, TL.LABEL + 8, TL.CAP + TL.AXIS + y - v.scroll.scrollTop + TL.ROW);
    tlSchedule(v);
  } else if (e.key === 'Enter' && v.focus >= 0) { e.preventDefault(); tlOpen(v, v.focus); }
  else if (e.key === '+' || e.key === '=') { e.preventDefault(); tlKeyZoom(v, 2); }
  else if (e.key === '-') { e.preventDefault(); tlKeyZoom(v, 0.5); }
  else if (e.key === '0') { e.preventDefault(); tlFit(v); }
  else if (e.key === 'Escape') { v.focus = -1; tlShowTip(v, -1); tlSchedule(v); }
}
function tlShowTip(v, row, px, py) {
  const tip = v.tip;
  if (row < 0 || px < 0 || row >= v.ix.n) { tip.hidden = true; return; }
  const d = tlDescribe(v.s, v.ix, v.shown[row]);
  const line = (k, val) => '<div>' + k + ': ' + esc(val) + '</div>';
  tip.innerHTML = '<b>' + esc(d.item) + '</b>' + line('state', d.state.replace('_', ' ')) + (d.reason ? line('reason', d.reason) : '') + line('duration', d.duration) +
    (v.s.buckets ? '' : line('agent', d.agent || '—')) + (d.verifiers.length ? line('verifier' + (d.verifiers.length > 1 ? 's' : ''), d.verifiers.join(', ')) : '') +
    (d.verdict ? line('verdict', d.verdict) : '') + (d.round ? line('round', d.round) : '') + line('tokens', tokens(d.tokens)) +
    (tlLinks() && d.agent ? '<div>click to open the transcript</div>' : '');
  tip.dataset.row = String(row);
  v.tipAt = [px, py];
  tip.hidden = false;
  const w = tip.offsetWidth, h = tip.offsetHeight, fw = v.frame.clientWidth, fh = v.frame.clientHeight;
  tip.style.left = Math.max(0, Math.min(px + 14, fw - w - 4)) + 'px';
  tip.style.top = (py + 14 + h > fh && py - h - 8 >= 0 ? py - h - 8 : py + 14) + 'px';
}
function renderSwarms(m) {
  const box = $('#swarms');
  for (const s of m.swarms) {
    let v = tlViews.get(s.id);
    if (!v) { v = tlCreate(box, s); tlViews.set(s.id, v); }
    v.m = m;
    // A big swarm shows buckets of items, or the bucket drilled into (timeline-buckets-script.ts).
    v.s = s.buckets ? tlBucketRows(v, s, m) : s;
    v.ix = tlIndex(v.s, m);
    ifApply(v);
    v.el.querySelector('h2').textContent = tlTitle(v, v.s);
    const help = tlHelpText(v);
    if (help !== v.help) {
      v.help = help;
      v.el.querySelector('.tl-help').textContent = help;
      v.scroll.setAttribute('aria-label', 'Timeline of swarm ' + s.id + '. ' + help);
    }
    v.el.querySelector('.counts').textContent = Object.entries(s.counts).map(([k, n]) => k + ': ' + n).join(' · ');
    const legend = tlLegend(s, v.ix);
    if (legend !== v.legend) { v.legend = legend; v.el.querySelector('.legend').innerHTML = legend; }
    tlSize(v);
    tlPaint(v);
    if (!v.tip.hidden && v.tipAt) tlShowTip(v, Number(v.tip.dataset.row), v.tipAt[0], v.tipAt[1]);
  }
  ifRender(m);
}
`;
