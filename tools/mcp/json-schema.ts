// Validation of MCP tool arguments against the server's plain JSON Schema, with ajv (loaded on first use so
// `murmur --help` never pays for it). Messages name the path and the rule, like the TypeBox check of built-ins.
import type { ErrorObject, ValidateFunction } from 'ajv';

export type ArgumentValidator = (args: unknown) => string | undefined;

interface AjvLike {
  compile(schema: object): ValidateFunction;
}

let engines: { draft7: AjvLike; draft2020: AjvLike } | undefined;

/** Loads ajv once; every validator factory after that is synchronous. */
export async function loadJsonSchemaValidators(): Promise<(schema: unknown) => ArgumentValidator> {
  if (!engines) {
    const [{ Ajv }, { Ajv2020 }] = await Promise.all([import('ajv'), import('ajv/dist/2020.js')]);
    // strict off: servers' schemas carry vendor keywords; formats are left to the server, which checks them anyway.
    const options = { strict: false, allErrors: true, validateFormats: false, validateSchema: false } as const;
    engines = { draft7: new Ajv(options), draft2020: new Ajv2020(options) };
  }
  return compileArgumentValidator;
}

const cache = new WeakMap<object, ArgumentValidator>();

function compileArgumentValidator(schema: unknown): ArgumentValidator {
  if (!engines) throw new Error('loadJsonSchemaValidators() must be awaited before compiling a schema');
  if (typeof schema !== 'object' || schema === null) return requireObject;
  const cached = cache.get(schema);
  if (cached) return cached;
  let validator: ArgumentValidator;
  try {
    const draft = String((schema as { $schema?: unknown }).$schema ?? '');
    const engine = draft.includes('2020-12') || draft.includes('2019-09') ? engines.draft2020 : engines.draft7;
    const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
    const check = engine.compile(rest);
    validator = (args) => (check(args) ? undefined : formatErrors(check.errors ?? []));
  } catch {
    // A schema ajv cannot compile: the server still validates, so only the shape every tool shares is checked here.
    validator = requireObject;
  }
  cache.set(schema, validator);
  return validator;
}

function requireObject(args: unknown): string | undefined {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? undefined : '/: must be an object';
}

function formatErrors(errors: readonly ErrorObject[]): string {
  const lines: string[] = [];
  for (const error of errors) {
    let where = error.instancePath || '/';
    let rule = error.message ?? 'is invalid';
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
      where = `${error.instancePath}/${params.missingProperty}`;
      rule = 'is required';
    } else if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      where = `${error.instancePath}/${params.additionalProperty}`;
      rule = 'is not an accepted property';
    } else if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
      rule = `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    }
    const line = `${where}: ${rule}`;
    if (!lines.includes(line)) lines.push(line);
    if (lines.length >= 5) break;
  }
  return lines.join('; ');
}

/**
 * What is wrong with a schema, judged by the same ajv (loadJsonSchemaValidators first), or undefined: one it
 * cannot compile, or that breaks its meta-schema. Typed outputs check a person's schema with it before anything runs.
 */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  if (!engines) throw new Error('loadJsonSchemaValidators() must be awaited before checking a schema');
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'a JSON Schema must be an object';
  const draft = String((schema as { $schema?: unknown }).$schema ?? '');
  const engine = draft.includes('2020-12') || draft.includes('2019-09') ? engines.draft2020 : engines.draft7;
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  try {
    engine.compile(rest);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
