// The task form's part of the page script (plain ES2020, spliced into CONSOLE_JS, where `$`, `esc` and `api`
// are defined). The schedule is read only from the fields the chosen kind uses (their `data-for`), so a value
// in a hidden field is never sent; missing or out-of-range values are named in plain words before anything is
// sent (an empty Monthly time is "Choose the time of day…", never a cron). Errors have two sources kept apart:
// the live preview's, and the last submit's — the preview never clears a submit error; a submit error goes when
// the person edits what it names, or at the next submit.
export const TASK_FORM_JS = String.raw`
// ---- the task form ----
const KIND_WORDS = { hourly: 'an hourly', daily: 'a daily', weekday: 'an every-weekday', weekly: 'a weekly', monthly: 'a monthly', custom: 'a custom', once: 'a one-time' };
const UNIT_WORDS = { d: 'days', w: 'weeks', mo: 'months' };
const SCHEDULE_FIELDS = new Set(['kind', 'minute', 'date', 'day', 'dom', 'everyN', 'everyUnit', 'every', 'start', 'time', 'at', 'cron', 'timezone', 'until', 'maxFires', 'recurring']);
const SLOT = { at: 'time', every: 'everyN' };
const formErrors = { preview: [], submit: [] };
const kindOf = (form) => (form.querySelector('input[name=kind]:checked') || {}).value || 'weekly';
function applies(form, name, kind) {
  const el = form.elements[name];
  if (!el) return false;
  const box = el.closest('[data-for]');
  return !box || box.dataset.for.split(' ').includes(kind);
}
function scheduleInput(form) {
  const kind = kindOf(form);
  const v = (n) => (applies(form, n, kind) ? String(form.elements[n].value).trim() : '');
  const input = { timezone: v('timezone') };
  const errors = [];
  const need = (field, ok, message) => { if (!ok) errors.push({ field, message }); return ok; };
  const whole = (text, lo, hi) => /^\d+$/.test(text) && Number(text) >= lo && Number(text) <= hi;
  const clock = /^(\d{1,2}):(\d{2})$/.exec(v('time'));
  if (applies(form, 'time', kind)) need('time', clock, 'Choose the time of day it runs (for example 09:00): ' + KIND_WORDS[kind] + ' schedule needs one.');
  const hm = clock ? Number(clock[2]) + ' ' + Number(clock[1]) : '';
  if (kind === 'hourly') {
    if (need('minute', whole(v('minute'), 0, 59), 'Choose the minute past each hour it runs, from 0 to 59.')) input.cron = Number(v('minute')) + ' * * * *';
  } else if (kind === 'daily' || kind === 'weekday' || kind === 'weekly') {
    if (clock) input.cron = hm + ' * * ' + (kind === 'daily' ? '*' : kind === 'weekday' ? '1-5' : v('day'));
  } else if (kind === 'monthly') {
    if (need('dom', whole(v('dom'), 1, 31), 'Choose the day of the month it runs, from 1 to 31.') && clock) input.cron = hm + ' ' + Number(v('dom')) + ' * *';
  } else if (kind === 'custom') {
    const n = need('everyN', whole(v('everyN'), 1, 1000), 'Choose how many ' + UNIT_WORDS[v('everyUnit')] + ' apart the runs are, from 1 to 1000.');
    const start = need('start', v('start'), 'Choose the first day it runs (Starting).');
    if (n && start && clock) Object.assign(input, { every: Number(v('everyN')) + v('everyUnit'), at: v('time'), start: v('start') });
  } else if (kind === 'once') {
    if (need('date', v('date'), 'Choose the day it runs.') && clock) Object.assign(input, { every: '1d', at: v('time'), start: v('date'), until: v('date') });
  } else if (kind === 'cron') input.cron = v('cron');
  if (v('until')) input.until = v('until');
  if (v('maxFires')) input.maxFires = v('maxFires');
  input.recurring = kind === 'once' ? false : kind === 'cron' ? form.elements.recurring.value !== 'false' : true;
  return { kind, input, errors };
}
function taskInput(form) {
  const v = (n) => (form.elements[n] ? form.elements[n].value.trim() : '');
  const { input, errors } = scheduleInput(form);
  input.title = v('title');
  input.prompt = form.elements.prompt.value;
  for (const k of ['permissionMode', 'model', 'effort']) if (v(k)) input[k] = v(k);
  // "Other…": the model is the spec typed next to the select.
  if (v('model') === 'other') {
    delete input.model;
    if (v('modelOther')) input.model = v('modelOther');
    else errors.push({ field: 'model', message: 'Type the model (for example openai:gpt-4.1 or scripted:FILE), or choose one from the list.' });
  }
  if (v('workspace') && !form.elements.workspace.disabled) input.workspace = v('workspace');
  return { input, errors };
}
function showKind(form) {
  const kind = kindOf(form);
  for (const el of form.querySelectorAll('[data-for]')) el.hidden = !el.dataset.for.split(' ').includes(kind);
}
// The store's words, told for the fields a person sees: a one-time task's past day is "already past".
function plainErrors(form, errors) {
  const kind = kindOf(form);
  return (errors || []).map((e) => {
    if (kind === 'once' && (e.field === 'start' || e.field === 'until')) {
      const zone = form.elements.timezone.value;
      return { field: 'date', message: /never fires/.test(e.message) ? 'That day and time are already past in ' + zone + ': choose a later one.' : e.message };
    }
    return e;
  });
}
function renderErrors(form) {
  for (const el of form.querySelectorAll('[data-error]')) el.textContent = '';
  const seen = new Set();
  for (const e of [...formErrors.submit, ...formErrors.preview]) {
    const key = e.field + '\n' + e.message;
    if (seen.has(key)) continue;
    seen.add(key);
    const el = form.querySelector('[data-error="' + (SLOT[e.field] || e.field) + '"]') || form.querySelector('[data-error="form"]');
    el.textContent += (el.textContent ? ' ' : '') + e.message;
  }
}
const group = (name) => (SCHEDULE_FIELDS.has(name) ? 'schedule' : name === 'modelOther' ? 'model' : name);
const fmt = (iso, zone) => iso ? esc(iso.slice(0, 10) + ' ' + iso.slice(11, 16)) + '<span class="zone">' + esc(zone) + '</span>' : 'none';
let previewTimer, previewSeq = 0;
function preview(form) {
  clearTimeout(previewTimer);
  form.dataset.preview = 'pending'; // "done" once the timeline shows the latest edit (tests wait for it)
  previewTimer = setTimeout(async () => {
    const seq = ++previewSeq;
    const { input, errors } = scheduleInput(form);
    const list = $('#predicted'), note = $('#predicted-note');
    const none = () => { list.innerHTML = '<li class="theoretical">—</li><li>—</li><li>—</li>'; note.textContent = ''; };
    const done = () => { form.dataset.preview = 'done'; };
    if (errors.length) { formErrors.preview = errors; renderErrors(form); none(); return done(); }
    const res = await api('POST', '/api/preview', form.dataset.task ? Object.assign({ task: form.dataset.task }, input) : input);
    if (seq !== previewSeq) return; // a later edit asked again
    formErrors.preview = res.ok ? [] : plainErrors(form, (res.data && res.data.errors) || []);
    renderErrors(form);
    if (!res.ok) { none(); return done(); }
    const p = res.data;
    list.innerHTML = '<li class="theoretical" title="computed from the schedule, not a run record">theoretical last: ' + fmt(p.theoretical, p.zone) + '</li>' +
      '<li class="next">next: ' + fmt(p.next[0], p.zone) + '</li><li class="after">then: ' + fmt(p.next[1], p.zone) + '</li>';
    note.textContent = p.note || '';
    done();
  }, 150);
}
// After a save the page comes back with ?saved=1: "Saved." goes into the status region once the page is up (a
// change a screen reader announces), and the flag leaves the address so a reload does not say it again.
function showSaved(form) {
  const status = $('#task-status');
  const params = new URLSearchParams(location.search);
  if (!status || params.get('saved') !== '1') return;
  params.delete('saved');
  window.history.replaceState(null, '', location.pathname + (params.toString() ? '?' + params : ''));
  setTimeout(() => { status.className = 'notice'; status.textContent = 'Saved.'; }, 100);
  form.addEventListener('input', () => { status.className = ''; status.textContent = ''; }, { once: true });
}
function setupForm(form) {
  showKind(form);
  preview(form);
  showSaved(form);
  const schedule = form.querySelector('.schedule');
  const edited = (ev) => {
    const g = group(ev.target.name);
    formErrors.submit = formErrors.submit.filter((e) => group(e.field) !== g);
    if (schedule.contains(ev.target)) { showKind(form); preview(form); } else renderErrors(form);
  };
  form.addEventListener('input', edited);
  form.addEventListener('change', edited);
  const model = form.elements.model, other = form.elements.modelOther;
  if (model && other) model.addEventListener('change', () => { other.hidden = model.value !== 'other'; if (!other.hidden) other.focus(); });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const id = form.dataset.task;
    const { input, errors } = taskInput(form);
    const shown = (list) => {
      formErrors.submit = list;
      renderErrors(form);
      const first = [...form.querySelectorAll('[data-error]')].find((el) => el.textContent);
      if (first) first.scrollIntoView({ block: 'center' });
    };
    if (errors.length) return shown(errors);
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    const res = id ? await api('PUT', '/api/tasks/' + encodeURIComponent(id), input) : await api('POST', '/api/tasks', input);
    button.disabled = false;
    if (!res.ok) return shown(plainErrors(form, (res.data && res.data.errors) || [{ field: 'form', message: (res.data && res.data.error) || 'The console did not save it (HTTP ' + res.status + ').' }]));
    location.href = id ? '/tasks/' + encodeURIComponent(id) + '?tab=settings&saved=1' : '/tasks';
  });
}
function setupActions(box) {
  for (const b of box.querySelectorAll('[data-action]')) b.addEventListener('click', async () => {
    const id = box.dataset.task, action = b.dataset.action;
    if (action === 'delete' && !confirm('Delete the scheduled task "' + box.dataset.title + '"? Its run history goes with it; this cannot be undone.')) return;
    const res = action === 'delete' ? await api('DELETE', '/api/tasks/' + encodeURIComponent(id)) : await api('POST', '/api/tasks/' + encodeURIComponent(id) + '/' + action);
    if (!res.ok) { $('[data-error="action"]').textContent = (res.data && res.data.error) || 'failed: HTTP ' + res.status; return; }
    location.href = action === 'delete' ? '/tasks' : '/tasks/' + encodeURIComponent(id) + (action === 'run-now' ? '?tab=history' : location.search);
  });
}
`;
