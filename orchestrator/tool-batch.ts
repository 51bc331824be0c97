// Runs the tool calls of one assistant message: all at once when every tool is parallel, else one after
// another; results always in call order. Every failure becomes an error result the model sees.
import { checkArguments, type RuntimeTool, type ToolContext, type ToolResult } from '../tools/contract.js';
import type { ToolCall, ToolResultMessage } from './types.js';

export interface BatchHooks {
  /** A veto on the whole batch (agent_swarm must be alone…): a message refuses every call. */
  vetoBatch?: (calls: readonly ToolCall[]) => string | undefined;
  /** Runs after the arguments are checked, before the tool: a result here replaces the call (a denial). */
  beforeCall?: (call: ToolCall, tool: RuntimeTool, args: unknown, signal: AbortSignal) => Promise<ToolResult | undefined> | ToolResult | undefined;
  /** Runs on every result (the budget gates). */
  afterCall?: (call: ToolCall, tool: RuntimeTool | undefined, result: ToolResult) => Promise<ToolResult> | ToolResult;
}

export interface BatchObserver {
  start?(call: ToolCall): void;
  update?(call: ToolCall, text: string): void;
  end?(call: ToolCall, result: ToolResult, durationMs: number): void;
}

export interface BatchOptions {
  tools: ReadonlyMap<string, RuntimeTool>;
  /** Shared fields of the context; callId is filled per call. */
  context: Omit<ToolContext, 'callId'>;
  signal: AbortSignal;
  hooks?: BatchHooks;
  observer?: BatchObserver;
  now?: () => number;
}

function refusal(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function notAvailable(name: string, options: BatchOptions): ToolResult {
  const names = [...options.tools.keys()];
  const list = names.length > 0 ? ` Available tools: ${names.join(', ')}.` : ' This agent has no tools.';
  return refusal(`Tool "${name}" is not available to the ${options.context.role} agent.${list}`);
}

function parseArguments(raw: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

async function runOne(call: ToolCall, options: BatchOptions): Promise<ToolResult> {
  const tool = options.tools.get(call.name);
  if (!tool) return notAvailable(call.name, options);
  const parsed = parseArguments(call.arguments);
  if (!parsed.ok) {
    return refusal(`Invalid arguments for tool "${call.name}": not valid JSON (${parsed.message}). Send the arguments as one JSON object.`);
  }
  let args = parsed.value;
  try {
    if (tool.def.prepareArguments) args = tool.def.prepareArguments(args);
  } catch (error) {
    return refusal(`Invalid arguments for tool "${call.name}": ${(error as Error).message}`);
  }
  const problem = checkArguments(tool.def, args);
  if (problem) return refusal(problem);
  if (options.signal.aborted) return refusal(`Tool "${call.name}" was not run: the agent was aborted.`);
  if (options.hooks?.beforeCall) {
    const denied = await options.hooks.beforeCall(call, tool, args, options.signal);
    if (denied) return denied;
  }
  const context = { ...options.context, callId: call.id } as ToolContext;
  const observer = options.observer;
  const onUpdate = observer?.update ? (update: { text: string }) => observer.update!(call, update.text) : noop;
  try {
    const result = await tool.impl(context, args as never, options.signal, onUpdate);
    if (!result || !Array.isArray(result.content)) return refusal(`Tool "${call.name}" returned a malformed result (no content list).`);
    return result;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return refusal(`Tool "${call.name}" failed: ${message}`);
  }
}

function noop(): void {}

async function runObserved(call: ToolCall, options: BatchOptions): Promise<ToolResultMessage> {
  const now = options.now ?? Date.now;
  const started = now();
  options.observer?.start?.(call);
  let result = await runOne(call, options);
  if (options.hooks?.afterCall) {
    try {
      result = await options.hooks.afterCall(call, options.tools.get(call.name), result);
    } catch (error) {
      result = refusal(`Tool "${call.name}": its result could not be processed: ${(error as Error).message}`);
    }
  }
  options.observer?.end?.(call, result, now() - started);
  return { role: 'tool', toolCallId: call.id, toolName: call.name, content: result.content, isError: result.isError === true };
}

export function batchIsParallel(calls: readonly ToolCall[], tools: ReadonlyMap<string, RuntimeTool>): boolean {
  for (const call of calls) {
    const tool = tools.get(call.name);
    // An unknown tool is refused at once, so it never forces the batch to run in sequence.
    if (tool && tool.def.executionMode !== 'parallel') return false;
  }
  return true;
}

export async function executeToolBatch(calls: readonly ToolCall[], options: BatchOptions): Promise<ToolResultMessage[]> {
  const veto = options.hooks?.vetoBatch?.(calls);
  if (veto) {
    return calls.map((call) => {
      options.observer?.start?.(call);
      const result = refusal(veto);
      options.observer?.end?.(call, result, 0);
      return { role: 'tool', toolCallId: call.id, toolName: call.name, content: result.content, isError: true };
    });
  }
  if (calls.length === 1) return [await runObserved(calls[0]!, options)];
  if (batchIsParallel(calls, options.tools)) return Promise.all(calls.map((call) => runObserved(call, options)));
  const results: ToolResultMessage[] = [];
  for (const call of calls) results.push(await runObserved(call, options));
  return results;
}
