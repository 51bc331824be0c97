// A fake OpenAI Chat Completions server on 127.0.0.1 that speaks the real wire format: SSE chunks shaped like
// the API's (`chat.completion.chunk`, a usage chunk with empty choices, `data: [DONE]`) and JSON error bodies.
// Scripted per request; records every request so tests can assert what the SDK sent.
//
//   const server = await startFakeOpenAIServer();
//   server.enqueue(openaiToolCalls([{ name: 'read', arguments: ['{"pa', 'th":"a"}'] }]), openaiText('done'));
//   new OpenAIProvider({ model: 'gpt-4.1', apiKey: 'k', baseURL: server.baseURL });
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

export type OpenAIReply =
  | {
      kind: 'stream';
      /** Chunk objects, each sent as one `data:` event. */
      chunks: object[];
      /** Send `data: [DONE]` at the end (default true). */
      done?: boolean;
      /** After this many chunks, send half of the next event and destroy the socket. */
      cutAfter?: number;
      /** After this many chunks, stop writing and hold the connection until the client leaves. */
      hangAfter?: number;
      headers?: Record<string, string>;
    }
  | { kind: 'error'; status: number; body: object; headers?: Record<string, string> }
  | RawReply;

export type OpenAIReplier = (request: RecordedRequest, index: number) => OpenAIReply;

/** Replies are used one per request, in order; then the fallback (default: a 500 saying nothing was scripted). */
export type FakeOpenAIServer = ScriptedHttpServer<OpenAIReply>;

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
}

export interface StreamOptions {
  model?: string;
  usage?: Usage;
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
}

export interface FakeToolCall {
  id?: string;
  name: string;
  /** The arguments JSON, whole or in the pieces it is streamed in. */
  arguments: string | string[];
}

let counter = 0;

function envelope(model: string, id: string, choice: object | undefined, usage?: object | null): object {
  const chunk: Record<string, unknown> = {
    id,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    system_fingerprint: 'fp_fake',
    choices: choice ? [{ index: 0, logprobs: null, finish_reason: null, ...choice }] : [],
  };
  if (usage !== undefined) chunk.usage = usage;
  return chunk;
}

function usageObject(usage: Usage): object {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoning_tokens ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/**
 * The chunks of one streamed answer, as the API sends them: a role chunk, text pieces, tool-call pieces
 * (the first piece of each call carries id, type and name), a chunk with finish_reason, then the usage chunk.
 * `interleave` sends the calls' argument pieces round-robin, as a server streaming parallel calls may.
 */
export function openaiChunks(
  spec: {
    text?: string | string[];
    toolCalls?: FakeToolCall[];
    interleave?: boolean;
    reasoning?: { field: 'reasoning_content' | 'reasoning'; pieces: string[] };
  } & StreamOptions,
): object[] {
  const model = spec.model ?? 'gpt-4.1-2025-04-14';
  const id = `chatcmpl-fake${++counter}`;
  // With include_usage the API sends `usage: null` on every chunk but the last.
  const nullUsage = spec.usage ? null : undefined;
  const chunks: object[] = [
    envelope(model, id, { delta: { role: 'assistant', content: '', refusal: null } }, nullUsage),
  ];
  // Reasoning streams before the answer, in the field the server uses (content null meanwhile, as DeepSeek sends).
  for (const piece of spec.reasoning?.pieces ?? [])
    chunks.push(envelope(model, id, { delta: { content: null, [spec.reasoning!.field]: piece } }, nullUsage));
  const texts = spec.text === undefined ? [] : typeof spec.text === 'string' ? [spec.text] : spec.text;
  for (const text of texts) chunks.push(envelope(model, id, { delta: { content: text } }, nullUsage));
  const calls = (spec.toolCalls ?? []).map((call, index) => ({
    index,
    id: call.id ?? `call_fake${counter}_${index}`,
    name: call.name,
    pieces: typeof call.arguments === 'string' ? [call.arguments] : [...call.arguments],
  }));
  const toolDelta = (part: object) => envelope(model, id, { delta: { tool_calls: [part] } }, nullUsage);
  for (const call of calls) {
    if (!spec.interleave) {
      chunks.push(
        toolDelta({ index: call.index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }),
      );
      for (const piece of call.pieces) chunks.push(toolDelta({ index: call.index, function: { arguments: piece } }));
    } else {
      chunks.push(
        toolDelta({
          index: call.index,
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.pieces.shift() ?? '' },
        }),
      );
    }
  }
  if (spec.interleave) {
    while (calls.some((c) => c.pieces.length > 0)) {
      for (const call of calls) {
        const piece = call.pieces.shift();
        if (piece !== undefined) chunks.push(toolDelta({ index: call.index, function: { arguments: piece } }));
      }
    }
  }
  const finish = spec.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
  chunks.push(envelope(model, id, { delta: {}, finish_reason: finish }, nullUsage));
  if (spec.usage) chunks.push(envelope(model, id, undefined, usageObject(spec.usage)));
  return chunks;
}

/** A streamed text answer. */
export function openaiText(text: string | string[], options: StreamOptions = {}): OpenAIReply {
  return { kind: 'stream', chunks: openaiChunks({ text, ...options }) };
}

/** A streamed answer with tool calls (and optional text before them). */
export function openaiToolCalls(
  toolCalls: FakeToolCall[],
  options: StreamOptions & { text?: string | string[]; interleave?: boolean } = {},
): OpenAIReply {
  return { kind: 'stream', chunks: openaiChunks({ ...options, toolCalls }) };
}

/** An error response with the API's JSON body. */
export function openaiError(
  status: number,
  message: string,
  options: { type?: string; code?: string | null; headers?: Record<string, string> } = {},
): OpenAIReply {
  const type =
    options.type ?? (status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error');
  const reply: OpenAIReply = {
    kind: 'error',
    status,
    body: { error: { message, type, param: null, code: options.code ?? null } },
  };
  if (options.headers) reply.headers = options.headers;
  return reply;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function writeStream(
  res: ServerResponse,
  reply: Extract<OpenAIReply, { kind: 'stream' }>,
  record: RecordedRequest,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...reply.headers,
  });
  res.flushHeaders();
  for (let i = 0; i < reply.chunks.length; i++) {
    const frame = `data: ${JSON.stringify(reply.chunks[i])}\n\n`;
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
  if (reply.cutAfter !== undefined && reply.cutAfter >= reply.chunks.length) {
    res.socket?.destroy();
    return;
  }
  if (reply.hangAfter !== undefined) return;
  if (reply.done !== false) res.write('data: [DONE]\n\n');
  res.end();
}

export function startFakeOpenAIServer(): Promise<FakeOpenAIServer> {
  return startScriptedHttpServer<OpenAIReply>({
    basePath: '/v1',
    route: '/v1/chat/completions',
    notFound: (method, path) => ({
      error: {
        message: `fake OpenAI server: no route ${method} ${path}`,
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    }),
    fallback: (_request, index) => openaiError(500, `fake OpenAI server: no reply scripted for request ${index + 1}`),
    stream: writeStream,
  });
}
