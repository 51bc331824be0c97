// Provider-neutral conversation types shared by the loop, the providers and the transcript.
import type { MediaContent, TextContent, ToolContent } from '../tools/contract.js';

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

export interface AssistantMessage {
  role: 'assistant';
  text: string;
  toolCalls: ToolCall[];
  stopReason: StopReason;
  usage?: Usage;
  model?: string;
}

export interface ToolResultMessage {
  role: 'tool';
  toolCallId: string;
  toolName: string;
  content: ToolContent[];
  isError: boolean;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** The text of a user message, media left out. */
export function userText(message: UserMessage): string {
  if (typeof message.content === 'string') return message.content;
  let out = '';
  for (const block of message.content) if (block.type === 'text') out += block.text;
  return out;
}

export type { ToolSchema } from '../tools/contract.js';

export type AgentStatus = 'running' | 'completed' | 'failed' | 'timeout' | 'aborted' | 'budget' | 'interrupted';
export type EndStatus = Exclude<AgentStatus, 'running' | 'interrupted'>;
