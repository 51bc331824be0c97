// `murmur schedule add|list|show|edit|pause|unpause|rm|run-now|preview`: scheduled tasks from the command
// line. A person at the command line is the approver, so nothing here asks. Every bad flag, cron, interval,
// date or zone is exit 2 with a message naming the value (the checks are the store's, shared with the tool).
import { realpathSync } from 'node:fs';
import { boolFlag, parseArgs, positiveIntFlag, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { SCHEDULE_FLAGS } from './flags.js';
import { groupHelp } from './help.js';
import { workspaceFrom } from './setup.js';
import { allStores, CronStore, findTask, previewSchedule } from '../scheduler/store.js';
import type { FieldError, TaskField, TaskInput } from '../scheduler/validate.js';
import { isoInZone } from '../scheduler/schedule.js';
import { runDuration, scheduleNote, timedRun } from '../scheduler/schedule-words.js';
import {
  describeSchedule,
  lateWords,
  taskObject,
  taskStatus,
  type ScheduledTaskStatus,
} from '../scheduler/task-view.js';
import { serviceHolder } from '../host/lock.js';
import type { ScheduledTask } from '../scheduler/types.js';

/** `murmur schedule` alone or `--help`: every subcommand's usage (rendered from cli/commands.ts). */
export const scheduleHelp = (): string => groupHelp('schedule');

const FLAG_OF: Record<TaskField, string> = {
  cron: '--cron',
  every: '--every',
  at: '--at',
  start: '--start',
  until: '--until',
  title: '--title',
  prompt: '--prompt',
  timezone: '--timezone',
  recurring: '--once',
  maxFires: '--max-fires',
  permissionMode: '--permission-mode',
  model: '--model',
  effort: '--effort',
};

function badInput(command: string, errors: readonly FieldError[]): UsageError {
  return new UsageError(errors.map((e) => `murmur schedule ${command}: ${FLAG_OF[e.field]}: ${e.message}.`).join('\n'));
}

function inputFrom(args: ParsedArgs): TaskInput {
  const input: TaskInput = {};
  const map: [string, keyof TaskInput][] = [
    ['cron', 'cron'],
    ['every', 'every'],
    ['at', 'at'],
    ['start', 'start'],
    ['until', 'until'],
    ['prompt', 'prompt'],
    ['title', 'title'],
    ['timezone', 'timezone'],
    ['max-fires', 'maxFires'],
    ['permission-mode', 'permissionMode'],
    ['model', 'model'],
    ['effort', 'effort'],
  ];
  for (const [flag, field] of map) {
    const value = stringFlag(args, flag);
    if (value !== undefined) (input as Record<string, unknown>)[field] = value;
  }
  if (args.flags.once !== undefined) input.recurring = args.flags.once !== true;
  return input;
}

function one(command: string, args: ParsedArgs): string {
  const [id, ...extra] = args.positionals;
  if (!id) throw new UsageError(`murmur schedule ${command}: missing the task id (see murmur schedule list).`);
  if (extra.length > 0)
    throw new UsageError(`murmur schedule ${command}: one task id expected, got ${args.positionals.join(' ')}.`);
  return id;
}

function found(command: string, id: string): { store: CronStore; task: ScheduledTask } {
  const result = findTask(id);
  if (!result.ok) throw new UsageError(`murmur schedule ${command}: ${result.error}.`);
  return result.value;
}

function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

function plainTask(task: ScheduledTask, status: ScheduledTaskStatus, next: readonly string[]): string {
  const lines = [
    `${task.id}  ${task.title}`,
    `  status:    ${status}${task.ended ? ` (${task.ended.reason})` : ''}; fired ${task.fires} time${task.fires === 1 ? '' : 's'}${task.maxFires !== undefined ? ` of ${task.maxFires}` : ''}`,
    `  schedule:  ${describeSchedule(task)}`,
    `  next:      ${next.length > 0 ? next.join(', ') : '—'}`,
    `  workspace: ${task.workspace}`,
  ];
  const note = scheduleNote(task.schedule);
  if (note) lines.splice(3, 0, `  note:      ${note}`);
  const how = [
    task.model ? `model ${task.model}` : '',
    task.permissionMode ? `permission mode ${task.permissionMode}` : '',
    task.effort ? `effort ${task.effort}` : '',
  ].filter(Boolean);
  if (how.length > 0) lines.push(`  runs with: ${how.join(', ')}`);
  lines.push(
    `  created:   by ${task.createdBy === 'agent' ? `an agent${task.kept ? ' (kept)' : ''}` : 'a person'} at ${isoInZone(task.createdAt, task.timezone)}`,
  );
  lines.push(`  prompt:    ${task.prompt.split('\n').join('\n             ')}`);
  return lines.join('\n');
}

async function add(argv: readonly string[]): Promise<number> {
  const args = parseArgs('schedule add', argv, SCHEDULE_FLAGS.add);
  if (args.positionals.length > 0)
    throw new UsageError(
      `murmur schedule add: unexpected ${JSON.stringify(args.positionals.join(' '))}; the prompt goes in --prompt TEXT.`,
    );
  const workspace = realpathSync(workspaceFrom('schedule add', args));
  const store = CronStore.forWorkspace(workspace);
  const created = store.create(inputFrom(args), { createdBy: 'person' });
  if (!created.ok) throw badInput('add', created.errors);
  return printTask(store, created.value, args, 'created');
}

function printTask(store: CronStore, task: ScheduledTask, args: ParsedArgs, verb: string, withHistory = false): number {
  const history = store.history(task.id);
  const object = taskObject(task, history, store.now(), withHistory);
  if (boolFlag(args, 'json')) print(JSON.stringify(object));
  else {
    print(`${verb ? `${verb} ` : ''}${plainTask(task, taskStatus(task, history), object.next as string[])}`);
    if (withHistory) {
      if (history.length === 0) print('  history:   no runs yet');
      else {
        print('  history:');
        for (const run of history.slice(-20)) {
          print(
            `    ${isoInZone(run.started, task.timezone)}  ${run.trigger.padEnd(9)} ${run.state.padEnd(20)} ${(timedRun(run) ? lateWords(run.lateMs) : '—').padEnd(11)} ${(run.state === 'running' ? 'running' : `took ${runDuration(run)}`).padEnd(18)} session ${run.sessionId ?? '—'}${run.summary ? `  ${run.summary}` : ''}`,
          );
        }
      }
    }
  }
  return 0;
}

async function list(argv: readonly string[]): Promise<number> {
  const args = parseArgs('schedule list', argv, SCHEDULE_FLAGS.list);
  if (args.positionals.length > 0)
    throw new UsageError(`murmur schedule list: unexpected ${JSON.stringify(args.positionals.join(' '))}.`);
  const wanted = stringFlag(args, 'status') ?? 'all';
  const stores =
    stringFlag(args, 'cwd') !== undefined
      ? [CronStore.forWorkspace(realpathSync(workspaceFrom('schedule list', args)))]
      : allStores();
  const rows: { task: ScheduledTask; object: Record<string, unknown> }[] = [];
  for (const store of stores) {
    for (const task of store.list()) {
      const object = taskObject(task, store.history(task.id), store.now());
      if (wanted === 'all' || object.status === wanted) rows.push({ task, object });
    }
  }
  if (boolFlag(args, 'json')) {
    print(JSON.stringify(rows.map((r) => r.object)));
    return 0;
  }
  if (rows.length === 0) {
    print(
      wanted === 'all'
        ? 'No scheduled tasks. Add one with: murmur schedule add --cron "0 9 * * 1-5" --prompt "…"'
        : `No ${wanted} scheduled tasks.`,
    );
    return 0;
  }
  for (const { task, object } of rows) {
    const next = (object.next as string[])[0] ?? '—';
    print(
      `${task.id}  ${String(object.status).padEnd(7)} next ${next.padEnd(25)} ${describeSchedule(task)}  ${task.title}  [${task.workspace}]`,
    );
  }
  return 0;
}

async function show(argv: readonly string[]): Promise<number> {
  const args = parseArgs('schedule show', argv, SCHEDULE_FLAGS.show);
  const { store, task } = found('show', one('show', args));
  return printTask(store, task, args, '', true);
}

async function edit(argv: readonly string[]): Promise<number> {
  const args = parseArgs('schedule edit', argv, SCHEDULE_FLAGS.edit);
  const { store, task } = found('edit', one('edit', args));
  const updated = store.update(task.id, inputFrom(args), { keep: boolFlag(args, 'keep') });
  if (!updated.ok) {
    if ('notFound' in updated)
      throw new UsageError(`murmur schedule edit: the task "${task.id}" was removed meanwhile.`);
    throw badInput('edit', updated.errors);
  }
  return printTask(store, updated.value, args, 'updated');
}

async function simple(command: 'pause' | 'unpause' | 'rm' | 'run-now', argv: readonly string[]): Promise<number> {
  const args = parseArgs(`schedule ${command}`, argv, SCHEDULE_FLAGS.simple);
  const { store, task } = found(command, one(command, args));
  if (command === 'rm') {
    store.remove(task.id);
    print(`removed ${task.id} (${task.title})`);
    return 0;
  }
  if (command === 'pause') store.pause(task.id);
  else if (command === 'unpause') store.unpause(task.id);
  else store.runNow(task.id);
  const settled = task.ended
    ? `; it stays ended (${task.ended.reason}) afterwards: edit it to re-arm it`
    : task.paused
      ? '; it stays paused afterwards'
      : '';
  const verb =
    command === 'pause'
      ? 'paused'
      : command === 'unpause'
        ? 'unpaused (fires missed while paused are not replayed)'
        : `asked to run now (once${settled})`;
  print(`${task.id} ${verb}`);
  if (command === 'run-now' && !serviceHolder(store.serviceLockFile)) {
    process.stderr.write(
      `murmur schedule: no scheduler serves ${task.workspace} now; the run starts when one does (murmur scheduler).\n`,
    );
  }
  return 0;
}

async function preview(argv: readonly string[]): Promise<number> {
  const args = parseArgs('schedule preview', argv, SCHEDULE_FLAGS.preview);
  if (args.positionals.length > 0)
    throw new UsageError(`murmur schedule preview: unexpected ${JSON.stringify(args.positionals.join(' '))}.`);
  const count = positiveIntFlag('schedule preview', args, 'count') ?? 3;
  if (count > 1000) throw new UsageError(`murmur schedule preview: --count ${count} is too many; at most 1000.`);
  const previewed = previewSchedule(inputFrom(args), Date.now(), count);
  if (!previewed.ok) throw badInput('preview', previewed.errors);
  const times = previewed.value;
  print(boolFlag(args, 'json') ? JSON.stringify(times) : times.length > 0 ? times.join('\n') : '(no run time left)');
  return 0;
}

export async function scheduleCommand(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case undefined:
      process.stderr.write(scheduleHelp());
      return 2;
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(scheduleHelp());
      return 0;
    case 'add':
      return add(rest);
    case 'list':
      return list(rest);
    case 'show':
      return show(rest);
    case 'edit':
      return edit(rest);
    case 'pause':
    case 'unpause':
    case 'rm':
    case 'run-now':
      return simple(sub, rest);
    case 'preview':
      return preview(rest);
    case 'resume':
      throw new UsageError('murmur schedule: "resume" is spelled "unpause" here (murmur resume continues a session).');
    default:
      throw new UsageError(
        `murmur schedule: unknown subcommand "${sub}". Subcommands: add, list, show, edit, pause, unpause, rm, run-now, preview.`,
      );
  }
}
