// The conversation in Messages-API shape: content blocks, tool_use / tool_result pairs, and thinking blocks sent
// back exactly as they came. Pure functions of the messages (the provider in anthropic.ts does the I/O).
import type Anthropic from '@anthropic-ai/sdk';
import type { MediaContent, TextContent } from '../../protocol/messages.js';
import type { Message, ThinkingBlock } from '../types.js';

type MessageParam = Anthropic.Messages.MessageParam;
type BlockParam = Anthropic.Messages.ContentBlockParam;
type ImageMime = Anthropic.Messages.Base64ImageSource['media_type'];

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function mediaBlock(block: MediaContent): BlockParam {
  if (block.type === 'image' && IMAGE_TYPES.has(block.mimeType)) {
    return { type: 'image', source: { type: 'base64', media_type: block.mimeType as ImageMime, data: block.data } };
  }
  return { type: 'text', text: `[a ${block.mimeType} ${block.type} was left out: this model does not take it]` };
}

function contentBlocks(content: readonly (TextContent | MediaContent)[]): BlockParam[] {
  const out: BlockParam[] = [];
  // The API rejects empty text blocks.
  for (const block of content) {
    if (block.type === 'text') {
      if (block.text) out.push({ type: 'text', text: block.text });
    } else out.push(mediaBlock(block));
  }
  return out;
}

function toolInput(raw: string): Record<string, unknown> {
  // The loop already told the model when its arguments were not JSON; the API needs an object regardless.
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The conversation in Messages-API shape: tool results and user text that follow each other share one user message. */
export function toAnthropicMessages(messages: readonly Message[]): MessageParam[] {
  const out: { role: 'user' | 'assistant'; content: BlockParam[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: BlockParam[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    if (message.role === 'user') {
      const blocks =
        typeof message.content === 'string'
          ? contentBlocks([{ type: 'text', text: message.content }])
          : contentBlocks(message.content);
      push('user', blocks.length > 0 ? blocks : [{ type: 'text', text: '(empty message)' }]);
    } else if (message.role === 'assistant') {
      const blocks: BlockParam[] = thinkingBlocks(message.thinking);
      if (message.text) blocks.push({ type: 'text', text: message.text });
      for (const call of message.toolCalls)
        blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call.arguments) });
      push('assistant', blocks.length > 0 ? blocks : [{ type: 'text', text: '(no answer)' }]);
    } else {
      const result: Anthropic.Messages.ToolResultBlockParam = { type: 'tool_result', tool_use_id: message.toolCallId };
      const blocks = contentBlocks(message.content) as Exclude<
        Anthropic.Messages.ToolResultBlockParam['content'],
        string | undefined
      >;
      if (blocks.length > 0) result.content = blocks;
      if (message.isError) result.is_error = true;
      push('user', [result]);
    }
  }
  return out;
}

/**
 * Thinking goes back exactly as it came (the API checks the signatures). Reasoning without a signature (from
 * an OpenAI-compatible model earlier in the conversation) cannot be verified, so it is left out.
 */
function thinkingBlocks(thinking: readonly ThinkingBlock[] | undefined): BlockParam[] {
  const out: BlockParam[] = [];
  for (const block of thinking ?? []) {
    if (block.type === 'redacted_thinking') out.push({ type: 'redacted_thinking', data: block.data });
    else if (block.signature) out.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
  }
  return out;
}

/**
 * Thinking cannot be switched on inside a tool-use loop: with tool results pending, the API wants the assistant
 * message that asked for them to begin with a signed thinking block (a run resumed with --effort, or a model
 * switched mid-conversation, has none). Such a request goes without thinking; the next user turn gets it.
 */
export function midToolLoopWithoutThinking(messages: readonly Message[]): boolean {
  if (messages[messages.length - 1]?.role !== 'tool') return false;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'user') return false;
    if (message.role === 'assistant')
      return !message.thinking?.some((b) => b.type === 'redacted_thinking' || Boolean(b.signature));
  }
  return false;
}
