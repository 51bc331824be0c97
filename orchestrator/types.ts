// Provider-neutral conversation helpers shared by the loop, the providers and the transcript. The types are
// protocol/'s (messages.ts, usage.ts, agents.ts), re-exported here so every existing importer keeps compiling.
import type { UserMessage } from '../protocol/messages.js';
import type { Usage } from '../protocol/usage.js';

export type {
  AssistantMessage,
  Effort,
  MediaContent,
  Message,
  StopReason,
  TextContent,
  ThinkingBlock,
  ToolCall,
  ToolContent,
  ToolResultMessage,
  ToolSchema,
  UserMessage,
} from '../protocol/messages.js';
export type { Usage } from '../protocol/usage.js';
export type { AgentStatus, AgentSummary, EndStatus } from '../protocol/agents.js';

export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
}

export function addUsage(into: Usage, more: Partial<Usage>): Usage {
  into.input += more.input ?? 0;
  into.output += more.output ?? 0;
  into.cacheRead += more.cacheRead ?? 0;
  into.cacheWrite += more.cacheWrite ?? 0;
  if (more.cost !== undefined) into.cost = (into.cost ?? 0) + more.cost;
  return into;
}

export function totalTokens(usage: Usage): number {
  return usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

/** The text of a user message, media left out. */
export function userText(message: UserMessage): string {
  if (typeof message.content === 'string') return message.content;
  let out = '';
  for (const block of message.content) if (block.type === 'text') out += block.text;
  return out;
}
