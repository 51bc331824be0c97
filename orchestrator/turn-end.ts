// The turn.end event of a model call, answered or failed: what the dashboards count, and what traces need to name
// the call (the server it went to, the response's id and model, the failure's HTTP status or kind).
import type { TurnEndEvent } from '../protocol/events.js';

/** turn.end before the bus stamps its time. */
type TurnEnd = Omit<TurnEndEvent, 'ts'>;
import type { AssistantMessage } from '../protocol/messages.js';
import type { ModelError } from './models/provider.js';

export function answeredTurnEnd(
  agentId: string,
  turn: number,
  message: AssistantMessage,
  server: string | undefined,
): TurnEnd {
  const event: TurnEnd = { type: 'turn.end', agentId, turn, toolCalls: message.toolCalls.length };
  if (message.usage) event.usage = message.usage;
  if (server !== undefined) event.server = server;
  if (message.responseId !== undefined) event.responseId = message.responseId;
  if (message.responseModel !== undefined) event.responseModel = message.responseModel;
  return event;
}

export function failedTurnEnd(agentId: string, turn: number, error: ModelError, server: string | undefined): TurnEnd {
  const event: TurnEnd = { type: 'turn.end', agentId, turn, toolCalls: 0, error: error.message };
  event.errorKind = error.kind;
  if (error.status !== undefined) event.errorStatus = error.status;
  if (server !== undefined) event.server = server;
  return event;
}
