// The tool-call pipeline and the batch that runs it. One call goes: prepare (known tool, JSON arguments,
// prepareArguments, schema check) -> a tagged union, refused with a result | ready with the tool and its
// checked arguments; then the gate (permissions) may refuse it; then it runs; then the after-call stages
// (result budget, skill chain…) in order. The batch runs the calls of one assistant message: all at once
// when every tool is parallel, else one after another; results always in call order. Every failure becomes
// an error result the model sees. The shell bridge runs single calls through the same pipeline.
import type { AfterCallStage } from '../tools/call-stage.js';
import { checkArguments, type RuntimeTool, type ToolContext, type ToolResult } from '../tools/contract.js';
import { fillBefore } from '../tools/fs/lazy-trees.js';
import type { ToolCall, ToolResultMessage } from './types.js';

export type { AfterCallStage } from '../tools/call-stage.js';

/** A veto on a whole batch (agent_swarm must be alone…): a message refuses every call. Must not throw. */
export type BatchVeto = (calls: readonly ToolCall[]) => string | undefined;

/**
 * The gate after the arguments are checked, before the tool runs: a result refuses the call (a denial), undefined
 * lets it run. Must not throw or reject (a failure is a denial result): the batch does not catch it.
 */
export type CallGate = (
  call: ToolCall,
  tool: RuntimeTool,
  args: unknown,
  signal: AbortSignal,
) => Promise<ToolResult | undefined> | ToolResult | undefined;

/** What the host's call hook decides: undefined goes on to the gate, `deny` refuses, `args` replaces the arguments. */
export type CallDecision = undefined | { deny: ToolResult } | { args: unknown };

/**
 * The host's hook on every call, before the gate: it sees the checked arguments and may refuse the call or rewrite
 * them (the new ones are checked against the tool's schema again). Must not throw or reject: the batch does not catch it.
 */
export type CallHook = (
  call: ToolCall,
  tool: RuntimeTool,
  args: unknown,
  signal: AbortSignal,
) => Promise<CallDecision> | CallDecision;

export interface BatchHooks {
  vetoBatch?: BatchVeto;
  /** The host's hook (onToolCall), before the gate. */
  onCall?: CallHook;
  beforeCall?: CallGate;
  /** Run in order on every result, refusals included (the budget gate, the skill chain…). */
  afterCall?: readonly AfterCallStage[];
}

/** The context every call of an agent shares; callId is filled per call. */
export type AgentToolContext = Omit<ToolContext, 'callId'>;

/** Streamed output of a running call. */
export type CallUpdate = (call: ToolCall, text: string) => void;
/** A call ended, with its result as the conversation keeps it and how long it took. */
export type CallEnd = (call: ToolCall, result: ToolResult, durationMs: number) => void;

export interface BatchObserver {
  start?(call: ToolCall): void;
  update?: CallUpdate | undefined;
  end?: CallEnd | undefined;
}

export interface BatchOptions {
  tools: ReadonlyMap<string, RuntimeTool>;
  context: AgentToolContext;
  signal: AbortSignal;
  hooks?: BatchHooks;
  observer?: BatchObserver;
  now?: () => number;
}

/** A call after preparation: refused (the result says why) or ready to run with its checked arguments. */
export type PreparedCall =
  { kind: 'refused'; result: ToolResult } | { kind: 'ready'; tool: RuntimeTool; args: unknown };

function refusal(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function refused(text: string): PreparedCall {
  return { kind: 'refused', result: refusal(text) };
}

function notAvailable(name: string, tools: ReadonlyMap<string, RuntimeTool>, role: string): PreparedCall {
  const names = [...tools.keys()];
  const list = names.length > 0 ? ` Available tools: ${names.join(', ')}.` : ' This agent has no tools.';
  return refused(`Tool "${name}" is not available to the ${role} agent.${list}`);
}

/** Finds the tool and checks the arguments: pure, no I/O. */
export function prepareCall(call: ToolCall, tools: ReadonlyMap<string, RuntimeTool>, role: string): PreparedCall {
  const tool = tools.get(call.name);
  if (!tool) return notAvailable(call.name, tools, role);
  const raw = call.arguments;
  let args: unknown;
  if (raw.trim() === '') args = {};
  else {
    try {
      args = JSON.parse(raw);
    } catch (error) {
      return refused(
        `Invalid arguments for tool "${call.name}": not valid JSON (${(error as Error).message}). Send the arguments as one JSON object.`,
      );
    }
  }
  try {
    if (tool.def.prepareArguments) args = tool.def.prepareArguments(args);
  } catch (error) {
    return refused(`Invalid arguments for tool "${call.name}": ${(error as Error).message}`);
  }
  const problem = checkArguments(tool.def, args);
  return problem ? refused(problem) : { kind: 'ready', tool, args };
}

/** Arguments rewritten by the host's hook go through the tool's schema again: a refusal naming the rule, or undefined. */
function rewriteProblem(tool: RuntimeTool, args: unknown): ToolResult | undefined {
  const problem = checkArguments(tool.def, args);
  return problem ? refusal(`${problem} (the arguments as the host's onToolCall rewrote them)`) : undefined;
}

function noop(): void {}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/** Where a call stopped short of running: its arguments were invalid, or the gate (permissions) refused it. */
export type CallRefusal = 'invalid' | 'denied';

/** Filled by the pipeline when a call did not run (only the shell bridge asks). */
interface RefusalSlot {
  refused?: CallRefusal;
}

function failed(call: ToolCall, error: unknown): ToolResult {
  return refusal(`Tool "${call.name}" failed: ${error instanceof Error ? error.message : String(error)}`);
}

function checked(call: ToolCall, result: ToolResult): ToolResult {
  return result && Array.isArray(result.content)
    ? result
    : refusal(`Tool "${call.name}" returned a malformed result (no content list).`);
}

function stageFailed(call: ToolCall, stage: AfterCallStage, error: unknown): ToolResult {
  return refusal(`Tool "${call.name}": its result could not be processed (${stage.name}): ${(error as Error).message}`);
}

/**
 * One call through the whole pipeline. A single async frame per call: the gate, the tool and the after-call
 * stages are awaited only when they return a promise, the context is copied without a spread (on Node 20
 * `{ ...context, callId }` costs several times as much), and the clock is read only when tool.end is observed.
 */
async function runCall(
  call: ToolCall,
  options: BatchOptions,
  slot: RefusalSlot | undefined,
): Promise<ToolResultMessage> {
  const observer = options.observer;
  const end = observer?.end;
  const now = end ? (options.now ?? Date.now) : undefined;
  const started = now ? now() : 0;
  observer?.start?.(call);
  let result: ToolResult;
  const prepared = prepareCall(call, options.tools, options.context.role);
  if (prepared.kind === 'refused') {
    if (slot) slot.refused = 'invalid';
    result = prepared.result;
  } else if (options.signal.aborted) {
    if (slot) slot.refused = 'denied';
    result = refusal(`Tool "${call.name}" was not run: the agent was aborted.`);
  } else {
    let args = prepared.args;
    let denied: ToolResult | undefined;
    const hook = options.hooks?.onCall;
    if (hook) {
      const decided = hook(call, prepared.tool, args, options.signal);
      const decision = isPromise(decided) ? await decided : decided;
      if (decision !== undefined) {
        if ('deny' in decision) denied = decision.deny;
        else denied = rewriteProblem(prepared.tool, (args = decision.args));
      }
    }
    const gate = options.hooks?.beforeCall;
    if (gate && !denied) {
      const answer = gate(call, prepared.tool, args, options.signal);
      denied = isPromise(answer) ? await answer : answer;
    }
    if (denied) {
      if (slot) slot.refused = 'denied';
      result = denied;
    } else {
      const context = Object.assign({}, options.context) as ToolContext;
      context.callId = call.id;
      const update = observer?.update;
      const onUpdate = update ? (u: { text: string }) => update.call(observer, call, u.text) : noop;
      try {
        // A swarm worktree made without a checkout gets its files before a tool that may look at them all.
        const filling = fillBefore(context.workspace?.root ?? context.cwd, call.name);
        if (filling) await filling;
        const out = prepared.tool.impl(context, args as never, options.signal, onUpdate);
        result = checked(call, isPromise(out) ? await out : out);
      } catch (error) {
        result = failed(call, error);
      }
    }
  }
  // A call waiting for a person has no result yet: nothing to budget or chain.
  const stages = result.pending ? undefined : options.hooks?.afterCall;
  if (stages && stages.length > 0) {
    const tool = prepared.kind === 'ready' ? prepared.tool : options.tools.get(call.name);
    for (const stage of stages) {
      try {
        const out = stage.run(call, tool, result);
        result = isPromise(out) ? await out : out;
      } catch (error) {
        result = stageFailed(call, stage, error);
        break;
      }
    }
  }
  // A call waiting for a person has not ended: its agent's end (status waiting) closes it for the observers.
  if (end && !result.pending) end.call(observer, call, result, now!() - started);
  return resultMessage(call, result);
}

/**
 * One call through the whole pipeline, observed: the message the conversation keeps (details included) and,
 * when it did not run, where it was refused (the shell bridge maps that to its exit code).
 */
export async function runToolCallOutcome(
  call: ToolCall,
  options: BatchOptions,
): Promise<{ message: ToolResultMessage; refused?: CallRefusal }> {
  const slot: RefusalSlot = {};
  const message = await runCall(call, options, slot);
  return slot.refused ? { message, refused: slot.refused } : { message };
}

export function runToolCall(call: ToolCall, options: BatchOptions): Promise<ToolResultMessage> {
  return runCall(call, options, undefined);
}

function resultMessage(call: ToolCall, result: ToolResult): ToolResultMessage {
  const message: ToolResultMessage = {
    role: 'tool',
    toolCallId: call.id,
    toolName: call.name,
    content: result.content,
    isError: result.isError === true,
  };
  if (result.details !== undefined) message.details = result.details;
  if (result.pending) message.pending = true;
  return message;
}

export function batchIsParallel(calls: readonly ToolCall[], tools: ReadonlyMap<string, RuntimeTool>): boolean {
  for (const call of calls) {
    const tool = tools.get(call.name);
    // An unknown tool is refused at once, so it never forces the batch to run in sequence.
    if (tool && tool.def.executionMode !== 'parallel') return false;
  }
  return true;
}

function one(message: ToolResultMessage): ToolResultMessage[] {
  return [message];
}

/** Runs the calls of one assistant message; results in call order. Not itself async: it returns the promise it builds. */
export function executeToolBatch(calls: readonly ToolCall[], options: BatchOptions): Promise<ToolResultMessage[]> {
  const veto = options.hooks?.vetoBatch?.(calls);
  if (veto) {
    return Promise.resolve(
      calls.map((call) => {
        options.observer?.start?.(call);
        const result = refusal(veto);
        options.observer?.end?.(call, result, 0);
        return resultMessage(call, result);
      }),
    );
  }
  if (calls.length === 1) return runCall(calls[0]!, options, undefined).then(one);
  if (batchIsParallel(calls, options.tools)) {
    const running: Promise<ToolResultMessage>[] = new Array(calls.length);
    for (let i = 0; i < calls.length; i++) running[i] = runCall(calls[i]!, options, undefined);
    return Promise.all(running);
  }
  return inSequence(calls, options);
}

async function inSequence(calls: readonly ToolCall[], options: BatchOptions): Promise<ToolResultMessage[]> {
  const results: ToolResultMessage[] = [];
  for (const call of calls) results.push(await runCall(call, options, undefined));
  return results;
}
