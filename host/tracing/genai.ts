// The OpenTelemetry GenAI semantic conventions murmur's spans follow, pinned to one version: the GenAI documents of
// semantic conventions v1.41.0 (their last release in the core repository; status Development). Attribute names,
// the finish-reason values and the message shapes of `gen_ai.input.messages` / `gen_ai.output.messages` are
// written here once (the conventions package's incubating names change between minor releases, so they are copied,
// as its README advises).
import type { Attributes } from '@opentelemetry/api';
import type { Message, StopReason, Usage } from '../../orchestrator/types.js';

export const GENAI_SEMCONV_VERSION = '1.41.0';
export const SCHEMA_URL = `https://opentelemetry.io/schemas/${GENAI_SEMCONV_VERSION}`;

export const OPERATION = 'gen_ai.operation.name';
export const PROVIDER = 'gen_ai.provider.name';
export const REQUEST_MODEL = 'gen_ai.request.model';
export const RESPONSE_MODEL = 'gen_ai.response.model';
export const RESPONSE_ID = 'gen_ai.response.id';
export const CONVERSATION_ID = 'gen_ai.conversation.id';
export const FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const AGENT_ID = 'gen_ai.agent.id';
export const AGENT_NAME = 'gen_ai.agent.name';
export const TOOL_NAME = 'gen_ai.tool.name';
export const TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const TOOL_TYPE = 'gen_ai.tool.type';
export const TOOL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const TOOL_RESULT = 'gen_ai.tool.call.result';
export const INPUT_MESSAGES = 'gen_ai.input.messages';
export const OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const ERROR_TYPE = 'error.type';

/**
 * A model spec or provider name (`openai:gpt-4.1`, `scripted:FILE`, a provider object's name) as provider and model.
 * The scripted model's file is no model name: it is `scripted`.
 */
export function providerAndModel(spec: string): { provider: string; model: string } {
  const colon = spec.indexOf(':');
  if (colon <= 0) return { provider: spec, model: spec };
  const provider = spec.slice(0, colon);
  return { provider, model: provider === 'scripted' ? 'scripted' : spec.slice(colon + 1) };
}

/** `server.address` and `server.port` of a base URL (the port the scheme implies when it names none). */
export function serverAttributes(baseURL: string): Attributes {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return {};
  }
  const port = url.port
    ? Number(url.port)
    : url.protocol === 'https:'
      ? 443
      : url.protocol === 'http:'
        ? 80
        : undefined;
  const address = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return port === undefined ? { 'server.address': address } : { 'server.address': address, 'server.port': port };
}

/** murmur's stop reason as the conventions' finish reason. */
export function finishReason(stop: StopReason): string {
  return stop === 'end' ? 'stop' : stop === 'tool_calls' ? 'tool_call' : 'length';
}

/**
 * A call's (or an agent's) usage. murmur counts cached input apart from `input`; the conventions' input tokens
 * include the cache reads and writes.
 */
export function usageAttributes(usage: Usage): Attributes {
  return {
    'gen_ai.usage.input_tokens': usage.input + usage.cacheRead + usage.cacheWrite,
    'gen_ai.usage.output_tokens': usage.output,
    'gen_ai.usage.cache_read.input_tokens': usage.cacheRead,
    'gen_ai.usage.cache_creation.input_tokens': usage.cacheWrite,
  };
}

type Part = Record<string, unknown>;
export interface ChatMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

function textParts(content: string | readonly { type: string; text?: string; mimeType?: string }[]): Part[] {
  if (typeof content === 'string') return [{ type: 'text', content }];
  return content.map((block) =>
    block.type === 'text'
      ? { type: 'text', content: block.text ?? '' }
      : // Media bytes stay out of traces: the part says what was there.
        { type: block.type, mime_type: block.mimeType ?? null },
  );
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A conversation message in the conventions' message shape (text, tool calls and tool results as parts). */
export function chatMessage(message: Message): ChatMessage {
  switch (message.role) {
    case 'user':
      return { role: 'user', parts: textParts(message.content) };
    case 'tool':
      return {
        role: 'tool',
        parts: [
          {
            type: 'tool_call_response',
            id: message.toolCallId,
            response: message.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(''),
          },
        ],
      };
    case 'assistant': {
      const parts: Part[] = message.text ? [{ type: 'text', content: message.text }] : [];
      for (const call of message.toolCalls)
        parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: parsedArguments(call.arguments) });
      return { role: 'assistant', parts };
    }
  }
}
