// A fake Anthropic Messages server on 127.0.0.1 that speaks the real wire format: SSE with `event:` lines and
// message_start / content_block_start / ping / content_block_delta / content_block_stop / message_delta /
// message_stop, and the API's JSON error bodies. Scripted per request; records every request.
//
//   const server = await startFakeAnthropicServer();
//   server.enqueue(anthropicToolUse([{ name: 'read', input: ['{"pa', 'th":"a"}'] }]), anthropicText('done'));
//   new AnthropicProvider({ model: 'claude-sonnet-4-5', apiKey: 'k', baseURL: server.baseURL });
//   server.requests[1].body.messages  // what the second call carried
//   await server.close();
import type { ServerResponse } from 'node:http';
import {
  startScriptedHttpServer,
  type RawReply,
  type RecordedRequest,
  type ScriptedHttpServer,
} from './scripted-http-server.js';

export type { RecordedRequest };

export interface SseEvent {
  event: string;
  data: object;
}

export type AnthropicReply =
  | {
      kind: 'stream';
      events: SseEvent[];
      /** After this many events, send half of the next one and destroy the socket. */
      cutAfter?: number;
      /** After this many events, stop writing and hold the connection until the client leaves. */
      hangAfter?: number;
      headers?: Record<string, string>;
    }
  | { kind: 'error'; status: number; body: object; headers?: Record<string, string> }
  | RawReply;

export type AnthropicReplier = (request: RecordedRequest, index: number) => AnthropicReply;

/** Replies are used one per request, in order; then the fallback (default: a 500 saying nothing was scripted). */
export type FakeAnthropicServer = ScriptedHttpServer<AnthropicReply>;

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export interface StreamOptions {
  model?: string;
  usage?: Usage;
  stopReason?: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';
}

export interface FakeToolUse {
  id?: string;
  name: string;
  /** The input JSON, whole or in the pieces it is streamed in (input_json_delta). */
  input: string | string[];
}

/** A thinking block (its text in streamed pieces, then its signature) or a redacted one. */
export type FakeThinking = { thinking: string | string[]; signature: string } | { redacted: string };

let counter = 0;

/** The events of one streamed answer, in the API's order: thinking blocks, a text block, then one block per tool use. */
export function anthropicEvents(
  spec: { text?: string | string[]; toolUses?: FakeToolUse[]; thinking?: FakeThinking[] } & StreamOptions,
): SseEvent[] {
  const id = `msg_fake${++counter}`;
  const usage = spec.usage ?? { input_tokens: 10, output_tokens: 5 };
  const toolUses = spec.toolUses ?? [];
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: spec.model ?? 'claude-sonnet-4-5-20250929',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.input_tokens,
            cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
            cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
            output_tokens: 1,
            service_tier: 'standard',
          },
        },
      },
    },
    { event: 'ping', data: { type: 'ping' } },
  ];
  let index = 0;
  for (const block of spec.thinking ?? []) {
    if ('redacted' in block) {
      events.push({
        event: 'content_block_start',
        data: {
          type: 'content_block_start',
          index,
          content_block: { type: 'redacted_thinking', data: block.redacted },
        },
      });
    } else {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } },
      });
      for (const piece of typeof block.thinking === 'string' ? [block.thinking] : block.thinking) {
        events.push({
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } },
        });
      }
      events.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } },
      });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
    index++;
  }
  const texts = spec.text === undefined ? [] : typeof spec.text === 'string' ? [spec.text] : spec.text;
  if (texts.length > 0) {
    events.push({
      event: 'content_block_start',
      data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
    });
    for (const text of texts)
      events.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text } },
      });
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
    index++;
  }
  for (const use of toolUses) {
    const useId = use.id ?? `toolu_fake${counter}_${index}`;
    events.push({
      event: 'content_block_start',
      data: {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: useId, name: use.name, input: {} },
      },
    });
    for (const piece of typeof use.input === 'string' ? [use.input] : use.input) {
      events.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } },
      });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
    index++;
  }
  const stopReason = spec.stopReason ?? (toolUses.length > 0 ? 'tool_use' : 'end_turn');
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

/** A streamed text answer. */
export function anthropicText(
  text: string | string[],
  options: StreamOptions & { thinking?: FakeThinking[] } = {},
): AnthropicReply {
  return { kind: 'stream', events: anthropicEvents({ text, ...options }) };
}

/** A streamed answer with tool_use blocks (and optional text before them). */
export function anthropicToolUse(
  toolUses: FakeToolUse[],
  options: StreamOptions & { text?: string | string[]; thinking?: FakeThinking[] } = {},
): AnthropicReply {
  return { kind: 'stream', events: anthropicEvents({ ...options, toolUses }) };
}

/** The `event: error` the API sends when it gives up inside a stream. */
export function anthropicStreamError(type = 'overloaded_error', message = 'Overloaded'): SseEvent {
  return { event: 'error', data: { type: 'error', error: { type, message } } };
}

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/** An error response with the API's JSON body. */
export function anthropicError(
  status: number,
  message: string,
  options: { type?: string; headers?: Record<string, string> } = {},
): AnthropicReply {
  const type = options.type ?? TYPE_BY_STATUS[status] ?? 'api_error';
  const reply: AnthropicReply = {
    kind: 'error',
    status,
    body: { type: 'error', error: { type, message }, request_id: `req_fake${++counter}` },
  };
  if (options.headers) reply.headers = options.headers;
  return reply;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function writeStream(
  res: ServerResponse,
  reply: Extract<AnthropicReply, { kind: 'stream' }>,
  record: RecordedRequest,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...reply.headers,
  });
  res.flushHeaders();
  for (let i = 0; i < reply.events.length; i++) {
    const { event, data } = reply.events[i]!;
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    if (i === reply.cutAfter) {
      res.write(frame.slice(0, Math.ceil(frame.length / 2)));
      await tick();
      res.socket?.destroy();
      return;
    }
    if (i === reply.hangAfter) return; // the request's close handler ends it
    res.write(frame);
    // Separate writes land in separate reads, so the client really assembles pieces.
    await tick();
    if (record.closedEarly) return;
  }
  if (reply.cutAfter !== undefined && reply.cutAfter >= reply.events.length) {
    res.socket?.destroy();
    return;
  }
  if (reply.hangAfter !== undefined) return;
  res.end();
}

export function startFakeAnthropicServer(): Promise<FakeAnthropicServer> {
  return startScriptedHttpServer<AnthropicReply>({
    basePath: '',
    route: '/v1/messages',
    notFound: (method, path) => ({
      type: 'error',
      error: { type: 'not_found_error', message: `fake Anthropic server: no route ${method} ${path}` },
    }),
    fallback: (_request, index) =>
      anthropicError(500, `fake Anthropic server: no reply scripted for request ${index + 1}`),
    stream: writeStream,
  });
}
