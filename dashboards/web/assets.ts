// The console's stylesheet and script, served by the console itself (/assets/…) and inlined into a report: no
// CDN, no framework, nothing fetched from anywhere else. The timeline is one <canvas>: thousands of bars cost
// one DOM node, and a redraw is a loop over flat arrays.
import { PLURAL_JS } from '../plural.js';
import { TIMELINE_DRAW_JS } from './timeline-draw.js';
import { TIMELINE_CSS, TIMELINE_VIEW_JS } from './timeline-view.js';
import { TIMELINE_BUCKETS_JS } from './timeline-buckets-script.js';
import { ITEM_FILTER_CSS, ITEM_FILTER_JS } from './swarm-filter-script.js';
import { TRANSCRIPT_CSS } from './transcript-page.js';
import { TASK_FORM_JS } from './task-form-script.js';
import { RUN_FORM_CSS, RUN_FORM_JS } from './run-form-script.js';
import { ANSWER_CSS, ANSWER_JS } from './answer-script.js';
import { RETRY_CSS, RETRY_JS } from './retry-script.js';

// Down to a 360 px phone: one column, less padding, and a wide table scrolls inside its own box, not the page.
const NARROW_CSS = `@media (max-width:640px){body>nav{padding:8px 12px}main{padding:12px}.cards{grid-template-columns:1fr}
.selectors,.start-form .selectors{grid-template-columns:1fr 1fr}table.sessions,table.history{display:block;overflow-x:auto}}
@media (max-width:480px){.selectors,.start-form .selectors{grid-template-columns:1fr}}`;

export const CONSOLE_CSS = `
:root{--bg:#f7f7f5;--fg:#1d1d1f;--muted:#6b6b70;--line:#dcdcd8;--card:#fff;--accent:#3558d6}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;background:var(--bg);color:var(--fg)}
body>nav{display:flex;flex-wrap:wrap;gap:6px 18px;align-items:center;padding:10px 24px;background:#1d1d1f}body>nav a,body>nav span{color:#ddd;text-decoration:none}body>nav a.on{color:#fff;font-weight:600}.brand{font-weight:700;color:#fff!important;margin-right:12px}
main{max-width:1200px;margin:0 auto;padding:18px 24px}
.bar{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:6px 12px}.bar h1{font-size:22px;margin:8px 0}
.button{display:inline-block;border:1px solid var(--line);background:#fff;border-radius:6px;padding:6px 14px;color:var(--fg);text-decoration:none;cursor:pointer;font:inherit}.button.primary{background:var(--accent);color:#fff;border-color:var(--accent)}.button[disabled]{opacity:.5}.button.danger{color:#b3261e;border-color:#e6b8b4}.actions{display:flex;gap:6px}
.filters{display:flex;flex-wrap:wrap;gap:6px;margin:10px 0 16px}.filter{padding:4px 12px;border-radius:14px;border:1px solid var(--line);text-decoration:none;color:var(--fg)}.filter.on{background:var(--fg);color:#fff}
.cards{display:grid;grid-template-columns:1fr 1fr;gap:14px}.card{display:block;background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px 16px;color:inherit;text-decoration:none}.card:hover{border-color:var(--accent)}
.card h3{margin:0 0 6px;font-size:16px}.card .summary{margin:0 0 8px;color:var(--muted)}.card .rule{margin:0;font-size:13px}
.empty{color:var(--muted)}.meta{color:var(--muted);margin:0 0 10px}
.task-form{display:flex;flex-direction:column;gap:14px;max-width:860px}.block{background:#fff;border:1px solid var(--line);border-radius:10px;padding:12px 16px}.block h2{font-size:14px;margin:0 0 8px}
[hidden]{display:none!important}.task-form label{display:block;margin:4px 0}.task-form input[name=title],.task-form textarea{width:100%;font:inherit;padding:6px}.kinds{display:flex;flex-wrap:wrap;gap:12px;margin:0 0 8px;border:0;padding:0}.kinds legend{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}.kinds label{display:inline}.limits{margin-top:6px}
.when{display:flex;flex-wrap:wrap;gap:8px 18px}.when label{display:inline-block}
.selectors{display:grid;grid-template-columns:repeat(4,1fr);gap:10px}.selectors select{width:100%}
.error{color:#b3261e;margin:2px 0;font-size:13px}.error:empty{display:none}
.timeline{list-style:none;display:flex;flex-wrap:wrap;gap:8px;padding:0;margin:0;align-items:center}.timeline li{padding:6px 10px;border-radius:6px;background:#eef1fb;white-space:nowrap}.timeline li+li:before{content:"→ ";color:var(--muted)}
.timeline li.theoretical{opacity:.7;background:#f0f0ee;font-style:italic}.timeline li.theoretical .zone{color:inherit}.timeline .zone{color:var(--muted);font-size:12px;margin-left:4px}
.tabs{display:flex;gap:4px;border-bottom:1px solid var(--line);margin:8px 0 14px}.tab{padding:6px 14px;text-decoration:none;color:var(--muted)}.tab.on{color:var(--fg);border-bottom:2px solid var(--accent)}
table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);font-size:13px;vertical-align:top}
.state-succeeded,.state-completed{color:#1b7f3b}.state-failed{color:#b3261e}.state-waiting-for-approval,.state-waiting{color:#a15c00}.state-running{color:var(--accent)}
.tree{font-size:13px}.tree ul{list-style:none;margin:0;padding-left:18px;border-left:1px dotted var(--line)}.tree>ul{padding-left:0;border:0}.tree li{margin:2px 0}.tree .final{color:var(--muted);white-space:pre-wrap;margin:2px 0 6px}
.tree details>summary{cursor:pointer}
.swarm{background:#fff;border:1px solid var(--line);border-radius:10px;padding:10px 14px;margin:12px 0}
.legend{display:flex;flex-wrap:wrap;gap:10px;font-size:12px;margin:6px 0}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
${RUN_FORM_CSS}
${ITEM_FILTER_CSS}
${RETRY_CSS}
${ANSWER_CSS}
${TIMELINE_CSS}
${TRANSCRIPT_CSS}
${NARROW_CSS}`;

// The page's script (plain ES2020, no build step). Kept as text so the same bytes are served and inlined.
export const CONSOLE_JS = `(() => {
'use strict';
const $ = (s, r = document) => r.querySelector(s);
const esc = (t) => String(t ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
${PLURAL_JS}
async function api(method, url, body) {
  let res;
  try {
    res = await fetch(url, { method, headers: body ? { 'Content-Type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined, credentials: 'same-origin' });
  } catch (e) {
    // No answer at all (the console stopped, the connection was cut): said as an error, never an unhandled one.
    return { ok: false, status: 0, data: { error: 'the console did not answer (' + (e && e.message || e) + '); is murmur serve still running?' } };
  }
  let data = null;
  try { data = await res.json(); } catch {}
  return { ok: res.ok, status: res.status, data };
}

${TASK_FORM_JS}
${RUN_FORM_JS}
${RETRY_JS}
${ANSWER_JS}
// ---- the session page ----
function tokens(n) { return n >= 1e6 ? (n / 1e6).toFixed(1) + 'M' : n >= 1e3 ? (n / 1e3).toFixed(1) + 'k' : String(n); }
function renderMeta(m) {
  $('#status').textContent = m.status;
  $('#status').className = 'state state-' + m.status;
  // A running session's elapsed time goes on between events (this page's clock).
  const end = m.status === 'running' && following ? Math.max(m.lastTs, Date.now()) : m.endedAt || m.lastTs;
  $('#meta').textContent = [m.mode || 'run', m.model, new Date(m.startedAt || m.t0).toISOString().slice(0, 19).replace('T', ' ') + ' UTC',
    Math.round((m.durationMs !== undefined ? m.durationMs : m.earlierMs !== undefined ? m.earlierMs + end - m.runStartedAt : end - (m.startedAt || m.t0)) / 1000) + ' s', plural(m.agentCount !== undefined ? m.agentCount : m.agents.length, 'agent'), tokens(m.tokens) + ' tokens', m.cost !== undefined ? '$' + m.cost.toFixed(4) : ''].filter(Boolean).join(' · ');
}
function renderTree(m) {
  // A verifier hangs under its item's worker: a swarm of 14 items with verifiers is 14 items, not 28.
  const workerOf = new Map(), itemKey = (a) => JSON.stringify([a.swarmId, a.item]);
  for (const a of m.agents) if (a.swarmId && a.item && a.role !== 'verifier' && !workerOf.has(itemKey(a))) workerOf.set(itemKey(a), a.id);
  const parentOf = (a) => (a.role === 'verifier' && a.swarmId && a.item && workerOf.get(itemKey(a))) || a.parentId;
  const kids = new Map();
  for (const a of m.agents) { const p = parentOf(a) || ''; if (!kids.has(p)) kids.set(p, []); kids.get(p).push(a); }
  const ids = new Set(m.agents.map((a) => a.id));
  const roots = m.agents.filter((a) => !parentOf(a) || !ids.has(parentOf(a)));
  const item = (a) => {
    const children = kids.get(a.id) || [];
    const name = tlLinks() ? '<a href="/sessions/' + encodeURIComponent(m.id) + '/agents/' + encodeURIComponent(a.id) + '" title="Transcript of ' + esc(a.id) + '"><b>' + esc(a.id) + '</b></a>' : '<b>' + esc(a.id) + '</b>';
    const head = name + ' ' + esc(a.role) + ' · <span class="state state-' + esc(a.state) + '">' + esc(a.state) + '</span> · ' + plural(a.turns, 'turn') + (a.toolCalls !== undefined ? ' · ' + plural(a.toolCalls, 'tool call') : '') + ' · ' + tokens(a.tokens) + ' tokens' + (a.item ? ' · ' + esc(a.item) : '') + (a.reason ? ' · ' + esc(a.reason) : '');
    const final = a.final ? '<div class="final">' + esc(a.final) + '</div>' : '';
    // A large group is drawn only when opened: a live swarm of 1,000 items does not rebuild 1,000 rows a second.
    if (children.length > 50) return '<li>' + head + final + '<details data-group="' + esc(a.id) + '"' + (openGroups.has(a.id) ? ' open' : '') + '><summary>' + plural(children.length, 'subagent') + '</summary>' + (openGroups.has(a.id) ? '<ul>' + children.map(item).join('') + '</ul>' : '') + '</details></li>';
    return '<li>' + head + final + (children.length ? '<ul>' + children.map(item).join('') + '</ul>' : '') + '</li>';
  };
  const tree = $('#tree');
  // Swarm items without a parent agent (murmur swarm) hang under their swarm, drawn when opened.
  const loose = roots.filter((a) => !a.swarmId);
  const swarms = new Map();
  for (const a of roots) if (a.swarmId) { if (!swarms.has(a.swarmId)) swarms.set(a.swarmId, []); swarms.get(a.swarmId).push(a); }
  const groups = [...swarms].map(([id, list]) => {
    const key = 'swarm:' + id, open = openGroups.has(key);
    const nv = list.reduce((k, a) => k + (kids.get(a.id) || []).filter((c) => c.role === 'verifier').length, 0);
    // A retried item has an agent per attempt: the items are counted once, the agents said apart.
    const items = new Set(list.map((a) => a.item ?? a.id)).size;
    const agents = list.length > items ? ', ' + plural(list.length, 'agent') : '';
    return '<li><b>swarm ' + esc(id) + '</b><details data-group="' + esc(key) + '"' + (open ? ' open' : '') + '><summary>' + plural(items, 'item') + agents + (nv ? ' (' + plural(nv, 'verifier') + ')' : '') + '</summary>' + (open ? '<ul>' + list.map(item).join('') + '</ul>' : '') + '</details></li>';
  });
  tree.innerHTML = '<ul>' + loose.map(item).join('') + groups.join('') + '</ul>';
  for (const d of tree.querySelectorAll('details[data-group]')) d.addEventListener('toggle', () => {
    if (d.open === openGroups.has(d.dataset.group)) return;
    if (d.open) openGroups.add(d.dataset.group); else openGroups.delete(d.dataset.group);
    renderTree(current);
  });
}
const openGroups = new Set();
${TIMELINE_DRAW_JS}
${TIMELINE_VIEW_JS}
${TIMELINE_BUCKETS_JS}
${ITEM_FILTER_JS}
let current;
function renderSession(m) {
  current = m;
  renderMeta(m); renderSwarms(m); renderTree(m); showPending(m);
  document.body.dataset.version = String((Number(document.body.dataset.version) || 0) + 1);
}
function setupSession(data) {
  renderSession(data.model);
  let resize;
  window.addEventListener('resize', () => { clearTimeout(resize); resize = setTimeout(() => current && renderSwarms(current), 100); });
  setInterval(() => current && current.status === 'running' && renderMeta(current), 1000);
  if (data.live) followLive(data.model.id);
}
let following = false;
function followLive(id) {
  if (typeof EventSource === 'undefined') return;
  following = true;
  const es = new EventSource('/api/sessions/' + encodeURIComponent(id) + '/events');
  es.addEventListener('model', (ev) => { const m = JSON.parse(ev.data); renderSession(m); });
  es.addEventListener('end', () => es.close());
}

const dataEl = document.getElementById('data');
const data = dataEl ? JSON.parse(dataEl.textContent) : {};
if (data.page === 'session') setupSession(data);
const form = document.getElementById('task-form');
if (form) setupForm(form);
const actions = document.querySelector('.actions[data-task]');
if (actions) setupActions(actions);
const history = document.querySelector('#history[data-task]');
if (history) setupHistoryLive(history);
})();
`;
