// The page script's part for starting and stopping work (plain ES2020 inside the console's script, which defines
// `$`, `esc` and `api`): the New run and New swarm forms (errors next to the field they name; the swarm's item
// count as one types, and a glob's matches counted by the console as one types), and a session page's Stop and
// Resume, which say why they are disabled and follow the session's status as it changes.
export const RUN_FORM_CSS = `
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.start-form .selectors{grid-template-columns:repeat(3,1fr)}.start-form .selectors input:not([type=checkbox]){width:100%}.start-form .selectors label:has(>[type=checkbox]){align-self:end}
.start-form textarea[name=items]{font-family:ui-monospace,monospace}
.control-note{color:var(--muted);font-size:13px;margin:0 0 8px}
.model-other{width:100%;font:inherit;padding:4px;margin-top:4px;box-sizing:border-box}
`;

export const RUN_FORM_JS = `
// ---- New run / New swarm ----
function startFormBody(form) {
  const v = (name) => { const el = form.elements[name]; return el ? el.value.trim() : ''; };
  const body = {};
  for (const name of ['model', 'effort', 'permissionMode']) if (v(name)) body[name] = v(name);
  if (form.dataset.kind === 'run') {
    body.task = form.elements.task.value;
    if (v('agent')) body.agent = v('agent');
    return body;
  }
  body.template = form.elements.template.value;
  if (form.elements.source.value === 'glob') body.glob = v('glob');
  else body.items = form.elements.items.value.split(/\\r?\\n/).map((l) => l.trim()).filter(Boolean);
  body.role = v('role');
  if (form.elements.verify.checked) { body.verify = true; if (v('maxRounds')) body.maxRounds = v('maxRounds'); }
  if (form.elements.isolation.checked) body.isolation = 'worktree';
  if (v('maxConcurrency')) body.maxConcurrency = v('maxConcurrency');
  return body;
}
function showStartErrors(form, errors) {
  for (const el of form.querySelectorAll('[data-error]')) el.textContent = '';
  for (const e of errors) {
    const el = form.querySelector('[data-error="' + CSS.escape(e.field) + '"]') || form.querySelector('[data-error="form"]');
    el.textContent = el.textContent ? el.textContent + ' ' + e.message : e.message;
  }
  const first = [...form.querySelectorAll('[data-error]')].find((el) => el.textContent);
  if (first) first.scrollIntoView({ block: 'center' });
}
function setupStartForm(form) {
  const button = form.querySelector('button[type=submit]');
  form.addEventListener('input', (ev) => {
    const name = ev.target.name;
    const el = name && form.querySelector('[data-error="' + CSS.escape(name) + '"]');
    if (el) el.textContent = '';
  });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    button.disabled = true;
    form.dataset.state = 'starting';
    const body = startFormBody(form);
    // Over the console's limit, said here in words: the server would refuse it (413) after reading it all.
    const bytes = new Blob([JSON.stringify(body)]).size, limit = Number(form.dataset.maxBytes);
    const res = limit && bytes > limit ? { ok: false, status: 413, data: { error: 'the form holds ' + megabytes(bytes) + ' and the console takes up to ' + megabytes(limit) } }
      : await api('POST', form.dataset.kind === 'run' ? '/api/runs' : '/api/swarms', body);
    if (res.ok) { form.dataset.state = 'started'; location.href = res.data.url; return; }
    button.disabled = false;
    form.dataset.state = 'error';
    if (res.status === 413) { showStartErrors(form, [{ field: form.dataset.kind === 'run' ? 'task' : 'items', message: tooLarge(form, res.data && res.data.error) }]); return; }
    showStartErrors(form, (res.data && res.data.errors) || [{ field: 'form', message: (res.data && res.data.error) || 'HTTP ' + res.status }]);
  });
  if (form.dataset.kind === 'swarm') setupItems(form);
}
function megabytes(n) { return (n / 1048576).toFixed(1) + ' MB'; }
function tooLarge(form, why) {
  const instead = form.dataset.kind === 'run' ? 'Put the long part in a file in the workspace and name it in the task.'
    : 'Put the items in a file and start the swarm with murmur swarm --items-file FILE (or --glob).';
  return 'Too large: ' + (why || "over the console's limit") + '. ' + instead;
}
function setupItems(form) {
  const items = form.elements.items, glob = form.elements.glob;
  const countItems = () => {
    const n = items.value.split(/\\r?\\n/).filter((l) => l.trim()).length;
    $('#items-count').textContent = plural(n, 'item');
  };
  items.addEventListener('input', countItems);
  countItems();
  let seq = 0, timer;
  const countGlob = async () => {
    const mine = ++seq, pattern = glob.value.trim(), out = $('#glob-count');
    if (!pattern) { out.textContent = ''; return; }
    const res = await api('POST', '/api/glob-count', { glob: pattern });
    if (mine !== seq) return;
    if (!res.ok) { out.textContent = (res.data && res.data.errors && res.data.errors[0].message) || 'HTTP ' + res.status; return; }
    const d = res.data;
    out.textContent = plural(d.count, 'file matches', 'files match') + (d.count ? ': ' + d.sample.join(', ') + (d.count > d.sample.length ? ', …' : '') : '');
    out.dataset.count = String(d.count);
  };
  glob.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(countGlob, 150); });
  const showSource = () => {
    const source = form.elements.source.value;
    for (const el of form.querySelectorAll('[data-source]')) el.hidden = el.dataset.source !== source;
  };
  for (const r of form.querySelectorAll('input[name=source]')) r.addEventListener('change', showSource);
  const verify = form.elements.verify;
  verify.addEventListener('change', () => { form.querySelector('[data-verify]').hidden = !verify.checked; });
}
for (const f of document.querySelectorAll('form.start-form')) setupStartForm(f);

// ---- a session's Stop and Resume ----
function setupControls(id) {
  const bar = $('header.bar');
  const box = document.createElement('div');
  box.className = 'actions'; box.id = 'session-actions';
  bar.appendChild(box);
  const note = document.createElement('p');
  note.className = 'control-note'; note.id = 'control-note';
  bar.after(note);
  const base = '/api/sessions/' + encodeURIComponent(id);
  let polling;
  const render = (ctl) => {
    box.innerHTML = '';
    note.textContent = '';
    const action = ctl.stop ? ['stop', 'Stop', ctl.stop] : ctl.resume ? ['resume', 'Resume', ctl.resume] : null;
    box.dataset.status = ctl.status;
    if (!action) return;
    const b = document.createElement('button');
    b.className = 'button' + (action[0] === 'stop' ? ' danger' : ' primary');
    b.textContent = action[1]; b.dataset.action = action[0];
    b.disabled = !action[2].enabled;
    if (action[2].reason) { b.title = action[2].reason; if (!action[2].enabled) { note.textContent = action[2].reason; b.setAttribute('aria-describedby', 'control-note'); } }
    b.addEventListener('click', () => act(action[0], b));
    box.appendChild(b);
  };
  const refresh = async () => {
    const res = await api('GET', base + '/control');
    if (res.ok) render(res.data);
    return res.ok ? res.data : null;
  };
  const act = async (what, b) => {
    // Stop asks first, naming what will stop (retry-script.ts).
    if (what === 'stop' && !(await confirmStop(id))) return;
    b.disabled = true;
    b.textContent = what === 'stop' ? 'Stopping…' : 'Resuming…';
    const res = await api('POST', base + '/' + what);
    if (!res.ok) { b.textContent = what === 'stop' ? 'Stop' : 'Resume'; note.textContent = (res.data && res.data.error) || 'HTTP ' + res.status; await refresh(); return; }
    // A resumed session is live again: the page reloads to follow it.
    if (what === 'resume') { location.reload(); return; }
    clearInterval(polling);
    polling = setInterval(async () => { const ctl = await refresh(); if (ctl && !ctl.running) clearInterval(polling); }, 500);
  };
  // The session's status changes as its events arrive: Stop and Resume follow it.
  const status = $('#status');
  let seen = status && status.textContent;
  // A run says it ended (run.end) a moment before its process lets the session go: until it has, ask again.
  const settle = async (tries) => { const ctl = await refresh(); if (ctl && ctl.running && seen !== 'running' && tries > 0) setTimeout(() => settle(tries - 1), 250); };
  const changed = () => { if (status.textContent !== seen) { seen = status.textContent; settle(40); } };
  if (status) new MutationObserver(changed).observe(status, { childList: true, characterData: true, subtree: true });
  refresh();
}
{
  // A session page of the console (a saved report has no console to ask).
  const m = /^[/]sessions[/]([^/]+)$/.exec(location.pathname);
  if (m && $('#status') && $('a.brand')) setupControls(decodeURIComponent(m[1]));
}
`;
