// Typed outputs and object items in the library: the `output` option checked and turned into the host's output
// spec, and a swarm's items — strings with a `{{item}}` template as before, or any values with a template function
// or `{{field}}` placeholders — turned into labels (each row's `item`), prompts and the inputs kept for the report.
import type { ItemResult, SwarmReport } from '../protocol/reports.js';
import { swarmItemsProblem } from '../host/checks.js';
import { outputSchemaProblem, type OutputSpec } from '../host/output.js';
import { fail } from './option-error.js';
import { isStandardSchema, jsonSchemaOfStandard, standardCheck, type AnySchema, type Infer } from './schema.js';

/** What a swarm's template may be: a string with `{{item}}` (or, for object items, `{{field}}`), or a function. */
export type SwarmTemplate<T> = string | ((item: T) => string);

/** A swarm() report: each row carries its item as given (`input`) and, with an `output` schema, its typed answer. */
export type TypedSwarmReport<O, T> = Omit<SwarmReport<O, T>, 'items'> & { items: (ItemResult<O, T> & { input: T })[] };

/** The answer's type for an `output` schema: TypeBox's Static, a Standard Schema's output (`unknown` without one). */
export type OutputOf<S extends AnySchema> = Infer<S>;

/** The host's output spec for `output` and `outputRetries` (`prefix`: '' for run(), 'swarm.' for swarm()). */
export async function outputSpecOf(
  prefix: string,
  given: AnySchema | undefined,
  retries: number | undefined,
): Promise<OutputSpec | undefined> {
  if (given === undefined) {
    if (retries !== undefined) fail(`${prefix}outputRetries`, 'it applies only with an output schema (output).');
    return undefined;
  }
  const standard = isStandardSchema(given);
  if (!standard && (typeof given !== 'object' || given === null || Array.isArray(given)))
    fail(
      `${prefix}output`,
      'give a TypeBox schema (Type.Object({…})), a JSON Schema object or a Standard Schema with JSON Schema (zod 4.2 or newer).',
    );
  const schema = standard ? jsonSchemaOfStandard(`${prefix}output`, given) : (given as Record<string, unknown>);
  const problem = await outputSchemaProblem(schema);
  if (problem) fail(`${prefix}output`, `not a valid JSON Schema: ${problem}.`);
  if (retries !== undefined && (!Number.isInteger(retries) || retries < 0))
    fail(`${prefix}outputRetries`, `${JSON.stringify(retries)} is not accepted; give a whole number, 0 or more.`);
  return {
    schema,
    ...(retries !== undefined ? { retries } : {}),
    ...(standard ? { check: standardCheck(given) } : {}),
  };
}

/** A swarm's items as the host takes them. */
export interface PlannedItems {
  /** The template when it is a string (saved with the session). */
  template?: string;
  /** Each item's label: the item itself, its first placeholder's value, or its JSON. */
  labels: string[];
  /** Each item's prompt, when made here (object items, a template function); else the template's. */
  prompts?: string[];
  /** The items as given, when they are not plain strings with a string template. */
  inputs?: readonly unknown[];
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\}\}/g;
const MAX_LABEL = 200;

function text(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

function label(value: string): string {
  return value.length > MAX_LABEL ? `${value.slice(0, MAX_LABEL - 1)}…` : value;
}

/** A `{{field}}` template filled from one item (`{{item}}` is the whole item); a missing field names the item. */
function fill(template: string, item: unknown, index: number): { prompt: string; label: string } {
  let first: string | undefined;
  const prompt = template.replace(PLACEHOLDER, (_whole, path: string) => {
    let value: unknown = item;
    if (path !== 'item') {
      for (const key of path.split('.')) {
        if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key))
          fail(`swarm.items[${index}]`, `has no field "${path}" for the template's {{${path}}}.`);
        value = (value as Record<string, unknown>)[key];
      }
      first ??= text(value);
    }
    return text(value);
  });
  return { prompt, label: label(first?.trim() || text(item)) };
}

/** The items of swarm(): checked, labelled and prompted; bad ones throw MurmurOptionsError naming them. */
export function planItems<T>(template: SwarmTemplate<T>, items: readonly T[]): PlannedItems {
  if (typeof template !== 'string' && typeof template !== 'function')
    fail('swarm.template', 'give the prompt for each item: a string with {{item}} (or {{field}}), or a function.');
  if (!Array.isArray(items)) fail('swarm.items', 'give the items as a list (strings, or objects with a template).');
  if (typeof template === 'string' && items.every((item) => typeof item === 'string')) {
    const problem = swarmItemsProblem(template, items as readonly string[], 'template');
    if (problem) fail('swarm', `${problem}.`);
    return { template, labels: items as string[] };
  }
  if (typeof template === 'string' && !new RegExp(PLACEHOLDER.source).test(template))
    fail('swarm.template', 'give {{item}} or {{field}} placeholders (a field of each item), or a function.');
  const labels: string[] = [];
  const prompts: string[] = [];
  for (const [index, item] of items.entries()) {
    if (typeof template === 'string') {
      const filled = fill(template, item, index);
      labels.push(filled.label);
      prompts.push(filled.prompt);
      continue;
    }
    let prompt: unknown;
    try {
      prompt = template(item);
    } catch (error) {
      fail('swarm.template', `it threw for items[${index}]: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (typeof prompt !== 'string' || prompt.trim() === '')
      fail(
        'swarm.template',
        `it gave ${JSON.stringify(prompt)} for items[${index}]; it must return a non-empty string.`,
      );
    labels.push(label(text(item)));
    prompts.push(prompt);
  }
  return { ...(typeof template === 'string' ? { template } : {}), labels, prompts, inputs: items };
}

/** The report of swarm(): every row with its item as given. */
export function typedSwarmReport<O, T>(report: SwarmReport, items: readonly T[]): TypedSwarmReport<O, T> {
  return {
    ...report,
    items: report.items.map((row) => ({ ...row, input: items[row.index] as T })),
  } as TypedSwarmReport<O, T>;
}
