// The scheduled-task form (New task, and a task's Settings tab pre-filled) in its four blocks: the title; the
// schedule, chosen structurally, with its time zone, end date and cap; the predicted timeline; the instruction —
// then the workspace, permission mode, model and effort. Each schedule field says in `data-for` which kinds use
// it: the page shows only those (hidden ones are `hidden` from the start, before the script runs) and the page's
// script sends only those, so what is saved is what is shown.
import { describeSchedule } from '../../scheduler/task-view.js';
import type { ScheduledTask } from '../../scheduler/types.js';
import { h, options } from './html.js';
import { choiceOf, type ScheduleChoice, type ScheduleKind } from './task-forms.js';
import { modelField, type ModelOption } from './model-choices.js';

export interface FormChoices {
  workspaces: string[];
  /** The models offered (the configured default first); "Other…" takes any spec. */
  models: ModelOption[];
  zones: string[];
  defaultZone: string;
  /** Today in the default zone (YYYY-MM-DD): the first day offered for a custom or one-time schedule. */
  today: string;
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const KINDS: [ScheduleKind, string][] = [
  ['hourly', 'Hourly'],
  ['daily', 'Daily'],
  ['weekday', 'Every weekday'],
  ['weekly', 'Weekly'],
  ['monthly', 'Monthly'],
  ['custom', 'Custom'],
  ['once', 'Once'],
];
const RECURRING = 'hourly daily weekday weekly monthly custom';
/** Fields that go into the schedule block's error lines, in the order they are shown. */
const SCHEDULE_ERRORS = ['minute', 'date', 'dom', 'everyN', 'every', 'start', 'time', 'at', 'cron', 'timezone'];

function field(kinds: string, current: ScheduleKind, html: string): string {
  const shown = kinds.split(' ').includes(current);
  return `<label data-for="${kinds}"${shown ? '' : ' hidden'}>${html}</label>`;
}

const errorLine = (name: string) => `<p class="error" data-error="${name}" role="alert"></p>`;

function scheduleBlock(c: ScheduleChoice, choices: FormChoices, task?: ScheduledTask): string {
  const kinds = [...KINDS];
  // A task made elsewhere with a cron the choices cannot say keeps it; a one-shot one takes no cap.
  if (c.kind === 'cron') kinds.push(['cron', `As set elsewhere: ${task ? describeSchedule(task) : c.cron}`]);
  const capKinds = c.kind === 'cron' && task?.recurring ? `${RECURRING} cron` : RECURRING;
  const every = c.every ? /^(\d+)(d|w|mo)$/.exec(c.every) : null;
  const k = c.kind;
  const radios = kinds
    .map(
      ([kind, label]) =>
        `<label class="kind"><input type="radio" name="kind" value="${kind}"${kind === k ? ' checked' : ''}> ${h(label)}</label>`,
    )
    .join('');
  const when = [
    field(
      'hourly',
      k,
      `At minute <input name="minute" type="number" min="0" max="59" value="${c.minute ?? 0}"> past each hour`,
    ),
    field('once', k, `On <input name="date" type="date" value="${h(k === 'once' ? c.start : choices.today)}">`),
    field(
      'weekly',
      k,
      `On <select name="day">${options(
        DAYS.map((d, i) => [String(i), d] as const),
        String(c.day ?? 1),
      )}</select>`,
    ),
    field('monthly', k, `On day <input name="dom" type="number" min="1" max="31" value="${c.dom ?? 1}">`),
    field(
      'custom',
      k,
      `Every <input name="everyN" type="number" min="1" max="1000" value="${h(every?.[1] ?? '1')}"> <select name="everyUnit" aria-label="unit">${options(
        [
          ['d', 'days'],
          ['w', 'weeks'],
          ['mo', 'months'],
        ],
        every?.[2] ?? 'd',
      )}</select>`,
    ),
    field(
      'custom',
      k,
      `Starting <input name="start" type="date" value="${h(k === 'custom' ? c.start : choices.today)}">`,
    ),
    field(
      'daily weekday weekly monthly custom once',
      k,
      `At <input name="time" type="time" value="${h(c.time ?? '09:00')}">`,
    ),
    `<label>Time zone <select name="timezone">${options(
      choices.zones.map((z) => [z, z] as const),
      task?.timezone ?? choices.defaultZone,
    )}</select></label>`,
  ].join('\n');
  const limits = [
    field(
      `${RECURRING} cron`,
      k,
      `Until <input name="until" type="date" value="${h(c.until ?? '')}"> (optional; that day still runs)`,
    ),
    field(
      capKinds,
      k,
      `At most <input name="maxFires" type="number" min="1" value="${h(task?.maxFires ?? '')}" placeholder="no cap"> runs`,
    ),
  ].join('\n');
  return `<section class="block schedule"><h2>Schedule</h2>
<fieldset class="kinds"><legend>How often</legend>${radios}</fieldset>
<div class="when">
${when}
</div>
<div class="when limits">
${limits}
</div>
<input type="hidden" name="cron" value="${h(c.cron ?? '')}"><input type="hidden" name="recurring" value="${task?.recurring === false ? 'false' : 'true'}">
${[...SCHEDULE_ERRORS, 'until', 'maxFires'].map(errorLine).join('')}
</section>`;
}

/** The creation form; pre-filled from a task for its Settings tab. */
export function taskForm(choices: FormChoices, task?: ScheduledTask): string {
  const c: ScheduleChoice = task ? choiceOf(task) : { kind: 'weekly', time: '09:00', day: 1 };
  const defaults: [string, string][] = [['', 'workspace default']];
  return `<form id="task-form" class="task-form" data-task="${h(task?.id ?? '')}" novalidate>
<section class="block"><label>Title <input name="title" value="${h(task?.title ?? '')}" maxlength="80" placeholder="A name for this task"></label>${errorLine('title')}</section>
${scheduleBlock(c, choices, task)}
<section class="block"><h2>Predicted timeline</h2><ol class="timeline" id="predicted"><li class="theoretical">…</li><li>…</li><li>…</li></ol><p class="meta" id="predicted-note" aria-live="polite"></p></section>
<section class="block"><label>Instruction (run each time) <textarea name="prompt" rows="6" placeholder="What each run does">${h(task?.prompt ?? '')}</textarea></label>${errorLine('prompt')}</section>
<section class="selectors">
<label>Workspace <select name="workspace"${task ? ' disabled' : ''}>${options(
    choices.workspaces.map((w) => [w, w] as const),
    task?.workspace ?? choices.workspaces[0],
  )}</select></label>
<label>Permission mode <select name="permissionMode">${options(
    [...defaults, ['manual', 'manual'], ['auto', 'auto'], ['yolo', 'yolo']],
    task?.permissionMode,
  )}</select></label>
${modelField(choices.models, task?.model)}
<label>Effort <select name="effort">${options(
    [...defaults, ['low', 'low'], ['medium', 'medium'], ['high', 'high']],
    task?.effort,
  )}</select></label>
${errorLine('permissionMode')}${errorLine('model')}${errorLine('effort')}${errorLine('workspace')}
</section>
${errorLine('form')}
<button type="submit" class="button primary">${task ? 'Save' : 'Create task'}</button>
</form>`;
}
