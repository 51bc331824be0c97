// The opt-in content of spans (`tracing: { captureContent: true }`, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
// on the command line): each agent's conversation as the conventions' messages, put on its model calls
// (`gen_ai.input.messages`, `gen_ai.output.messages`), and tool calls' whole arguments and results. Only the messages
// of this process's run are known: a resumed agent's earlier conversation is not on its spans.
import type { Attributes, Span } from '@opentelemetry/api';
import type { EventOf } from '../../orchestrator/events.js';
import type { AssistantMessage, Message } from '../../orchestrator/types.js';
import {
  chatMessage,
  finishReason,
  INPUT_MESSAGES,
  OUTPUT_MESSAGES,
  TOOL_ARGUMENTS,
  TOOL_RESULT,
  type ChatMessage,
} from './genai.js';

function callKey(agentId: string, callId: string): string {
  return `${agentId}\u0000${callId}`;
}

export class ContentLog {
  private readonly conversations = new Map<string, ChatMessage[]>();
  /** Whole arguments of the calls the model asked for (tool.start carries 200 characters). */
  private readonly args = new Map<string, string>();
  /** Tool spans whose result has not joined the conversation yet, with the moment the call ended. */
  private readonly pending = new Map<string, { span: Span; end: number }>();

  /** The conversation so far, as a model call's input. */
  inputOf(agentId: string, attributes: Attributes): void {
    attributes[INPUT_MESSAGES] = JSON.stringify(this.conversations.get(agentId) ?? []);
  }

  outputOf(message: AssistantMessage, span: Span): void {
    const output = { ...chatMessage(message), finish_reason: finishReason(message.stopReason) };
    span.setAttribute(OUTPUT_MESSAGES, JSON.stringify([output]));
  }

  argumentsOf(event: EventOf<'tool.start'>, attributes: Attributes): void {
    const key = callKey(event.agentId, event.callId);
    attributes[TOOL_ARGUMENTS] = this.args.get(key) ?? event.args;
    this.args.delete(key);
  }

  endWithResult(agentId: string, callId: string, span: Span): void {
    this.pending.set(callKey(agentId, callId), { span, end: Date.now() });
  }

  /** A message joined an agent's conversation; a tool result ends its call's span. */
  add(agentId: string, message: Message): void {
    let conversation = this.conversations.get(agentId);
    if (!conversation) this.conversations.set(agentId, (conversation = []));
    const converted = chatMessage(message);
    conversation.push(converted);
    if (message.role === 'assistant')
      for (const call of message.toolCalls) this.args.set(callKey(agentId, call.id), call.arguments);
    if (message.role !== 'tool') return;
    const key = callKey(agentId, message.toolCallId);
    const waiting = this.pending.get(key);
    if (!waiting) return;
    this.pending.delete(key);
    waiting.span.setAttribute(TOOL_RESULT, String(converted.parts[0]?.response ?? ''));
    waiting.span.end(waiting.end);
  }

  endPending(): void {
    for (const { span, end } of this.pending.values()) span.end(end);
    this.pending.clear();
  }
}
