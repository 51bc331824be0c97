// The host side of create_scheduled_task: the shared checks, the approval card in plain words, and the store.
import type { ScheduledTaskAdapter, ScheduledTaskArgs } from '../host/tool-contract.js';
import { CronStore } from './store.js';
import { describeSchedule, nextIdealTimes } from './task-view.js';
import { checkTaskInput, type TaskField, type TaskInput } from './validate.js';
import type { ScheduledTask } from './types.js';

const PARAM_OF: Record<TaskField, string> = {
  cron: 'cron',
  every: 'cron',
  at: 'cron',
  start: 'cron',
  until: 'cron',
  title: 'title',
  prompt: 'prompt',
  timezone: 'timezone',
  recurring: 'recurring',
  maxFires: 'max_fires',
  permissionMode: 'permission_mode',
  model: 'model',
  effort: 'effort',
};

export interface CronToolOptions {
  workspace: string;
  env?: NodeJS.ProcessEnv;
  /** This run's model: a task without `model` runs with it. */
  defaultModel: string;
  now?: () => number;
  confirm: ScheduledTaskAdapter['confirm'];
}

export function inputFromToolArgs(args: ScheduledTaskArgs, defaultModel: string): TaskInput {
  const input: TaskInput = { cron: args.cron, prompt: args.prompt, model: args.model ?? defaultModel };
  if (args.recurring !== undefined) input.recurring = args.recurring;
  if (args.timezone !== undefined) input.timezone = args.timezone;
  if (args.max_fires !== undefined) input.maxFires = args.max_fires;
  // Stored even when not given, so the run uses exactly the mode its approval card showed — never whatever
  // murmur.toml's permissionMode says when the run starts (which may be auto or yolo).
  input.permissionMode = args.permission_mode ?? 'manual';
  if (args.title !== undefined) input.title = args.title;
  if (args.effort !== undefined) input.effort = args.effort;
  return input;
}

/** The approval card: what would run, when, where and how, in plain words. */
export function scheduledTaskCard(
  task: Pick<
    ScheduledTask,
    | 'title'
    | 'schedule'
    | 'until'
    | 'recurring'
    | 'timezone'
    | 'cursor'
    | 'ended'
    | 'maxFires'
    | 'model'
    | 'permissionMode'
    | 'effort'
    | 'prompt'
    | 'workspace'
  >,
  reason?: string,
): string {
  const next = nextIdealTimes(task as ScheduledTask, task.cursor);
  const lines = [
    `Title:           ${task.title}`,
    `Schedule:        ${describeSchedule(task, { zone: false })}${task.recurring && task.maxFires !== undefined ? `, at most ${task.maxFires} times` : ''} (time zone ${task.timezone})`,
    `Next runs:       ${next.length > 0 ? next.join(', ') : '(none)'} (${task.timezone})`,
    `Workspace:       ${task.workspace}`,
    `Model:           ${task.model ?? 'the default model'}${task.effort ? ` (effort ${task.effort})` : ''}`,
    `Permission mode: ${task.permissionMode ?? 'manual'}; a request that needs a person is held until someone resumes the session`,
  ];
  if (reason?.trim()) lines.push(`Reason:          ${reason.trim()}`);
  lines.push('Prompt:', ...task.prompt.split('\n').map((l) => `  ${l}`));
  return lines.join('\n');
}

export function cronToolAdapter(options: CronToolOptions): ScheduledTaskAdapter {
  const now = options.now ?? Date.now;
  return {
    prepare(args) {
      const input = inputFromToolArgs(args, options.defaultModel);
      const checked = checkTaskInput(input, now(), options.workspace);
      if (!checked.ok) return { ok: false, errors: checked.errors.map((e) => `${PARAM_OF[e.field]}: ${e.message}`) };
      const preview = { ...checked.value, workspace: options.workspace, cursor: now() };
      const card = scheduledTaskCard(preview, args.reason);
      return {
        ok: true,
        card,
        summary: `create the scheduled task "${checked.value.title}" (${describeSchedule(preview)})`,
        create() {
          const store = CronStore.forWorkspace(options.workspace, {
            ...(options.env ? { env: options.env } : {}),
            now,
          });
          try {
            const created = store.create(input, { createdBy: 'agent' });
            if (!created.ok)
              return { error: created.errors.map((e) => `${PARAM_OF[e.field]}: ${e.message}`).join('; ') };
            return { id: created.value.id, next: nextIdealTimes(created.value, now()) };
          } catch (error) {
            return { error: `the task could not be saved: ${(error as Error).message}` };
          }
        },
      };
    },
    confirm: options.confirm,
  };
}
