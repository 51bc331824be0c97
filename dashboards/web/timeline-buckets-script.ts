// A big swarm's timeline on the page (bucket-model.ts makes it): each row is a bucket of neighbouring items, drawn
// with the timeline's own code; clicking a row (or Enter on it) drills down to that bucket's items, fetched from the
// console, and "All items" goes back to the buckets, at the row it came from. A live drill-down is fetched again
// every two seconds while the session runs. In a report (no console behind it) the buckets are all there is. Part of
// the page's script (plain ES2020 as text), after the timeline's view.

export const TIMELINE_BUCKETS_JS = `
const TL_REFRESH_MS = 2000;
function tlNum(n) { return Number(n).toLocaleString('en-US'); }

/** The help line under a timeline, for what its rows are now. */
function tlHelpText(v) {
  const zoom = ' Zoom with + and − (or Ctrl + wheel), 0 fits; scroll to move.';
  if (v.whole && !v.drill) {
    return 'Each row is a bucket of ' + tlNum(v.whole.buckets.size) + ' items; hover it for its mix of states' +
      (tlLinks() ? '; click it, or pick it with ↑ ↓ and press Enter, to see its items.' : '. Open the session in the console to see a bucket’s items.') + zoom;
  }
  return 'Hover a row for its details' + (tlLinks() ? '; click it, or pick it with ↑ ↓ and press Enter, to open its agent’s transcript' : '; pick one with ↑ ↓') + '.' + zoom;
}

/** The swarm's heading: its items, and for a big one its buckets or the bucket in view. */
function tlTitle(v, s) {
  const nv = v.ix.verifiers, whole = v.whole;
  const items = whole ? whole.buckets.count : s.items.length;
  const what = whole && v.drill ? ': items ' + tlNum(v.drill.from + 1) + '–' + tlNum(v.drill.to) + ' of ' + tlNum(items)
    : whole ? ' (' + tlNum(items) + ' items in rows of ' + tlNum(whole.buckets.size) : ' (' + plural(items, 'item');
  return 'Swarm ' + s.id + ' — ' + s.description + what + (whole && v.drill ? ' (' : ', ') + (nv ? plural(nv, 'verifier') + ', ' : '') + s.role + ')';
}

/** Which rows a bucketed swarm shows for the filter: a bucket holding an item in the wanted state; counts are items. */
function tlBucketFilter(v, want, q) {
  const s = v.s, b = s.buckets, n = s.items.length, shown = [];
  const k = TL_STATES.indexOf(want);
  const counts = Object.assign({ all: b.count }, s.counts);
  let matched = 0;
  for (let i = 0; i < n; i++) {
    const size = Math.min(b.size, b.count - i * b.size);
    const has = want === 'all' ? size : want === 'verdict_fail' ? b.verdictFails[i] : k >= 0 ? b.states[i * TL_STATES.length + k] : 0;
    if (has > 0 && (!q || v.lower[i].includes(q))) { shown.push(i); matched += has; }
  }
  counts.verdict_fail = b.verdictFails.reduce((a, x) => a + x, 0);
  return { counts, shown, matched };
}

/** The "All items" button of a big swarm's timeline (made once). */
function tlBackButton(v) {
  if (v.back) return v.back;
  const b = document.createElement('button');
  b.type = 'button'; b.className = 'button tl-back'; b.hidden = true;
  b.addEventListener('click', () => tlBack(v));
  v.el.querySelector('.tl-zoom').before(b);
  v.back = b;
  return b;
}

async function tlFetchItems(v, from, to) {
  return api('GET', '/api/sessions/' + encodeURIComponent(v.m.id) + '/swarms/' + encodeURIComponent(v.whole.id) + '/items?from=' + from + '&to=' + to);
}

/** Shows bucket row i's items in place of the buckets. */
async function tlDrill(v, row) {
  if (!tlLinks() || v.loading) return;
  const i = v.shown[row], b = v.whole.buckets;
  const from = i * b.size, to = Math.min(b.count, from + b.size);
  v.loading = true;
  v.live.textContent = 'Loading items ' + tlNum(from + 1) + '–' + tlNum(to) + '…';
  const r = await tlFetchItems(v, from, to);
  v.loading = false;
  if (!r.ok) { v.live.textContent = 'Could not load items ' + tlNum(from + 1) + '–' + tlNum(to) + ': ' + ((r.data && r.data.error) || 'the console answered ' + r.status); return; }
  v.drill = { from, to, s: r.data, at: Date.now(), row: i, top: v.scroll.scrollTop };
  tlSwitch(v, 0);
  v.live.textContent = 'Showing items ' + tlNum(from + 1) + '–' + tlNum(to) + '.';
}

function tlBack(v) {
  const top = v.drill ? v.drill.top : 0;
  v.drill = null;
  tlSwitch(v, top);
  v.live.textContent = 'Showing all ' + plural(v.whole.buckets.count, 'item') + ' by buckets.';
}

/** The rows changed (buckets or items): drawn again from the top (or where the buckets were), focus kept on the frame. */
function tlSwitch(v, top) {
  v.labels = []; v.lower = null; v.focus = -1; v.hover = -1; v.tip.hidden = true;
  renderSwarms(current);
  v.scroll.scrollTop = top;
  tlSchedule(v);
  v.scroll.focus();
}

/** A big swarm's rows for this model: its buckets, or the bucket drilled into (fetched again while it runs). */
function tlBucketRows(v, s, m) {
  v.whole = s;
  tlBackButton(v).hidden = !v.drill;
  v.back.textContent = '← All ' + tlNum(s.buckets.count) + ' items';
  if (!v.drill) return s;
  if (m.status === 'running' && !v.loading && Date.now() - v.drill.at > TL_REFRESH_MS) {
    const d = v.drill;
    d.at = Date.now();
    tlFetchItems(v, d.from, d.to).then((r) => { if (r.ok && v.drill === d) { d.s = r.data; renderSwarms(current); } });
  }
  return v.drill.s;
}
`;
