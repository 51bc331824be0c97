// murmur/tools: your own tools, with the contract of the built-in ones (a TypeBox schema, or a Standard Schema with
// JSON Schema such as zod 4's, for the arguments, checked before `execute` runs; the result's text goes to the
// model). Hand them to createMurmur's `tools`.
import {
  defineRuntimeTool,
  errorResult,
  type RuntimeTool,
  type ToolContext,
  type ToolDefinition,
  type ToolExecute,
  type ToolResult,
  type ToolUpdate,
} from '../host/tool-contract.js';
import type { TSchema } from '@sinclair/typebox';
import {
  isStandardSchema,
  jsonSchemaOfStandard,
  standardCheck,
  type Infer,
  type StandardSchemaWithJson,
} from './schema.js';

export { Type, type Static, type TSchema } from '@sinclair/typebox';
export {
  textResult,
  errorResult,
  type RuntimeTool,
  type ToolContext,
  type ToolResult,
  type ToolDefinition,
  type ToolTraits,
  type RuleArgument,
  type ToolExecute,
  type ToolUpdate,
} from '../host/tool-contract.js';
export type { ToolContent } from '../protocol/messages.js';
export type { AnySchema, Infer, StandardSchemaWithJson } from './schema.js';

/** A tool whose arguments are a Standard Schema with JSON Schema (zod 4.2 or newer…): `execute` gets its output. */
export interface StandardToolSpec<S extends StandardSchemaWithJson> {
  def: Omit<ToolDefinition, 'parameters' | 'validate'> & { parameters: S };
  /** What the tool does with the schema's output (its transforms applied); the result's text goes to the model. */
  execute: (
    ctx: ToolContext,
    input: Infer<S>,
    signal: AbortSignal,
    onUpdate: (update: ToolUpdate) => void,
  ) => Promise<ToolResult> | ToolResult;
}

/**
 * A tool: its definition (name, description, `parameters`: a TypeBox schema, or a Standard Schema that exports JSON
 * Schema such as zod 4's) and what it does; `execute` gets the checked arguments, typed by the schema. Runs in
 * parallel with other parallel tools only when `executionMode: 'parallel'`.
 */
export function defineTool<P extends TSchema>(spec: {
  def: ToolDefinition<P>;
  execute: ToolExecute<P>;
}): RuntimeTool<P>;
export function defineTool<S extends StandardSchemaWithJson>(spec: StandardToolSpec<S>): RuntimeTool;
export function defineTool(
  spec: { def: ToolDefinition; execute: ToolExecute } | StandardToolSpec<StandardSchemaWithJson>,
): RuntimeTool {
  const { parameters } = spec.def;
  if (!isStandardSchema(parameters))
    return defineRuntimeTool({ ...(spec as { def: ToolDefinition; execute: ToolExecute }), source: 'configured' });
  const name = typeof spec.def.name === 'string' ? spec.def.name : '?';
  // The library checks the arguments itself: the model is shown the schema without its draft's $schema.
  const { $schema: _draft, ...json } = jsonSchemaOfStandard(`tools: ${name}.def.parameters`, parameters);
  const check = standardCheck(parameters);
  const execute = spec.execute as ToolExecute;
  return defineRuntimeTool({
    def: {
      ...spec.def,
      parameters: json as unknown as TSchema,
      // The model sees why its arguments were refused before the call runs, when the library checks synchronously.
      validate: (args) => {
        const checked = check(args);
        return checked instanceof Promise || checked.ok ? undefined : checked.problem;
      },
    },
    // execute gets the library's output (its transforms applied); an asynchronous check is made here.
    execute: async (ctx, input, signal, onUpdate) => {
      const checked = await check(input);
      if (!checked.ok) return errorResult(`Invalid arguments for tool "${name}": ${checked.problem}`);
      return execute(ctx, checked.value as never, signal, onUpdate);
    },
    source: 'configured',
  });
}
