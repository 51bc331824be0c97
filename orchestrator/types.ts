// Provider-neutral conversation types shared by the loop, the providers and the transcript.
import type { MediaContent, TextContent, ToolContent } from '../protocol/messages.js';

export type { MediaContent, TextContent, ToolContent } from '../protocol/messages.js';

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** US dollars, when a price is known. */
  cost?: number;
}

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

export interface ToolCall {
  id: string;
  name: string;
  /** The raw JSON text the model sent; parsed (and checked) by the loop. */
  arguments: string;
}

export interface UserMessage {
  role: 'user';
  content: string | (TextContent | MediaContent)[];
  /** Set on messages the engine injects (a background task finished, a timer fired). */
  synthetic?: { kind: string; taskId?: string };
}

export type StopReason = 'end' | 'tool_calls' | 'length';

/** How hard a model should think: mapped per provider (reasoning_effort, an extended-thinking budget). */
export type Effort = 'low' | 'medium' | 'high';

/**
 * A model's reasoning, kept in the conversation as it came. Anthropic's `signature` (and `redacted_thinking`'s
 * `data`) must go back unchanged with tool results; reasoning text from OpenAI-compatible servers has no signature.
 */
export type ThinkingBlock =
  { type: 'thinking'; thinking: string; signature?: string } | { type: 'redacted_thinking'; data: string };

export interface AssistantMessage {
  role: 'assistant';
  text: string;
  toolCalls: ToolCall[];
  stopReason: StopReason;
  usage?: Usage;
  model?: string;
  /** The model's reasoning blocks, in the order they came, before the text and tool calls. */
  thinking?: ThinkingBlock[];
}

export interface ToolResultMessage {
  role: 'tool';
  toolCallId: string;
  toolName: string;
  content: ToolContent[];
  isError: boolean;
  /** The tool's structured details (ToolResult.details): kept for the engine (which files changed…), never sent to the model. */
  details?: unknown;
  /** The call waits for a person (ToolResult.pending): this message is never kept, the call stays open. */
  pending?: true;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** The text of a user message, media left out. */
export function userText(message: UserMessage): string {
  if (typeof message.content === 'string') return message.content;
  let out = '';
  for (const block of message.content) if (block.type === 'text') out += block.text;
  return out;
}

export type { ToolSchema } from '../protocol/messages.js';

/** `waiting`: it stopped at a call that needs a person (an interruption); a resume given the answer goes on there. */
export type AgentStatus =
  'running' | 'completed' | 'failed' | 'timeout' | 'aborted' | 'budget' | 'waiting' | 'interrupted';
export type EndStatus = Exclude<AgentStatus, 'running' | 'interrupted'>;

/** What the reports and the saved state say of one agent. */
export interface AgentSummary {
  id: string;
  parentId?: string;
  role: string;
  description?: string;
  item?: string;
  status: AgentStatus | 'idle';
  reason?: string;
  usage: Usage;
  turns: number;
  toolCalls: number;
}
