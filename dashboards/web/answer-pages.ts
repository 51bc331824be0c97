// Pages of the console's answer routes: a scheduled run's log, and a session that cannot be shown (not there yet,
// or its state unreadable — with the reason `murmur sessions` gives).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readScheduledMarker } from '../../scheduler/held.js';
import { summarizeState } from '../../orchestrator/session-list.js';
import { h, layout, type Assets } from './pages.js';
import { isSessionId, sessionDir } from './session-source.js';

export function runLogPage(
  task: { id: string; title: string },
  runId: string,
  log: string | undefined,
  assets: Assets,
): string {
  const body = `<header class="bar"><h1>Log of run ${h(runId)}</h1><a class="button" href="/tasks/${h(task.id)}?tab=history">${h(task.title)}: History</a></header>
<p class="meta">What the run wrote to its log (its error output; a resume started from the console adds its own lines). <a href="/api/tasks/${h(task.id)}/runs/${h(runId)}/log">Plain text</a></p>
${log === undefined ? '<p class="empty">This run wrote no log.</p>' : log === '' ? '<p class="empty">The log is empty: the run wrote nothing to it.</p>' : `<pre class="log">${h(log)}</pre>`}`;
  return layout(`Log of ${runId} — murmur`, body, { nav: 'tasks', assets });
}

/** The page for a session id the console cannot show, saying why. */
export function missingSessionPage(home: string, id: string, assets: Assets): string {
  const dir = isSessionId(id) ? sessionDir(home, id) : undefined;
  let reason: string;
  if (!dir || !existsSync(dir)) {
    reason = `There is no session ${JSON.stringify(id)} in this workspace (${home}) yet. A scheduled run's session appears once the run starts; a run that failed before that has none — its task's History says why and links to its log.`;
  } else {
    let text: string | undefined;
    try {
      text = readFileSync(join(dir, 'state.json'), 'utf8');
    } catch {
      text = undefined;
    }
    const problem = summarizeState(id, text, dir).problem;
    reason = `Session ${id} cannot be shown: ${problem ?? 'it holds nothing to show yet'}.`;
  }
  const marker = dir ? readScheduledMarker(dir) : undefined;
  const task = marker
    ? ` It belongs to a run of a <a href="/tasks/${h(marker.taskId)}?tab=history">scheduled task</a>.`
    : '';
  const body = `<header class="bar"><h1>Session ${h(id)}</h1></header><p class="notice">${h(reason)}${task}</p><p><a class="button" href="/sessions">All sessions</a></p>`;
  return layout(`Session ${id} — murmur`, body, { nav: 'sessions', assets });
}
