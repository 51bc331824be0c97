// What the front ends get of the tool contract: defining a tool a host hands to a run (defineRuntimeTool), its results
// (textResult, errorResult) and types, and the port of a host's hook on every tool call (ToolCallHook).
export {
  defineRuntimeTool,
  errorResult,
  textResult,
  type RuntimeTool,
  type ToolContext,
  type ToolDefinition,
  type ToolTraits,
  type RuleArgument,
  type ToolExecute,
  type ToolResult,
  type ToolUpdate,
} from '../tools/contract.js';
export type { CallDecision } from '../orchestrator/tool-batch.js';
export type { ScheduledTaskAdapter, ScheduledTaskArgs } from '../tools/agents/create-scheduled-task.js';
export type { GateAgent, ToolCallHook } from '../orchestrator/runtime-ports.js';
