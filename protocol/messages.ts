// The ground floor of a conversation: the content blocks it is made of, its messages (user, assistant, tool
// result) and the tool schemas a model is offered. Imports only protocol/, so every room (the tool contract, the
// loop, every model provider, the transcript) may import it.
import type { Usage } from './usage.js';

/** A text block of a message or a tool result. */
export interface TextContent {
  type: 'text';
  text: string;
}

/** An image or a video sent to the model inline (base64). */
export interface MediaContent {
  type: 'image' | 'video';
  data: string;
  mimeType: string;
}

/** What a tool result holds (and a user message, besides plain text). */
export type ToolContent = TextContent | MediaContent;

/** The JSON schema a provider sends for one tool (what the model sees of it). */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: unknown;
}

/** A tool call the model makes: its id, the tool and its arguments (as JSON text). */
export interface ToolCall {
  id: string;
  name: string;
  /** The raw JSON text the model sent; parsed (and checked) by the loop. */
  arguments: string;
}

/** A message to the model from the person, or one murmur adds (marked `synthetic`). */
export interface UserMessage {
  role: 'user';
  content: string | (TextContent | MediaContent)[];
  /** Set on messages the engine injects (a background task finished, a timer fired). */
  synthetic?: { kind: string; taskId?: string };
}

/** Why the model stopped: it ended its answer, it called tools, or it ran out of output tokens. */
export type StopReason = 'end' | 'tool_calls' | 'length';

/** How hard a model should think: mapped per provider (reasoning_effort, an extended-thinking budget). */
export type Effort = 'low' | 'medium' | 'high';

/**
 * A model's reasoning, kept in the conversation as it came. Anthropic's `signature` (and `redacted_thinking`'s
 * `data`) must go back unchanged with tool results; reasoning text from OpenAI-compatible servers has no signature.
 */
export type ThinkingBlock =
  { type: 'thinking'; thinking: string; signature?: string } | { type: 'redacted_thinking'; data: string };

/** The model's answer in a conversation: its text, the tool calls it makes, why it stopped and what it cost. */
export interface AssistantMessage {
  role: 'assistant';
  text: string;
  toolCalls: ToolCall[];
  stopReason: StopReason;
  usage?: Usage;
  model?: string;
  /** What the server said of its answer: its id, and the model that answered (a dated version, say). */
  responseId?: string;
  responseModel?: string;
  /** The model's reasoning blocks, in the order they came, before the text and tool calls. */
  thinking?: ThinkingBlock[];
}

/** A tool's result in the conversation, answering one tool call by its id. */
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

/** One message of a conversation: the person's (or murmur's), the model's, or a tool's result. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;
