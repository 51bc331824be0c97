// The library's onToolCall: a hook of the host's on every tool call of every agent, before the permission checks.
// Its answer (allow, deny with a reason, rewrite the arguments) becomes the tool-call pipeline's decision; a hook that
// throws or rejects denies the call with its error, so the pipeline's contract (never throws) holds.
import { errorResult, type CallDecision, type GateAgent, type ToolCallHook } from '../host/tool-contract.js';

/** A tool call as the hook sees it, its arguments already checked against the tool's schema. */
export interface ToolCallInfo {
  /** The run's id (its session's), as on its events. */
  sessionId: string;
  /** The calling agent's id (`main`, `a3`…), as on events. */
  agentId: string;
  /** Its agent: `main`, a role, or a defined agent's name (an agent file's or defineAgent's). */
  agent: string;
  /** The role whose tool cap applies to it: main, explore, worker, verifier, or custom (an agent file's). */
  role: string;
  /** The tool's name (`bash`, `mcp__github__search`, one of yours). */
  tool: string;
  /** The call's id, as on tool.start and tool.end. */
  callId: string;
  /** The arguments, checked against the tool's schema. */
  args: unknown;
  /** Aborted when the agent is. */
  signal: AbortSignal;
}

/**
 * What the hook decides: `allow` goes on to the permission checks (as does answering nothing), `deny` refuses the
 * call with `reason` (the model reads it), `rewrite` runs it with `args` instead (checked against the tool's schema
 * again; the permission checks then see them).
 */
export type ToolCallDecision =
  { kind: 'allow' } | { kind: 'deny'; reason: string } | { kind: 'rewrite'; args: unknown };

/** createMurmur's onToolCall. It may be async; only the call it decides waits for it. */
export type ToolCallHandler = (
  call: ToolCallInfo,
) => ToolCallDecision | undefined | void | Promise<ToolCallDecision | undefined | void>;

function refusal(tool: string, reason: string): CallDecision {
  return { deny: errorResult(`Tool "${tool}" was refused: ${reason}`, { hook: 'deny' }) };
}

function decisionOf(tool: string, answer: ToolCallDecision | undefined | void): CallDecision {
  if (answer === undefined || answer === null) return undefined;
  switch (answer.kind) {
    case 'allow':
      return undefined;
    case 'deny':
      return refusal(
        tool,
        typeof answer.reason === 'string' && answer.reason !== '' ? answer.reason : 'denied by the host',
      );
    case 'rewrite':
      return { args: answer.args };
    default:
      return refusal(tool, `onToolCall answered ${JSON.stringify(answer)}, not allow, deny or rewrite`);
  }
}

function thrown(tool: string, error: unknown): CallDecision {
  return refusal(tool, `onToolCall failed: ${error instanceof Error ? error.message : String(error)}`);
}

/** The pipeline's hook for `handler` on one run. */
export function toolCallHook(handler: ToolCallHandler, sessionId: string): ToolCallHook {
  return (agent: GateAgent, call, tool, args, signal) => {
    let answer: ReturnType<ToolCallHandler>;
    try {
      answer = handler({
        sessionId,
        agentId: agent.id,
        agent: agent.profile.name,
        role: agent.profile.role ?? agent.profile.name,
        tool: call.name,
        callId: call.id,
        args,
        signal,
      });
    } catch (error) {
      return thrown(call.name, error);
    }
    if (answer instanceof Promise)
      return answer.then(
        (value) => decisionOf(call.name, value),
        (error: unknown) => thrown(call.name, error),
      );
    return decisionOf(call.name, answer);
  };
}
