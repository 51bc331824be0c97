// A transcript cut by a killed process can end with tool calls that never got results. The model APIs
// reject such a conversation, so each missing result is filled in: with the handoff of a subagent that
// finished before the kill (its parent was still waiting for the rest of the batch), else with an error
// that says what happened.
import { subagentHandoff } from '../tools/agents/agent.js';
import { userText, type AgentStatus, type Message, type ToolCall, type ToolResultMessage } from './types.js';

export const INTERRUPTED_RESULT =
  'Interrupted: the process stopped before this call finished. Check its effects before repeating it.';

/** A result for a call whose result was lost, when one is known. */
export type KnownResult = (call: ToolCall) => ToolResultMessage | undefined;

/**
 * `leaveOpen`: calls of the last assistant message that wait for a person (an interruption, or a subagent that waits
 * for one): they keep no result, and the agent runs them, answered, when it goes on.
 */
export function repairTranscript(
  messages: Message[],
  known?: KnownResult,
  leaveOpen?: (call: ToolCall) => boolean,
): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    out.push(message);
    if (message.role !== 'assistant' || message.toolCalls.length === 0) continue;
    let j = i + 1;
    while (j < messages.length && messages[j]!.role === 'tool') j++;
    const results = messages.slice(i + 1, j);
    const last = j === messages.length;
    for (const call of message.toolCalls) {
      const found = results.find((r) => (r as ToolResultMessage).toolCallId === call.id);
      if (!found && last && leaveOpen?.(call)) continue;
      out.push(
        found ??
          known?.(call) ?? {
            role: 'tool',
            toolCallId: call.id,
            toolName: call.name,
            content: [{ type: 'text', text: INTERRUPTED_RESULT }],
            isError: true,
          },
      );
    }
    i = j - 1;
  }
  return out;
}

/** What a saved session knows of an agent. */
export interface SavedAgent {
  id: string;
  parentId?: string;
  profile: string;
  description?: string;
  status: AgentStatus | 'idle';
  reason?: string;
}

const FINISHED = new Set<string>(['completed', 'failed', 'timeout', 'aborted', 'budget']);

function firstUserText(messages: readonly Message[]): string | undefined {
  const first = messages.find((m) => m.role === 'user');
  if (!first || first.role !== 'user') return undefined;
  return userText(first);
}

function lastText(messages: readonly Message[]): string {
  let text = '';
  for (const m of messages) if (m.role === 'assistant' && m.text) text = m.text;
  return text;
}

/**
 * The lost results of a parent's foreground agent calls whose subagents had finished: the call is matched to
 * its subagent by id (resume) or by prompt and description, each subagent to one call at most. Calls of
 * subagents still running when the process stopped keep the interrupted result (the parent is told they can be
 * resumed).
 */
export function finishedSubagentResults(
  parentId: string,
  agents: readonly SavedAgent[],
  transcripts: ReadonlyMap<string, readonly Message[]>,
): KnownResult {
  const used = new Set<string>();
  return (call) => {
    if (call.name !== 'agent') return undefined;
    let args: { prompt?: unknown; description?: unknown; resume?: unknown; run_in_background?: unknown };
    try {
      args = JSON.parse(call.arguments) as typeof args;
    } catch {
      return undefined;
    }
    if (args.run_in_background === true) return undefined;
    // The latest match: a call repeated after an earlier attempt belongs to the newer subagent.
    const child = agents.findLast((a) => {
      if (a.parentId !== parentId || used.has(a.id)) return false;
      if (typeof args.resume === 'string') return a.id === args.resume;
      return (
        typeof args.prompt === 'string' &&
        firstUserText(transcripts.get(a.id) ?? []) === args.prompt &&
        (a.description ?? '') === String(args.description ?? '').trim()
      );
    });
    if (!child || !FINISHED.has(child.status)) return undefined;
    used.add(child.id);
    const outcome = {
      agentId: child.id,
      subagentType: child.profile,
      status: child.status,
      text: lastText(transcripts.get(child.id) ?? []),
    };
    const handoff = subagentHandoff(child.reason !== undefined ? { ...outcome, reason: child.reason } : outcome);
    return {
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: 'text', text: handoff.text }],
      isError: handoff.isError,
    };
  };
}
