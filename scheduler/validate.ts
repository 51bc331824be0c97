// One validation for every way a task is described — the command line, the create_scheduled_task tool and
// the web console's forms: raw fields in, a checked task definition or field-named errors out (values, never
// exceptions). Each caller shows a field under its own name (`--max-fires`, `max_fires`…).
import { checkCron } from './cron-fields.js';
import { checkModel } from './model-check.js';
import { defaultTimeZone, localDateText, nextTimes, parseClock, parseDate } from './schedule.js';
import { normalizeTimeZone } from './time-zones.js';
import type { Effort, IntervalUnit, PermissionModeName, Schedule, ScheduledTask } from './types.js';

export interface TaskInput {
  cron?: string;
  /** `N(d|w|mo)`, e.g. `2w`. */
  every?: string;
  at?: string;
  start?: string;
  until?: string;
  title?: string;
  prompt?: string;
  timezone?: string;
  recurring?: boolean;
  maxFires?: number | string;
  permissionMode?: string;
  model?: string;
  effort?: string;
}

export type TaskField = keyof TaskInput;

export interface FieldError {
  field: TaskField;
  message: string;
}

/** The parts of a task a definition decides (identity, counters and state are the store's). */
export type TaskDefinition = Pick<ScheduledTask, 'title' | 'prompt' | 'schedule' | 'timezone' | 'recurring'> &
  Partial<Pick<ScheduledTask, 'until' | 'maxFires' | 'permissionMode' | 'model' | 'effort'>>;

export type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

export const PERMISSION_MODE_NAMES: readonly PermissionModeName[] = ['manual', 'auto', 'yolo'];
export const EFFORTS: readonly Effort[] = ['low', 'medium', 'high'];
const TITLE_MAX = 80;

function q(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** The schedule part alone (for previews): cron or interval, zone and until. */
export function checkSchedule(
  input: Pick<TaskInput, 'cron' | 'every' | 'at' | 'start' | 'until' | 'timezone'>,
  now: number,
): Checked<{ schedule: Schedule; timezone: string; until?: string }> {
  const errors: FieldError[] = [];
  // A zone typed in another case is stored in its listed spelling ("utc" → "UTC").
  const given = input.timezone?.trim() || defaultTimeZone();
  const zone = normalizeTimeZone(given);
  const timezone = zone ?? given;
  if (zone === undefined)
    errors.push({
      field: 'timezone',
      message: `unknown time zone ${q(input.timezone)}; give an IANA name such as "Europe/Berlin", "America/New_York" or "UTC"`,
    });
  let schedule: Schedule | undefined;
  const hasCron = input.cron !== undefined;
  const hasEvery = input.every !== undefined;
  if (hasCron && hasEvery)
    errors.push({ field: 'every', message: 'give either a cron or an interval (every … at …), not both' });
  else if (!hasCron && !hasEvery)
    errors.push({
      field: 'cron',
      message: 'say when: a 5-field cron such as "0 9 * * 1-5", or an interval every N(d|w|mo) at HH:MM',
    });
  else if (hasCron) {
    const cron = input.cron!.trim().replace(/\s+/g, ' ');
    const problem = checkCron(cron);
    if (problem) errors.push({ field: 'cron', message: problem });
    else schedule = { kind: 'cron', cron };
    if (input.at !== undefined)
      errors.push({
        field: 'at',
        message: 'a time of day belongs to an interval (every N(d|w|mo) at HH:MM); a cron says its own time',
      });
    if (input.start !== undefined)
      errors.push({
        field: 'start',
        message: 'a start date belongs to an interval (every N(d|w|mo) at HH:MM); a cron has none',
      });
  } else {
    const m = /^\s*(\d+)\s*(d|w|mo)\s*$/.exec(input.every!);
    const n = m ? Number(m[1]) : 0;
    if (!m || n < 1 || n > 1000)
      errors.push({
        field: 'every',
        message: `interval ${q(input.every)} is not accepted; give N followed by d (days), w (weeks) or mo (months), N from 1 to 1000, e.g. "1d", "2w", "3mo"`,
      });
    if (input.at === undefined)
      errors.push({ field: 'at', message: 'an interval needs a time of day: at HH:MM (24-hour, e.g. "09:30")' });
    else if (!parseClock(input.at))
      errors.push({
        field: 'at',
        message: `time of day ${q(input.at)} is not accepted; give HH:MM on a 24-hour clock, e.g. "09:30"`,
      });
    const start = input.start?.trim() ?? (zone !== undefined ? localDateText(now, zone) : undefined);
    if (input.start !== undefined && !parseDate(input.start))
      errors.push({
        field: 'start',
        message: `start date ${q(input.start)} is not a date; give YYYY-MM-DD, e.g. "2026-12-01"`,
      });
    if (
      m &&
      n >= 1 &&
      n <= 1000 &&
      input.at !== undefined &&
      parseClock(input.at) &&
      start !== undefined &&
      parseDate(start)
    ) {
      const [h, mi] = parseClock(input.at)!;
      const at = `${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}`;
      schedule = { kind: 'every', every: { n, unit: m[2] as IntervalUnit }, at, start };
    }
  }
  if (input.until !== undefined) {
    if (!parseDate(input.until))
      errors.push({
        field: 'until',
        message: `end date ${q(input.until)} is not a date; give YYYY-MM-DD (that day still runs)`,
      });
    else if (schedule?.kind === 'every' && input.until.trim() < schedule.start)
      errors.push({ field: 'until', message: `end date ${input.until} is before the start date ${schedule.start}` });
  }
  if (errors.length > 0 || !schedule) return { ok: false, errors };
  const value: { schedule: Schedule; timezone: string; until?: string } = { schedule, timezone };
  if (input.until !== undefined) value.until = input.until.trim();
  return { ok: true, value };
}

/** A one-shot task: said so (`recurring: false`), or an interval that ends on its first run day. */
export function runsOnce(recurring: boolean | undefined, checked: { schedule: Schedule; until?: string }): boolean {
  if (recurring === false) return true;
  return checked.schedule.kind === 'every' && checked.until === checked.schedule.start;
}

/**
 * A whole task definition for a task in `workspace` (where its runs start: a relative `scripted:FILE` model is
 * read from there; this process's folder when not given). `now` decides whether the schedule can still fire.
 */
export function checkTaskInput(
  input: TaskInput,
  now: number,
  workspace: string = process.cwd(),
): Checked<TaskDefinition> {
  const errors: FieldError[] = [];
  const scheduled = checkSchedule(input, now);
  if (!scheduled.ok) errors.push(...scheduled.errors);
  const prompt = input.prompt ?? '';
  if (prompt.trim() === '')
    errors.push({ field: 'prompt', message: 'the prompt (what each run does) is missing or empty' });
  const title = (input.title ?? '').trim() || firstLine(prompt);
  if ([...title].length > TITLE_MAX)
    errors.push({ field: 'title', message: `the title is ${[...title].length} characters long; at most ${TITLE_MAX}` });

  const recurring = !(scheduled.ok ? runsOnce(input.recurring, scheduled.value) : input.recurring === false);

  let maxFires: number | undefined;
  if (input.maxFires !== undefined) {
    const n =
      typeof input.maxFires === 'number'
        ? input.maxFires
        : /^\s*\d+\s*$/.test(input.maxFires)
          ? Number(input.maxFires)
          : Number.NaN;
    if (!Number.isInteger(n) || n < 1)
      errors.push({ field: 'maxFires', message: `max fires ${q(input.maxFires)} is not a positive whole number` });
    else if (!recurring)
      errors.push({
        field: 'maxFires',
        message:
          'max fires caps a recurring task; a one-shot task fires once (leave it out, or make the task recurring)',
      });
    else maxFires = n;
  }
  const permissionMode = input.permissionMode?.trim();
  if (permissionMode !== undefined && !PERMISSION_MODE_NAMES.includes(permissionMode as PermissionModeName)) {
    errors.push({
      field: 'permissionMode',
      message: `permission mode ${q(input.permissionMode)} is not one of ${PERMISSION_MODE_NAMES.join(', ')}`,
    });
  }
  const effort = input.effort?.trim();
  if (effort !== undefined && !EFFORTS.includes(effort as Effort))
    errors.push({ field: 'effort', message: `effort ${q(input.effort)} is not one of ${EFFORTS.join(', ')}` });
  const model = input.model?.trim();
  if (model !== undefined) {
    const problem = checkModel(model, workspace);
    if (problem) errors.push({ field: 'model', message: problem });
  }

  if (scheduled.ok) {
    const { schedule, timezone, until } = scheduled.value;
    if (nextTimes(schedule, timezone, until, now, 1).length === 0) {
      const what = schedule.kind === 'cron' ? `cron ${q(schedule.cron)}` : 'the interval';
      const field: TaskField = until !== undefined ? 'until' : schedule.kind === 'cron' ? 'cron' : 'start';
      errors.push({
        field,
        message: `${what} never fires${until !== undefined ? ` before the end date ${until} is over` : ' again'} (in ${timezone}); ${recurring ? 'it' : 'this one-shot task'} would never run`,
      });
    }
  }
  if (errors.length > 0 || !scheduled.ok) return { ok: false, errors };
  const value: TaskDefinition = {
    title,
    prompt,
    schedule: scheduled.value.schedule,
    timezone: scheduled.value.timezone,
    recurring,
  };
  if (scheduled.value.until !== undefined) value.until = scheduled.value.until;
  if (maxFires !== undefined) value.maxFires = maxFires;
  if (permissionMode !== undefined) value.permissionMode = permissionMode as PermissionModeName;
  if (model !== undefined) value.model = model;
  if (effort !== undefined) value.effort = effort as Effort;
  return { ok: true, value };
}

/** The input that reproduces a task (so an edit can change some fields and keep the rest). */
export function inputOf(task: ScheduledTask): TaskInput {
  const input: TaskInput = {
    title: task.title,
    prompt: task.prompt,
    timezone: task.timezone,
    recurring: task.recurring,
  };
  if (task.schedule.kind === 'cron') input.cron = task.schedule.cron;
  else {
    input.every = `${task.schedule.every.n}${task.schedule.every.unit}`;
    input.at = task.schedule.at;
    input.start = task.schedule.start;
  }
  if (task.until !== undefined) input.until = task.until;
  if (task.maxFires !== undefined) input.maxFires = task.maxFires;
  if (task.permissionMode !== undefined) input.permissionMode = task.permissionMode;
  if (task.model !== undefined) input.model = task.model;
  if (task.effort !== undefined) input.effort = task.effort;
  return input;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return [...line].length > 60 ? `${[...line].slice(0, 59).join('')}…` : line;
}
