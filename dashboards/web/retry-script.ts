// The page script's part for a session's Retry failed and Stop's confirmation (plain ES2020 inside the console's
// script, which defines `$`, `esc`, `api` and `current`). "Retry failed (N)" stands next to Stop/Resume on a swarm
// session that ended with N items that failed, conflicted, were aborted or failed their verification (the
// console's `GET /api/sessions/:id/retry` counts them); it asks the console to run them again and reloads the page
// to follow the session live. Stop asks first, in a dialog naming what will stop.

export const RETRY_CSS = `
.items-list .earlier{display:block;color:var(--muted);font-size:12px;margin-top:2px}
#retry-actions:empty{display:none}header.bar:has(#retry-actions:not(:empty)) #session-actions{margin-left:auto}
#stop-confirm{border:1px solid var(--line);border-radius:10px;padding:16px 18px;max-width:30em;color:var(--fg)}
#stop-confirm::backdrop{background:rgba(0,0,0,.35)}#stop-confirm p{margin:0 0 14px}#stop-confirm .actions{justify-content:flex-end}`;

export const RETRY_JS = `
// ---- a session's Retry failed, and Stop's confirmation ----
/** What a stop ends, in words: the running agents and the items still waiting to start. */
function stopWords(id) {
  const m = current || { agents: [], swarms: [] };
  const running = m.agents.filter((a) => a.state === 'running').length;
  let queued = 0;
  for (const s of m.swarms) queued += (s.counts.queued || 0) + (s.counts.rate_limited || 0);
  const parts = ['running agents: ' + running];
  if (m.swarms.length) parts.push('queued items: ' + queued);
  return 'Stop session ' + id + '? It ends its work now (' + parts.join(', ') + '); you can resume it later.';
}

/** Asks before a Stop; resolves true on Confirm. A page without dialogs stops as it always did. */
function confirmStop(id) {
  if (typeof HTMLDialogElement !== 'function') return Promise.resolve(true);
  let d = $('#stop-confirm');
  if (!d) {
    d = document.createElement('dialog');
    d.id = 'stop-confirm'; d.setAttribute('aria-labelledby', 'stop-confirm-text');
    d.innerHTML = '<form method="dialog"><p id="stop-confirm-text"></p><div class="actions">' +
      '<button class="button" value="cancel" autofocus>Cancel</button><button class="button danger" value="confirm">Confirm stop</button></div></form>';
    document.body.appendChild(d);
  }
  $('#stop-confirm-text', d).textContent = stopWords(id);
  d.returnValue = '';
  return new Promise((resolve) => {
    d.addEventListener('close', () => resolve(d.returnValue === 'confirm'), { once: true });
    d.showModal();
  });
}

function setupRetry(id) {
  const base = '/api/sessions/' + encodeURIComponent(id) + '/retry';
  const box = document.createElement('div');
  box.className = 'actions'; box.id = 'retry-actions';
  $('header.bar').appendChild(box);
  const note = $('#control-note');
  const refresh = async () => {
    const res = await api('GET', base);
    const n = res.ok && !res.data.running ? res.data.count : 0;
    box.innerHTML = '';
    if (n === 0) return;
    const b = document.createElement('button');
    b.type = 'button'; b.id = 'retry'; b.className = 'button';
    b.textContent = 'Retry failed (' + n + ')';
    b.title = 'Runs again, each with a fresh agent, the items that failed, conflicted, were aborted or failed their verification (murmur resume ' + id + ' --retry-failed).';
    b.addEventListener('click', async () => {
      b.disabled = true; b.textContent = 'Retrying…';
      const r = await api('POST', base, { failed: true });
      // The items run again in this session: the page reloads to follow it live.
      if (r.ok) { location.reload(); return; }
      b.disabled = false; b.textContent = 'Retry failed (' + n + ')';
      if (note) note.textContent = 'Could not retry: ' + ((r.data && r.data.error) || 'the console answered ' + r.status) + '.';
    });
    box.appendChild(b);
  };
  // Offered once the session has ended: asked again whenever its status changes.
  const status = $('#status');
  let seen = status && status.textContent;
  if (status) new MutationObserver(() => { if (status.textContent !== seen) { seen = status.textContent; setTimeout(refresh, 300); } })
    .observe(status, { childList: true, characterData: true, subtree: true });
  refresh();
}
{
  // A swarm session's page of the console (a saved report has no console to ask).
  const m = /^[/]sessions[/]([^/]+)$/.exec(location.pathname);
  if (m && $('#status') && $('a.brand') && $('header.bar')) setupRetry(decodeURIComponent(m[1]));
}
`;
