// Finding items on the session page (and in `murmur report --html`): filter buttons by state with their counts,
// a search by label, the count of what matches, and a list of the matching items (state, reason, duration,
// transcript, and a Retry button on a session that has ended). Filtering is one pass over each swarm's flat arrays;
// the timeline then paints only the rows that match (its `shown` list), so 1,000 items stay smooth. The filter and
// the search live in the address (?state=failed&q=foo) and survive the live updates. Part of the page's script
// (plain ES2020 as text), after the timeline's.

/** Rows of the item list at most: a person narrows by state or label for the rest. */
export const ITEM_LIST_MAX = 200;

export const ITEM_FILTER_CSS = `
.item-filter{display:flex;flex-wrap:wrap;gap:8px 18px;align-items:center;margin:10px 0 4px}.if-states{display:flex;flex-wrap:wrap;gap:6px}
.if-state{padding:3px 10px;border-radius:14px;border:1px solid var(--line);background:#fff;color:var(--fg);font:inherit;cursor:pointer}
.if-state[aria-pressed=true]{background:var(--fg);color:#fff;border-color:var(--fg)}.if-state .n{margin-left:5px;font-variant-numeric:tabular-nums}
.if-search{display:flex;flex-wrap:wrap;gap:6px;align-items:center;max-width:100%}.if-search input::placeholder{color:#6b6b70}.if-search input{font:inherit;padding:4px 8px;border:1px solid var(--line);border-radius:6px;width:16em;max-width:100%}
.if-count{margin:0}.items-list h2{font-size:16px;margin:14px 0 6px}.items-list td{word-break:break-word}.items-list td.item{font-weight:600}
.items-list table{table-layout:fixed}.items-list .c-item{width:24%}.items-list .c-state{width:11%}.items-list .c-time{width:9%}.items-list .c-agent{width:10%}.items-list .c-act{width:8%}
.items-list .retry-item{padding:2px 10px}.if-retry:empty{display:none}
@media (max-width:640px){.items-list table,.items-list tbody,.items-list tr,.items-list td{display:block;width:auto}.items-list thead{display:none}
.items-list tr{border-bottom:1px solid var(--line);padding:4px 0}.items-list td{border:0;padding:2px 8px}.items-list td:empty{display:none}}`;

export const ITEM_FILTER_JS = `
const IF_KEYS = ['all', 'queued', 'launched', 'rate_limited', 'verifying', 'waiting', 'completed', 'failed', 'conflict', 'aborted', 'verdict_fail'];
const IF_RETRY = new Set(['failed', 'conflict', 'aborted']);
const IF_MAX = ${ITEM_LIST_MAX};
const ifParams = new URLSearchParams(location.search);
const ifView = { state: IF_KEYS.includes(ifParams.get('state')) ? ifParams.get('state') : 'all', q: (ifParams.get('q') || '').trim(), bar: null, list: null, html: '', timer: 0 };
function ifName(k) { return k === 'verdict_fail' ? 'verdict fail' : k.replace('_', ' '); }

/** One pass over a swarm's items: each one's state (its last change; none yet reads as queued), the counts, and the rows to show. */
function ifApply(v) {
  const s = v.s, ix = v.ix, n = ix.rows.length, q = ifView.q.toLowerCase(), want = ifView.state;
  if (!v.lower || v.lower.length !== n) v.lower = s.items.map((t) => t.toLowerCase());
  v.matched = undefined;
  if (s.buckets) {
    const b = tlBucketFilter(v, want, q);
    v.counts = b.counts; v.shown = b.shown; v.matched = b.matched; ix.n = b.shown.length;
    if (v.focus >= ix.n) v.focus = -1;
    if (v.hover >= ix.n) v.hover = -1;
    return;
  }
  const counts = { all: n }, shown = [], verdicts = s.verdicts || [];
  for (let i = 0; i < n; i++) {
    const st = ix.rows[i].st, state = st.length ? TL_STATES[st[st.length - 1]] : 'queued', vf = verdicts[i] === 2;
    counts[state] = (counts[state] || 0) + 1;
    if (vf) counts.verdict_fail = (counts.verdict_fail || 0) + 1;
    if ((want === 'all' || want === state || (vf && want === 'verdict_fail')) && (!q || v.lower[i].includes(q))) shown.push(i);
  }
  // Row j of the timeline now shows item shown[j]; its row count is theirs.
  v.counts = counts; v.shown = shown; ix.n = shown.length;
  if (v.focus >= ix.n) v.focus = -1;
  if (v.hover >= ix.n) v.hover = -1;
}

function ifCreate(m) {
  const box = $('#swarms');
  const bar = document.createElement('div');
  bar.className = 'item-filter';
  bar.innerHTML = '<div class="if-states" role="group" aria-label="Show items by state">' + IF_KEYS.map((k) =>
    '<button type="button" class="if-state" data-state="' + k + '" aria-pressed="false">' + ifName(k) + '<span class="n"></span></button>').join('') + '</div>' +
    '<div class="if-search"><label for="if-q">Search items</label><input id="if-q" type="search" autocomplete="off" spellcheck="false" placeholder="part of a label"></div>' +
    '<p class="meta if-count"></p><p class="sr-only if-live" aria-live="polite"></p>';
  box.prepend(bar);
  const list = document.createElement('section');
  list.className = 'items-list'; list.setAttribute('aria-labelledby', 'items-title');
  list.innerHTML = '<h2 id="items-title">Items</h2><p class="if-retry" role="status"></p><div class="if-rows"></div>';
  box.after(list);
  const input = bar.querySelector('#if-q');
  input.value = ifView.q;
  input.addEventListener('input', () => { ifView.q = input.value.trim(); ifChanged(); });
  for (const b of bar.querySelectorAll('.if-state')) b.addEventListener('click', () => { ifView.state = b.dataset.state; ifChanged(); });
  list.addEventListener('click', (e) => { const b = e.target.closest && e.target.closest('button.retry-item'); if (b) ifRetry(b); });
  ifView.bar = bar; ifView.list = list;
  // The list is redrawn while it is on screen (or near it): a live swarm below the fold costs no layout of 200 rows a second.
  ifView.seen = typeof IntersectionObserver !== 'function';
  if (!ifView.seen) new IntersectionObserver((entries) => {
    ifView.seen = entries.some((e) => e.isIntersecting);
    const later = ifView.pending;
    if (ifView.seen && later) { ifView.pending = null; ifList(later[0], later[1]); }
  }, { rootMargin: '400px' }).observe(list);
}

/** A filter or the search changed: every timeline again from the top, the list, the address, and a word for screen readers. */
function ifChanged() {
  for (const v of tlViews.values()) {
    ifApply(v);
    v.focus = -1; v.hover = -1; v.tip.hidden = true; v.scroll.scrollTop = 0;
    tlSize(v); tlSchedule(v);
  }
  if (current) ifRender(current);
  try {
    const u = new URL(location.href);
    u.searchParams.delete('state'); u.searchParams.delete('q');
    if (ifView.state !== 'all') u.searchParams.set('state', ifView.state);
    if (ifView.q) u.searchParams.set('q', ifView.q);
    window.history.replaceState(window.history.state, '', u);
  } catch {}
  clearTimeout(ifView.timer);
  ifView.timer = setTimeout(() => { ifView.bar.querySelector('.if-live').textContent = ifView.bar.querySelector('.if-count').textContent; }, 400);
}

/** The counts on the buttons, the count of matches and the list, for the swarms on the page. */
function ifRender(m) {
  if (!m.swarms.length) return;
  if (!ifView.bar) ifCreate(m);
  const views = m.swarms.map((s) => tlViews.get(s.id)).filter(Boolean);
  const counts = {};
  let matched = 0;
  for (const v of views) { matched += v.matched !== undefined ? v.matched : v.ix.n; for (const k in v.counts) counts[k] = (counts[k] || 0) + v.counts[k]; }
  for (const b of ifView.bar.querySelectorAll('.if-state')) {
    const k = b.dataset.state, n = counts[k] || 0;
    b.hidden = k !== 'all' && n === 0 && k !== ifView.state;
    b.setAttribute('aria-pressed', String(k === ifView.state));
    const text = tlNum(n);
    if (b.lastChild.textContent !== text) b.lastChild.textContent = text;
  }
  const total = counts.all || 0;
  const what = (ifView.state === 'all' ? '' : ' ' + ifName(ifView.state)) + (ifView.q ? ' matching “' + ifView.q + '”' : '');
  const items = tlNum(total) + (total === 1 ? ' item' : ' items');
  const count = ifView.state === 'all' && !ifView.q ? items : tlNum(matched) + ' of ' + items + what;
  const el = ifView.bar.querySelector('.if-count');
  if (el.textContent !== count) el.textContent = count;
  ifList(m, views);
}

/** The rows of the matching items (the first IF_MAX), redrawn only when they read differently. */
function ifList(m, views) {
  if (!ifView.seen && ifView.html) { ifView.pending = [m, views]; return; }
  const links = tlLinks(), retry = links && m.status !== 'running', many = views.length > 1;
  // Rows, not items: a big swarm's rows are buckets.
  const shownRows = views.reduce((k, v) => k + v.ix.n, 0);
  const rows = [];
  for (const v of views) for (let j = 0; j < v.ix.n && rows.length < IF_MAX; j++) {
    const i = v.shown[j], d = tlDescribe(v.s, v.ix, i), bad = !v.s.buckets && (IF_RETRY.has(d.state) || d.verdict === 'fail');
    const agent = d.agent ? (links ? '<a href="/sessions/' + encodeURIComponent(m.id) + '/agents/' + encodeURIComponent(d.agent) + '">' + esc(d.agent) + '</a>' : esc(d.agent)) : '—';
    rows.push('<tr data-swarm="' + esc(v.s.id) + '" data-index="' + i + '"><td class="item">' + esc(d.item) + (many ? ' <span class="meta">(' + esc(v.s.id) + ')</span>' : '') +
      '</td><td><span class="state state-' + esc(d.state) + '">' + esc(d.state.replace('_', ' ')) + '</span>' + (d.verdict === 'fail' && d.state !== 'failed' ? ' · verdict fail' : '') +
      '</td><td class="reason">' + esc(d.reason) + (v.s.earlier && v.s.earlier[i] ? '<span class="earlier">' + esc(v.s.earlier[i]) + '</span>' : '') + '</td><td>' + esc(d.duration) + '</td><td>' + agent + '</td>' +
      (retry ? '<td>' + (bad ? '<button type="button" class="button retry-item" data-swarm="' + esc(v.s.id) + '" data-item="' + esc(d.item) + '" aria-label="Retry ' + esc(d.item) + '">Retry</button>' : '') + '</td>' : '') + '</tr>');
  }
  // Fixed column widths: a table of 200 rows is laid out without measuring every cell.
  const head = '<tr><th scope="col" class="c-item">Item</th><th scope="col" class="c-state">State</th><th scope="col">Reason</th><th scope="col" class="c-time">Duration</th><th scope="col" class="c-agent">' +
    (links ? 'Transcript' : 'Agent') + '</th>' + (retry ? '<th scope="col" class="c-act"><span class="sr-only">Actions</span></th>' : '') + '</tr>';
  const html = rows.length === 0 ? '<p class="empty">No item matches.</p>'
    : '<table class="items"><thead>' + head + '</thead><tbody>' + rows.join('') + '</tbody></table>' +
      (shownRows > rows.length ? '<p class="meta if-more">Showing ' + rows.length + ' of ' + shownRows + '; narrow by state or search to see the others.</p>' : '');
  if (html === ifView.html) return;
  ifView.html = html;
  ifView.list.querySelector('.if-rows').innerHTML = html;
}

/** Asks the console to run one item again (a session that has ended); says what it answered. */
async function ifRetry(b) {
  const say = ifView.list.querySelector('.if-retry'), item = b.dataset.item;
  b.disabled = true;
  say.textContent = 'Asking to retry ' + item + '…';
  try {
    const r = await api('POST', '/api/sessions/' + encodeURIComponent(current.id) + '/retry', { swarmId: b.dataset.swarm, items: [item] });
    // The item runs again in this session: the page reloads (keeping its filter) to follow it live.
    if (r.ok) { say.textContent = 'Retrying ' + ((r.data && r.data.retrying) || [item]).join(', ') + '.'; location.reload(); return; }
    say.textContent = 'Could not retry ' + item + ': ' + ((r.data && r.data.error) || 'the console answered ' + r.status) + '.';
  } catch (e) {
    say.textContent = 'Could not retry ' + item + ': ' + (e && e.message ? e.message : e) + '.';
  }
  b.disabled = false;
}
`;
