// The schemas the library takes for typed outputs and tool arguments: TypeBox (or a plain JSON Schema object), or a
// Standard Schema (zod 4, valibot, arktype…) that also exports JSON Schema (Standard JSON Schema): the model is shown
// the JSON Schema of what it must write (the schema's input), and the library's own validate makes the value (its
// output: transforms and refinements apply), so the types murmur infers are the library's.
import type { Static, TSchema } from '@sinclair/typebox';
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { SchemaCheck } from '../protocol/output.js';
import { fail } from './option-error.js';

/** A Standard Schema murmur can show a model: it validates and converts itself to JSON Schema (zod ≥ 4.2 does). */
export type StandardSchemaWithJson = StandardSchemaV1 & StandardJSONSchemaV1;

/** A schema for outputs and tool arguments: TypeBox, a JSON Schema object, or a Standard Schema with JSON Schema. */
export type AnySchema = TSchema | StandardSchemaWithJson;

/** The value a schema gives: a Standard Schema's output type, TypeBox's Static, else unknown. */
export type Infer<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends TSchema
    ? Static<S>
    : unknown;

/** Whether a value is a Standard Schema (arktype's are functions, the others objects). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as Partial<StandardSchemaV1>)['~standard'];
  return typeof props === 'object' && props !== null && typeof props.validate === 'function';
}

/**
 * The JSON Schema a model writes for a Standard Schema (its input, draft 2020-12), or a MurmurOptionsError naming
 * `option` when the schema cannot give one.
 */
export function jsonSchemaOfStandard(option: string, schema: StandardSchemaV1): Record<string, unknown> {
  const props = schema['~standard'] as StandardSchemaV1.Props & Partial<StandardJSONSchemaV1.Props>;
  const vendor = typeof props.vendor === 'string' ? props.vendor : 'a Standard Schema';
  if (typeof props.jsonSchema?.input !== 'function')
    fail(
      option,
      `this ${vendor} schema exports no JSON Schema (~standard.jsonSchema), which murmur shows the model; give a schema from a library that implements Standard JSON Schema (zod 4.2 or newer), a TypeBox schema or a JSON Schema object.`,
    );
  let converted: unknown;
  try {
    converted = props.jsonSchema.input({ target: 'draft-2020-12' });
  } catch (error) {
    fail(option, `this ${vendor} schema cannot be written as JSON Schema: ${(error as Error).message ?? error}.`);
  }
  if (typeof converted !== 'object' || converted === null || Array.isArray(converted))
    fail(option, `this ${vendor} schema's JSON Schema is not an object.`);
  return converted as Record<string, unknown>;
}

function issuesLine(issues: readonly StandardSchemaV1.Issue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const at = (issue.path ?? [])
        .map((part) => (typeof part === 'object' && part !== null ? part.key : part))
        .map(String)
        .join('/');
      return `/${at}: ${issue.message}`;
    })
    .join('; ');
}

/** A Standard Schema's validate, as a value: its output, or its issues (first five) as `/path: message`. */
export function standardCheck(schema: StandardSchemaV1): (value: unknown) => SchemaCheck | Promise<SchemaCheck> {
  const read = (result: StandardSchemaV1.Result<unknown>): SchemaCheck =>
    result.issues ? { ok: false, problem: issuesLine(result.issues) } : { ok: true, value: result.value };
  return (value) => {
    const result = schema['~standard'].validate(value);
    return result instanceof Promise ? result.then(read) : read(result);
  };
}
