// A transcript cut by a killed process can end with tool calls that never got results. The model APIs
// reject such a conversation, so each missing result is filled with an error that says what happened.
import type { Message, ToolResultMessage } from './types.js';

export const INTERRUPTED_RESULT = 'Interrupted: the process stopped before this call finished. Check its effects before repeating it.';

export function repairTranscript(messages: Message[]): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    out.push(message);
    if (message.role !== 'assistant' || message.toolCalls.length === 0) continue;
    let j = i + 1;
    while (j < messages.length && messages[j]!.role === 'tool') j++;
    const results = messages.slice(i + 1, j);
    for (const call of message.toolCalls) {
      const found = results.find((r) => (r as ToolResultMessage).toolCallId === call.id);
      out.push(found ?? { role: 'tool', toolCallId: call.id, toolName: call.name, content: [{ type: 'text', text: INTERRUPTED_RESULT }], isError: true });
    }
    i = j - 1;
  }
  return out;
}
