// murmur/tools: your own tools, with the contract of the built-in ones (a TypeBox schema for the arguments,
// checked before `execute` runs; the result's text goes to the model). Hand them to createMurmur's `tools`.
import { defineRuntimeTool, type RuntimeTool, type ToolDefinition, type ToolExecute } from '../host/tool-contract.js';
import type { TSchema } from '@sinclair/typebox';

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

/** A tool: its definition (name, description, TypeBox `parameters`) and what it does. Runs in parallel with other parallel tools only when `executionMode: 'parallel'`. */
export function defineTool<P extends TSchema>(spec: {
  def: ToolDefinition<P>;
  execute: ToolExecute<P>;
}): RuntimeTool<P> {
  return defineRuntimeTool({ def: spec.def, execute: spec.execute, source: 'configured' });
}
