// The console's pages as server-rendered HTML: a layout, the scheduled tasks (list, form, detail) and the
// sessions (list, session page). Every value goes through `h()`; data for the page's script travels as JSON in a
// <script type="application/json"> block, escaped so no text can close it.
import type { ScheduledTask, RunRecord } from '../../scheduler/types.js';
import { describeSchedule, nextIdealTimes, taskStatus } from '../../scheduler/task-view.js';
import { runDuration, scheduleNote, timedRun } from '../../scheduler/schedule-words.js';
import { isoInZone } from '../../scheduler/schedule.js';
import type { SessionSummary } from '../../orchestrator/session-list.js';
import { shortTime } from './task-forms.js';
import { h } from './html.js';
import { taskForm, type FormChoices } from './task-form-html.js';
import { FAVICON_LINK } from './no-token.js';

export { h } from './html.js';
export type { FormChoices } from './task-form-html.js';
import type { SessionModel } from './session-model.js';
import { plural } from '../plural.js';

const SCRIPT_UNSAFE: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** JSON text made safe inside a <script> element (one pass: a session model can be megabytes). */
export function scriptSafe(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (c) => SCRIPT_UNSAFE[c]!);
}

export interface Assets {
  css: string;
  js: string;
  /** Inline both (the self-contained report) instead of linking /assets/…. */
  inline?: boolean;
}

export function layout(
  title: string,
  body: string,
  options: { nav?: 'tasks' | 'sessions'; assets: Assets; data?: unknown; dataJson?: string },
): string {
  const { assets } = options;
  const head = `${FAVICON_LINK}${assets.inline ? `<style>${assets.css}</style>` : '<link rel="stylesheet" href="/assets/console.css">'}`;
  const script = assets.inline
    ? `<script>${assets.js.replace(/<\/script/gi, '<\\/script')}</script>`
    : '<script src="/assets/console.js" defer></script>';
  const json = options.dataJson ?? (options.data === undefined ? undefined : JSON.stringify(options.data));
  const data = json === undefined ? '' : `<script type="application/json" id="data">${scriptSafe(json)}</script>`;
  const nav = assets.inline
    ? '<span class="brand">murmur report</span>'
    : `<a class="brand" href="/">murmur</a><a href="/tasks"${options.nav === 'tasks' ? ' class="on"' : ''}>Scheduled tasks</a><a href="/sessions"${options.nav === 'sessions' ? ' class="on"' : ''}>Sessions</a>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${h(title)}</title>${head}</head><body><nav aria-label="Console">${nav}</nav><main>${body}</main>${data}${script}</body></html>`;
}

// ---- scheduled tasks ----

export const STATUS_FILTERS = ['all', 'active', 'paused', 'failed', 'ended'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

export interface TaskRow {
  task: ScheduledTask;
  history: RunRecord[];
}

/**
 * "rule · next run · run count", the card's last line (every run counts, run-now ones too). A paused or ended
 * task says so instead of a next run it will not make.
 */
export function cardLine(task: ScheduledTask, history: readonly RunRecord[], now: number): string {
  return `${describeSchedule(task)} · ${whenNext(task, now)} · ${runCount(task, history)}`;
}

function runCount(task: ScheduledTask, history: readonly RunRecord[]): string {
  return plural(Math.max(task.fires, history.length), 'run');
}

function whenNext(task: ScheduledTask, now: number): string {
  const next = task.ended || task.paused ? undefined : nextIdealTimes(task, now, 1)[0];
  return task.ended
    ? 'ended'
    : task.paused
      ? 'paused'
      : next
        ? `next ${next.slice(0, 10)} ${next.slice(11, 16)}` // its zone is in the schedule's phrase
        : 'no next run';
}

function summary(prompt: string): string {
  const text = prompt.replace(/\s+/g, ' ').trim();
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

export function tasksPage(rows: readonly TaskRow[], filter: StatusFilter, now: number, assets: Assets): string {
  const filters = STATUS_FILTERS.map(
    (f) =>
      `<a href="/tasks${f === 'all' ? '' : `?status=${f}`}" class="filter${f === filter ? ' on" aria-current="page' : ''}" data-filter="${f}">${f[0]!.toUpperCase()}${f.slice(1)}</a>`,
  ).join('');
  const shown = rows.filter((r) => filter === 'all' || taskStatus(r.task, r.history) === filter);
  const cards = shown
    .map(
      ({ task, history }) =>
        `<a class="card" href="/tasks/${h(task.id)}" data-id="${h(task.id)}"><h3>${h(task.title)}</h3><p class="summary">${h(summary(task.prompt))}</p><p class="rule">${h(cardLine(task, history, now))}</p></a>`,
    )
    .join('');
  const empty =
    shown.length === 0
      ? `<p class="empty">${filter === 'all' ? 'No scheduled tasks yet.' : `No ${filter} tasks.`}</p>`
      : '';
  return layout(
    'Scheduled tasks — murmur',
    `<header class="bar"><h1>Scheduled tasks</h1><a class="button" href="/tasks/new">New task</a></header><nav class="filters" aria-label="Filter by status">${filters}</nav>${empty}<div class="cards">${cards}</div>`,
    { nav: 'tasks', assets },
  );
}

export function newTaskPage(choices: FormChoices, assets: Assets): string {
  return layout('New task — murmur', `<header class="bar"><h1>New scheduled task</h1></header>${taskForm(choices)}`, {
    nav: 'tasks',
    assets,
  });
}

const TRIGGERS: Record<string, string> = { scheduled: 'scheduled', 'run-now': 'run now', queued: 'queued' };
const STATES: Record<string, string> = {
  running: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
  'waiting-for-approval': 'waiting for approval',
  interrupted: 'interrupted',
};

function lateness(run: RunRecord): string {
  // A "Run now" stands for no fire time: it is not late. Rounded as the command line's `lateWords` rounds.
  if (!timedRun(run)) return '—';
  const ms = run.lateMs;
  const s = Math.round(Math.abs(ms) / 1000);
  if (s === 0) return 'on time';
  const text = s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
  return ms < 0 ? `${text} early` : `${text} late`;
}

/** A run that stands for several missed fires says how many. */
const coalesced = (r: RunRecord) =>
  r.coalescedCount > 1 ? ` <span class="coalesced">(${r.coalescedCount} fires in one)</span>` : '';

export function historyTable(task: ScheduledTask, history: readonly RunRecord[]): string {
  // Run now gives feedback at once: the request waits for the scheduler's next check.
  const requested = task.runNowAt
    ? `<tr class="requested"><td class="trigger">run now</td><td colspan="7">requested — it starts at the scheduler's next check</td></tr>`
    : '';
  if (history.length === 0 && !requested) return '<p class="empty">No runs yet.</p>';
  const rows = [...history]
    .reverse()
    .map((r) => {
      const session = r.sessionId ? `<a href="/sessions/${h(r.sessionId)}">${h(r.sessionId)}</a>` : '—';
      const log = `<a class="log" href="/tasks/${h(task.id)}/runs/${h(r.id)}/log">log</a>`;
      return `<tr data-run="${h(r.id)}" data-state="${h(r.state)}"><td class="trigger">${h(TRIGGERS[r.trigger] ?? r.trigger)}${coalesced(r)}</td><td>${h(shortTime(isoInZone(r.planned, task.timezone), task.timezone))}</td><td>${h(shortTime(isoInZone(r.started, task.timezone), task.timezone))}</td><td>${h(lateness(r))}</td><td class="duration">${h(runDuration(r))}</td><td class="state state-${h(r.state)}">${h(STATES[r.state] ?? r.state)}</td><td>${session}</td><td class="result">${h(r.summary ?? '')} ${log}</td></tr>`;
    })
    .join('');
  return `<table class="history"><thead><tr><th>Trigger</th><th>Planned</th><th>Started</th><th>Lateness</th><th>Duration</th><th>State</th><th>Session</th><th>Result</th></tr></thead><tbody>${requested}${rows}</tbody></table>`;
}

/** The task page's header line (status, schedule, next run, run count, workspace); kept live with its History. */
export function taskMetaLine(task: ScheduledTask, history: readonly RunRecord[], now: number): string {
  const ended = task.ended ? ` (${task.ended.reason})` : '';
  const next = task.ended || task.paused ? '' : ` · ${whenNext(task, now)}`;
  return `${taskStatus(task, history)}${ended} · ${describeSchedule(task)}${next} · ${runCount(task, history)} · ${task.workspace}`;
}

/** A schedule's day that some months lack, said under the header (the form says it as the day is chosen). */
function noteLine(task: ScheduledTask): string {
  const note = scheduleNote(task.schedule);
  return note ? `<p class="meta note" id="schedule-note">${h(note)}</p>` : '';
}

export function taskPage(
  task: ScheduledTask,
  history: readonly RunRecord[],
  tab: 'settings' | 'history',
  choices: FormChoices,
  now: number,
  assets: Assets,
): string {
  const actions = [
    task.paused
      ? `<button class="button" data-action="unpause">Resume</button>`
      : `<button class="button" data-action="pause"${task.ended ? ' disabled' : ''}>Pause</button>`,
    `<button class="button" data-action="run-now">Run now</button>`,
    `<button class="button danger" data-action="delete">Delete</button>`,
  ].join('');
  const tabs = `<div class="tabs"><a href="/tasks/${h(task.id)}?tab=settings" class="tab${tab === 'settings' ? ' on' : ''}">Settings</a><a href="/tasks/${h(task.id)}?tab=history" class="tab${tab === 'history' ? ' on' : ''}">History</a></div>`;
  const body =
    tab === 'settings'
      ? taskForm(choices, task)
      : `<div id="history" data-task="${h(task.id)}">${historyTable(task, history)}</div>`;
  const header = `<header class="bar"><h1>${h(task.title)}</h1><div class="actions" data-task="${h(task.id)}" data-title="${h(task.title)}">${actions}</div></header><p class="meta" id="task-meta">${h(taskMetaLine(task, history, now))}</p>${noteLine(task)}<p id="task-status" role="status"></p><p class="error" data-error="action"></p>`;
  return layout(`${task.title} — murmur`, `${header}${tabs}${body}`, { nav: 'tasks', assets });
}

// ---- sessions ----

function duration(ms: number | undefined): string {
  if (ms === undefined || ms < 0) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function sessionsPage(sessions: readonly SessionSummary[], assets: Assets): string {
  const rows = sessions
    .map((s) => {
      const start =
        s.createdAt !== undefined ? new Date(s.createdAt).toISOString().slice(0, 19).replace('T', ' ') + ' UTC' : '—';
      const cost = s.usage.cost !== undefined ? `$${s.usage.cost.toFixed(4)}` : '—';
      const what = s.problem
        ? ` — <span class="problem">${h(s.problem)}</span>`
        : s.task
          ? ` — ${h(s.task.slice(0, 80))}`
          : '';
      return `<tr><td><a href="/sessions/${h(s.id)}">${h(s.id)}</a></td><td>${h(s.kind)}${what}</td><td class="state state-${h(s.status)}">${h(s.status)}</td><td>${h(start)}</td><td>${h(duration(s.durationMs ?? (s.updatedAt !== undefined && s.createdAt !== undefined ? s.updatedAt - s.createdAt : undefined)))}</td><td>${s.agents}</td><td>${s.tokens}</td><td>${h(cost)}</td></tr>`;
    })
    .join('');
  const table =
    sessions.length === 0
      ? '<p class="empty">No sessions in this workspace yet.</p>'
      : `<table class="sessions"><thead><tr><th>Session</th><th>Command</th><th>Status</th><th>Start</th><th>Duration</th><th>Agents</th><th>Tokens</th><th>Cost</th></tr></thead><tbody>${rows}</tbody></table>`;
  return layout(
    'Sessions — murmur',
    `<header class="bar"><h1>Sessions</h1><div class="actions"><a class="button" href="/runs/new">New run</a><a class="button" href="/swarms/new">New swarm</a></div></header>${table}`,
    {
      nav: 'sessions',
      assets,
    },
  );
}

/**
 * The session page: filled in by the page's script from the model (and kept live over SSE while it runs).
 * `modelJson`: the model already as JSON text (the console makes it in slices), else it is serialized here.
 */
export function sessionPage(
  model: SessionModel,
  assets: Assets,
  options: { live: boolean; modelJson?: string },
): string {
  const body = `<header class="bar"><h1 id="title">${h(model.title || model.id)}</h1><span class="state" id="status">${h(model.status)}</span></header>
<p class="meta" id="meta"></p>
<section id="swarms"></section>
<section><h2>Agents</h2><div id="tree" class="tree"></div></section>`;
  return layout(`${model.id} — murmur`, body, {
    nav: 'sessions',
    assets,
    dataJson: `{"page":"session","live":${options.live},"transcripts":${!assets.inline},"model":${options.modelJson ?? JSON.stringify(model)}}`,
  });
}
