// The page script's part for what waits for a person and for following runs (plain ES2020, inside the console
// script's scope: $, esc, api, renderSession): the cards of a held session — an approval with the same words as
// the terminal's card, a question, a plan — answered on the page; a task's History kept live over server-sent
// events; a running session's elapsed time ticking.
export const ANSWER_JS = `
// ---- answering a held session ----
let pendingShown = '';
function approvalCard(c) {
  const always = !c.card && c.alwaysRules && c.alwaysRules.length;
  const detail = c.detail && c.detail !== c.call ? '<details><summary>Arguments</summary><pre>' + esc(c.detail) + '</pre></details>' : '';
  return '<h2>Approval needed</h2><p>' + esc(c.requester || c.agentId) + ' wants to run <b>' + esc(c.tool || '') + '</b>:</p><pre class="call">' + esc(c.card || c.call || c.summary) + '</pre>' + detail +
    '<p class="why">Why asked: ' + esc(c.reason || '') + '</p><div class="answer-row">' +
    '<button class="button primary" data-kind="allow_once">' + 'Approve' + '</button>' +
    (always ? '<button class="button" data-kind="allow_always" title="Allow such calls for the rest of this session (saved with the session, never in murmur.toml)">Always allow: ' + esc(c.alwaysRules.join(', ')) + '</button>' : '') +
    '<label class="feedback">Reason, told to the agent (optional) <input name="feedback" autocomplete="off"></label>' +
    '<button class="button danger" data-kind="deny">Deny</button></div>';
}
function questionCard(c) {
  const qs = (c.questions || []).map((q, i) => '<fieldset class="question" data-q="' + i + '"><legend>' + (q.header ? '[' + esc(q.header) + '] ' : '') + esc(q.question) + '</legend>' +
    q.options.map((o) => '<label><input type="' + (q.multiSelect ? 'checkbox' : 'radio') + '" name="q' + i + '" value="' + esc(o.label) + '"> ' + esc(o.label) + (o.description ? ' <span class="muted">— ' + esc(o.description) + '</span>' : '') + '</label>').join('') +
    '<label class="other">Your own answer (with Other) <input name="other' + i + '" autocomplete="off"></label></fieldset>').join('');
  return '<h2>Question</h2><p>' + esc(c.requester || c.agentId) + ' asks:</p>' + qs + '<div class="answer-row"><button class="button primary" data-kind="answered">Answer</button><button class="button" data-kind="declined">Decline</button></div>';
}
function planCard(c) {
  const p = c.plan || { text: '', options: [], path: '' };
  return '<h2>Plan for approval</h2><p>' + esc(c.requester || c.agentId) + ' presents a plan (' + esc(p.path) + '):</p><pre class="call">' + esc(p.text) + '</pre><div class="answer-row">' +
    '<button class="button primary" data-kind="approve">Approve</button>' + p.options.map((o) => '<button class="button" data-kind="option" data-label="' + esc(o.label) + '" title="' + esc(o.description) + '">' + esc(o.label) + '</button>').join('') +
    '<label class="feedback">Feedback (optional) <input name="feedback" autocomplete="off"></label><button class="button" data-kind="revise">Revise</button><button class="button danger" data-kind="reject">Reject</button><button class="button danger" data-kind="reject_and_exit">Reject and Exit</button></div>';
}
function answerBody(card, c, kind, button) {
  const feedback = card.querySelector('input[name=feedback]');
  const body = { callId: c.callId, agentId: c.agentId, kind };
  if (feedback && feedback.value.trim()) body.feedback = feedback.value.trim();
  if (kind === 'option') body.label = button.dataset.label;
  if (kind === 'answered') {
    delete body.kind;
    body.answers = (c.questions || []).map((q, i) => {
      const selected = [...card.querySelectorAll('input[name=q' + i + ']:checked')].map((el) => el.value);
      const other = card.querySelector('input[name=other' + i + ']').value.trim();
      return other ? { selected, otherText: other } : { selected };
    });
  }
  return body;
}
async function showPending(m) {
  // Only in the console (a report file makes no request).
  if (!$('nav a.brand')) return;
  let box = $('#pending');
  if (m.status !== 'waiting') { if (box && !box.dataset.following) box.remove(); pendingShown = ''; return; }
  if (pendingShown === m.id) return;
  pendingShown = m.id;
  const res = await api('GET', '/api/sessions/' + encodeURIComponent(m.id) + '/pending');
  // The status may have changed meanwhile (another render): only the latest request draws.
  if (!res.ok || pendingShown !== m.id) return;
  box = $('#pending');
  if (!box) { box = document.createElement('section'); box.id = 'pending'; $('#meta').after(box); }
  const { held, runBy } = res.data;
  box.innerHTML = runBy ? '<p class="error">This session is being run by another murmur (' + esc(runBy) + '): answer it once that run has stopped.</p>' : '';
  for (const c of held) {
    const card = document.createElement('div');
    card.className = 'pending-card'; card.dataset.call = c.callId;
    card.innerHTML = (c.kind === 'approval' ? approvalCard(c) : c.kind === 'question' ? questionCard(c) : planCard(c)) + '<p class="error" data-error="answer"></p>';
    if (c.answer) { for (const b of card.querySelectorAll('button')) b.disabled = true; card.insertAdjacentHTML('beforeend', '<p class="muted">Answered; waiting for the other requests.</p>'); }
    if (runBy) for (const b of card.querySelectorAll('button')) b.disabled = true;
    for (const b of card.querySelectorAll('button[data-kind]')) b.addEventListener('click', async () => {
      const kind = b.dataset.kind;
      for (const other of card.querySelectorAll('button')) other.disabled = true;
      const r = await api('POST', '/api/sessions/' + encodeURIComponent(m.id) + '/answers', answerBody(card, c, kind, b));
      if (!r.ok) { card.querySelector('[data-error=answer]').textContent = (r.data && r.data.error) || 'failed: HTTP ' + r.status; for (const other of card.querySelectorAll('button')) other.disabled = false; return; }
      card.insertAdjacentHTML('beforeend', '<p class="muted" data-answered>' + (r.data.waiting ? 'Answered; ' + r.data.waiting + ' more to answer before the run carries on.' : 'Answered: the run carries on.') + '</p>');
      if (!r.data.waiting) followResume(m.id);
    });
    box.appendChild(card);
  }
}
// The resume starts in its own process: wait until it runs (or, quick, is held again at a new request), then
// draw the session again and follow it live.
async function followResume(id) {
  $('#pending').dataset.following = '1';
  for (let i = 0; i < 240; i++) {
    await new Promise((r) => setTimeout(r, 250));
    const p = await api('GET', '/api/sessions/' + encodeURIComponent(id) + '/pending');
    if (!p.ok || (p.data.status === 'waiting' && !p.data.held.some((c) => !c.answer))) continue;
    const res = await api('GET', '/api/sessions/' + encodeURIComponent(id));
    if (!res.ok) continue;
    delete $('#pending').dataset.following;
    pendingShown = '';
    $('#pending').remove();
    renderSession(res.data);
    if (res.data.status === 'running') followLive(id);
    return;
  }
}
// ---- a task's History, live ----
function setupHistoryLive(box) {
  if (typeof EventSource === 'undefined') return;
  const es = new EventSource('/api/tasks/' + encodeURIComponent(box.dataset.task) + '/events');
  es.addEventListener('history', (ev) => { box.innerHTML = ev.data; box.dataset.version = String((Number(box.dataset.version) || 0) + 1); });
  es.addEventListener('meta', (ev) => { const meta = $('#task-meta'); if (meta) meta.textContent = ev.data; });
}
`;

export const ANSWER_CSS = `.pending-card{background:#fff8ec;border:1px solid #e8c48a;border-radius:10px;padding:12px 16px;margin:12px 0}.pending-card h2{font-size:15px;margin:0 0 6px;color:#7a4500}
.pending-card pre{background:#fff;border:1px solid var(--line);border-radius:6px;padding:8px;white-space:pre-wrap;word-break:break-word;margin:6px 0}.answer-row{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin-top:8px}
.answer-row .feedback input{margin-left:4px;min-width:260px;font:inherit;padding:4px}.question{border:1px solid var(--line);border-radius:6px;margin:6px 0}.question label{display:block;margin:2px 0}.muted{color:var(--muted)}
.state-waiting{font-weight:600}.problem{color:#b3261e}.notice{background:#fff;border:1px solid var(--line);border-radius:10px;padding:12px 16px}
pre.log{background:#111;color:#eee;padding:12px;border-radius:8px;white-space:pre-wrap;word-break:break-word;font-size:12px}td.result a.log{margin-left:6px;font-size:12px}tr.requested td{color:var(--muted);font-style:italic}`;
