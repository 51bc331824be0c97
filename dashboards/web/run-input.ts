// The New run and New swarm forms' JSON bodies checked and turned into the arguments of `murmur run` / `murmur
// swarm`, with the command line's own checks (the model spec, agent and role names, the template and its items),
// so a request the command would refuse is refused here first, each error naming its field and what is accepted.
import { checkModel } from '../../scheduler/model-check.js';
import type { Environment } from '../../orchestrator/environment.js';
import { agentNameProblem, swarmItemsProblem } from '../../host/checks.js';
import { globItems } from '../../host/glob-items.js';

export interface FieldError {
  field: string;
  message: string;
}

export interface InputContext {
  workspace: string;
  env: Environment;
}

/** Arguments for the command (after its name), and for a swarm given as a list, its items (one per line of a file). */
export type Checked = { ok: true; args: string[]; items?: string[] } | { ok: false; errors: FieldError[] };

export const MODES = ['manual', 'auto', 'yolo'] as const;
export const EFFORTS = ['low', 'medium', 'high'] as const;
/** A task or template travels on the command line, where one argument may hold at most 128 KiB (Linux). */
export const MAX_ARG_CHARS = 100_000;

const COMMON = ['model', 'effort', 'permissionMode'];
const RUN_FIELDS = ['task', 'agent', ...COMMON];
const SWARM_FIELDS = [
  'template',
  'items',
  'glob',
  'role',
  'verify',
  'maxRounds',
  'isolation',
  'maxConcurrency',
  'description',
  ...COMMON,
];

type Body = Record<string, unknown>;

function unknownFields(body: Body, known: readonly string[]): FieldError[] {
  return Object.keys(body)
    .filter((k) => !known.includes(k))
    .map((k) => ({ field: k, message: `unknown field "${k}"; accepted: ${known.join(', ')}` }));
}

/** An optional text field: undefined when absent or empty, else the text (or an error). */
function optionalText(body: Body, field: string, errors: FieldError[]): string | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') {
    errors.push({ field, message: `${field} must be text, got ${JSON.stringify(value)}` });
    return undefined;
  }
  return value.trim() === '' ? undefined : value.trim();
}

function requiredText(body: Body, field: string, what: string, errors: FieldError[]): string | undefined {
  const value = optionalText(body, field, errors);
  if (value === undefined && !errors.some((e) => e.field === field))
    errors.push({ field, message: `${field} is missing or empty: give ${what}` });
  if (value !== undefined && value.length > MAX_ARG_CHARS) {
    errors.push({
      field,
      message: `${field} is ${value.length} characters; at most ${MAX_ARG_CHARS} (it is passed on the command line)`,
    });
    return undefined;
  }
  return value;
}

function choice(body: Body, field: string, allowed: readonly string[], errors: FieldError[]): string | undefined {
  const value = optionalText(body, field, errors);
  if (value !== undefined && !allowed.includes(value)) {
    errors.push({ field, message: `${field} ${JSON.stringify(value)} is not one of ${allowed.join(', ')}` });
    return undefined;
  }
  return value;
}

/** A positive whole number (a JSON number, or digits as text), or undefined when absent or empty. */
function positive(body: Body, field: string, errors: FieldError[]): number | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    errors.push({ field, message: `${field} must be a whole number of at least 1, got ${JSON.stringify(value)}` });
    return undefined;
  }
  return n;
}

function flag(body: Body, field: string, errors: FieldError[]): boolean {
  const value = body[field];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') {
    errors.push({ field, message: `${field} must be true or false, got ${JSON.stringify(value)}` });
    return false;
  }
  return value;
}

/** --model, --effort and --permission-mode, shared by both forms. */
function commonArgs(body: Body, ctx: InputContext, errors: FieldError[]): string[] {
  const args: string[] = [];
  const model = optionalText(body, 'model', errors);
  const modelProblem = model === undefined ? undefined : checkModel(model, ctx.workspace);
  if (modelProblem) errors.push({ field: 'model', message: modelProblem });
  else if (model !== undefined) args.push(`--model=${model}`);
  const effort = choice(body, 'effort', EFFORTS, errors);
  if (effort !== undefined) args.push(`--effort=${effort}`);
  const mode = choice(body, 'permissionMode', MODES, errors);
  if (mode !== undefined) args.push(`--permission-mode=${mode}`);
  return args;
}

export function checkRun(body: Body, ctx: InputContext): Checked {
  const errors = unknownFields(body, RUN_FIELDS);
  const task = requiredText(body, 'task', 'what the main agent should do', errors);
  const args = ['run', `--cwd=${ctx.workspace}`, '--no-dashboard', '--json', ...commonArgs(body, ctx, errors)];
  const agent = optionalText(body, 'agent', errors);
  const agentProblem = agent === undefined ? undefined : agentNameProblem(ctx.workspace, ctx.env, agent, false);
  if (agentProblem) errors.push({ field: 'agent', message: `agent ${agentProblem}` });
  else if (agent !== undefined) args.push(`--agent=${agent}`);
  if (errors.length > 0 || task === undefined) return { ok: false, errors };
  return { ok: true, args: [...args, '--', task] };
}

/** A list's items: text without line breaks (they go one per line into a file), trimmed as `--items-file` trims. */
function listItems(value: unknown, errors: FieldError[]): string[] | undefined {
  if (!Array.isArray(value)) {
    errors.push({
      field: 'items',
      message: `items must be a list of text, got ${JSON.stringify(value)?.slice(0, 80)}`,
    });
    return undefined;
  }
  const items: string[] = [];
  for (const [i, item] of value.entries()) {
    const problem =
      typeof item !== 'string'
        ? `is ${JSON.stringify(item)?.slice(0, 80)}, not text`
        : /[\r\n]/.test(item)
          ? 'holds a line break; give one item per line'
          : item.trim() === ''
            ? 'is empty'
            : undefined;
    if (problem) {
      errors.push({ field: 'items', message: `item ${i + 1} ${problem}` });
      return undefined;
    }
    items.push((item as string).trim());
  }
  if (items.length === 0) errors.push({ field: 'items', message: 'items is empty: give at least one item' });
  return items.length > 0 ? items : undefined;
}

export async function checkSwarm(body: Body, ctx: InputContext): Promise<Checked> {
  const errors = unknownFields(body, SWARM_FIELDS);
  const template = requiredText(
    body,
    'template',
    'the prompt for each item, with {{item}} where the item goes',
    errors,
  );
  const args = ['swarm', `--cwd=${ctx.workspace}`, '--no-dashboard', '--json', ...commonArgs(body, ctx, errors)];
  const hasList = body.items !== undefined && body.items !== null;
  const pattern = optionalText(body, 'glob', errors);
  let items: string[] | undefined;
  let matched: string[] | undefined;
  if (hasList && pattern !== undefined)
    errors.push({ field: 'items', message: 'give the items either as a list (items) or as a glob, not both' });
  else if (hasList) items = listItems(body.items, errors);
  else if (pattern !== undefined) {
    matched = await globItems(pattern, ctx.workspace);
    if (matched.length === 0)
      errors.push({ field: 'glob', message: `glob ${JSON.stringify(pattern)} matches no file under ${ctx.workspace}` });
    else args.push(`--glob=${pattern}`);
  } else if (!errors.some((e) => e.field === 'glob'))
    errors.push({ field: 'items', message: 'no items: give a list of items, or a glob matching files' });
  const checkedItems = items ?? matched;
  if (template !== undefined && checkedItems !== undefined && checkedItems.length > 0) {
    const problem = swarmItemsProblem(template, checkedItems, 'template');
    if (problem) errors.push({ field: /template/.test(problem) ? 'template' : 'items', message: problem });
  }
  const role = optionalText(body, 'role', errors);
  const roleProblem = role === undefined ? undefined : agentNameProblem(ctx.workspace, ctx.env, role, true);
  if (roleProblem) errors.push({ field: 'role', message: `role ${roleProblem}` });
  else if (role !== undefined) args.push(`--role=${role}`);
  if (flag(body, 'verify', errors)) args.push('--verify');
  const maxRounds = positive(body, 'maxRounds', errors);
  if (maxRounds !== undefined) args.push(`--max-rounds=${maxRounds}`);
  const isolation = choice(body, 'isolation', ['none', 'worktree'], errors);
  if (isolation !== undefined) args.push(`--isolation=${isolation}`);
  const maxConcurrency = positive(body, 'maxConcurrency', errors);
  if (maxConcurrency !== undefined) args.push(`--max-concurrency=${maxConcurrency}`);
  const description = optionalText(body, 'description', errors);
  if (description !== undefined) args.push(`--description=${description}`);
  if (errors.length > 0 || template === undefined) return { ok: false, errors };
  return { ok: true, args: [...args, `--template=${template}`], ...(items ? { items } : {}) };
}
