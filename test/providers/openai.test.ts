// The OpenAI provider through the real `openai` SDK against a fake Chat Completions server on loopback.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../orchestrator/agent.js';
import { EventBus } from '../../orchestrator/events.js';
import { OpenAIProvider, openAICapabilities } from '../../orchestrator/models/openai.js';
import type { ModelResult } from '../../orchestrator/models/provider.js';
import { withRetries, type RetryNotice } from '../../orchestrator/models/retry.js';
import { toLoopTools } from '../../tools/loop-tools.js';
import {
  openaiChunks,
  openaiError,
  openaiText,
  openaiToolCalls,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../fakes/openai-server.js';
import { echoTool, instantClock, modelRequest, PIXEL_PNG } from './helpers.js';
import { failure } from './helpers.js';

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const provider = (extra: Partial<ConstructorParameters<typeof OpenAIProvider>[0]> = {}) =>
  new OpenAIProvider({
    model: 'gpt-4.1',
    apiKey: 'sk-test',
    baseURL: server.baseURL,
    keyEnvVar: 'OPENAI_API_KEY',
    ...extra,
  });

describe('OpenAIProvider', () => {
  it('streams text to onTextDelta and maps usage, cached tokens and cost', async () => {
    server.enqueue(
      openaiText(['Hel', 'lo, ', 'world'], {
        usage: { prompt_tokens: 1000, completion_tokens: 7, cached_tokens: 400 },
      }),
    );
    const deltas: string[] = [];
    const result = await provider().complete(
      modelRequest('hi', { onTextDelta: (t) => deltas.push(t) }),
      new AbortController().signal,
    );
    expect(result).toMatchObject({
      ok: true,
      message: { role: 'assistant', text: 'Hello, world', toolCalls: [], stopReason: 'end', model: 'openai:gpt-4.1' },
    });
    expect(deltas).toEqual(['Hel', 'lo, ', 'world']);
    const usage = (result as Extract<ModelResult, { ok: true }>).message.usage!;
    expect(usage).toMatchObject({ input: 600, cacheRead: 400, output: 7, cacheWrite: 0 });
    // gpt-4.1: $2 in, $0.50 cached, $8 out per million.
    expect(usage.cost).toBeCloseTo((600 * 2 + 400 * 0.5 + 7 * 8) / 1e6, 12);

    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body).toMatchObject({
      model: 'gpt-4.1',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are a test.' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(sent.body.tools).toBeUndefined();
  });

  it('assembles two parallel tool calls whose arguments arrive interleaved and split mid-string', async () => {
    server.enqueue(
      openaiToolCalls(
        [
          { id: 'call_a', name: 'read', arguments: ['{"pa', 'th": "src/ma', 'in.ts"', '}'] },
          { id: 'call_b', name: 'grep', arguments: ['{"patt', 'ern": "fo\\"o", "li', 'mit": 3}'] },
        ],
        { interleave: true, text: 'Looking.' },
      ),
    );
    const tools = [
      {
        name: 'read',
        description: 'Reads a file.',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
      {
        name: 'grep',
        description: 'Searches.',
        parameters: { type: 'object', properties: { pattern: { type: 'string' } } },
      },
    ];
    const result = await provider().complete(
      modelRequest('look', { tools, maxOutputTokens: 500 }),
      new AbortController().signal,
    );
    expect(result).toMatchObject({
      ok: true,
      message: {
        text: 'Looking.',
        stopReason: 'tool_calls',
        toolCalls: [
          { id: 'call_a', name: 'read', arguments: '{"path": "src/main.ts"}' },
          { id: 'call_b', name: 'grep', arguments: '{"pattern": "fo\\"o", "limit": 3}' },
        ],
      },
    });
    const message = (result as Extract<ModelResult, { ok: true }>).message;
    expect(JSON.parse(message.toolCalls[1]!.arguments)).toEqual({ pattern: 'fo"o', limit: 3 });
    expect(server.requests[0]!.body.tools).toEqual([
      { type: 'function', function: tools[0] },
      { type: 'function', function: tools[1] },
    ]);
    // A custom base URL gets the widely known max_tokens.
    expect(server.requests[0]!.body.max_tokens).toBe(500);
  });

  it("reports finish_reason 'length' as stopReason 'length'", async () => {
    server.enqueue(openaiText('truncat', { finishReason: 'length' }));
    const result = await provider().complete(modelRequest('go'), new AbortController().signal);
    expect(result).toMatchObject({ ok: true, message: { text: 'truncat', stopReason: 'length' } });
  });

  it('retries a 429 after its Retry-After through withRetries, with a notice, then succeeds', async () => {
    server.enqueue(
      openaiError(429, 'Rate limit reached for gpt-4.1', { headers: { 'retry-after': '2' } }),
      openaiText('after the wait'),
    );
    const notices: RetryNotice[] = [];
    const clock = instantClock();
    const model = withRetries(
      provider(),
      { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 60_000 },
      (n) => notices.push(n),
      clock,
    );
    const result = await model.complete(modelRequest('go'), new AbortController().signal);
    expect(result).toMatchObject({ ok: true, message: { text: 'after the wait' } });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      agentId: 'agent-1',
      attempt: 1,
      delayMs: 2000,
      error: { kind: 'rate_limit', status: 429, retryAfterMs: 2000, retryable: true },
    });
    expect(notices[0]!.error.message).toContain('Rate limit reached for gpt-4.1');
    expect(clock.delays).toEqual([2000]);
    expect(server.requests).toHaveLength(2);
  });

  it('turns a 500 into a retryable server error that quotes the server', async () => {
    server.enqueue(openaiError(500, 'The server had an error while processing your request.'));
    const error = failure(await provider().complete(modelRequest('go'), new AbortController().signal));
    expect(error).toMatchObject({ kind: 'server', status: 500, retryable: true });
    expect(error.message).toContain('The server had an error while processing your request.');
    // Only one request: the SDK's own retries are off.
    expect(server.requests).toHaveLength(1);
  });

  it('turns a stream cut in the middle into a retryable network error with no partial message', async () => {
    const chunks = openaiChunks({ text: ['part one ', 'part two ', 'part three'] });
    server.enqueue({ kind: 'stream', chunks, cutAfter: 2 });
    const deltas: string[] = [];
    const error = failure(
      await provider().complete(
        modelRequest('go', { onTextDelta: (t) => deltas.push(t) }),
        new AbortController().signal,
      ),
    );
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect(deltas).toEqual(['part one ']);
  });

  it('treats a stream that ends without finish_reason as cut', async () => {
    const chunks = openaiChunks({ text: ['half'] }).slice(0, 2);
    server.enqueue({ kind: 'stream', chunks, done: false });
    expect(failure(await provider().complete(modelRequest('go'), new AbortController().signal))).toMatchObject({
      kind: 'network',
      retryable: true,
    });
  });

  it('turns an error event inside the stream into a retryable server error', async () => {
    const chunks = [
      ...openaiChunks({ text: ['so far'] }).slice(0, 2),
      { error: { message: 'upstream overloaded', type: 'server_error' } },
    ];
    server.enqueue({ kind: 'stream', chunks });
    const error = failure(await provider().complete(modelRequest('go'), new AbortController().signal));
    expect(error).toMatchObject({ kind: 'server', retryable: true });
    expect(error.message).toContain('upstream overloaded');
  });

  it('does not retry a 401 and names the environment variable to fix', async () => {
    server.enqueue(
      openaiError(401, 'Incorrect API key provided: sk-test.', {
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      }),
    );
    const notices: RetryNotice[] = [];
    const model = withRetries(
      provider(),
      { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
      (n) => notices.push(n),
      instantClock(),
    );
    const error = failure(await model.complete(modelRequest('go'), new AbortController().signal));
    expect(error).toMatchObject({ kind: 'auth', status: 401, retryable: false });
    expect(error.message).toContain('OPENAI_API_KEY');
    expect(error.message).toContain('Incorrect API key provided');
    expect(notices).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 400 and quotes the server', async () => {
    server.enqueue(
      openaiError(400, "This model's maximum context length is 1047576 tokens.", { code: 'context_length_exceeded' }),
    );
    const error = failure(await provider().complete(modelRequest('go'), new AbortController().signal));
    expect(error).toMatchObject({ kind: 'bad_request', status: 400, retryable: false });
    expect(error.message).toContain("This model's maximum context length is 1047576 tokens.");
  });

  it('does not retry a 404 and points at the model name', async () => {
    server.enqueue(
      openaiError(404, 'The model `gpt-4.1` does not exist or you do not have access to it.', {
        code: 'model_not_found',
      }),
    );
    const error = failure(await provider().complete(modelRequest('go'), new AbortController().signal));
    expect(error).toMatchObject({ kind: 'not_found', status: 404, retryable: false });
    expect(error.message).toContain('does not exist');
    expect(error.message).toContain('"gpt-4.1"');
  });

  it('stops on abort in the middle of a stream and closes the connection', async () => {
    server.enqueue({ kind: 'stream', chunks: openaiChunks({ text: ['first ', 'second ', 'never'] }), hangAfter: 2 });
    const controller = new AbortController();
    const deltas: string[] = [];
    const pending = provider().complete(
      modelRequest('go', {
        onTextDelta: (t) => {
          deltas.push(t);
          controller.abort();
        },
      }),
      controller.signal,
    );
    expect(failure(await pending)).toMatchObject({ kind: 'aborted', retryable: false });
    expect(deltas).toEqual(['first ']);
    await expect.poll(() => server.requests[0]!.closedEarly).toBe(true);
  });

  it('turns a refused connection into a retryable network error naming the address', async () => {
    const gone = await startFakeOpenAIServer();
    await gone.close();
    const error = failure(
      await provider({ baseURL: gone.baseURL }).complete(modelRequest('go'), new AbortController().signal),
    );
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect(error.message).toContain(gone.baseURL);
  });

  it('sends images as data URLs, and images from tool results in a user message after the tool messages', async () => {
    server.enqueue(openaiText('seen'));
    await provider().complete(
      modelRequest([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' },
          ],
        },
        {
          role: 'assistant',
          text: '',
          toolCalls: [
            { id: 'c1', name: 'screenshot', arguments: '{}' },
            { id: 'c2', name: 'echo', arguments: '{"text":"x"}' },
          ],
          stopReason: 'tool_calls',
        },
        {
          role: 'tool',
          toolCallId: 'c1',
          toolName: 'screenshot',
          content: [{ type: 'image', data: PIXEL_PNG, mimeType: 'image/png' }],
          isError: false,
        },
        { role: 'tool', toolCallId: 'c2', toolName: 'echo', content: [{ type: 'text', text: 'x' }], isError: false },
      ]),
      new AbortController().signal,
    );
    const url = `data:image/png;base64,${PIXEL_PNG}`;
    expect(server.requests[0]!.body.messages).toEqual([
      { role: 'system', content: 'You are a test.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'screenshot', arguments: '{}' } },
          { id: 'c2', type: 'function', function: { name: 'echo', arguments: '{"text":"x"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '(images follow in the next message)' },
      { role: 'tool', tool_call_id: 'c2', content: 'x' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Images returned by screenshot (call c1):' },
          { type: 'image_url', image_url: { url } },
        ],
      },
    ]);
  });

  it('guesses capabilities from the model name and takes an override', () => {
    expect(openAICapabilities('gpt-4o')).toEqual({ images: true, video: false, contextWindow: 128_000 });
    expect(openAICapabilities('gpt-4.1-mini').images).toBe(true);
    expect(openAICapabilities('gpt-5').contextWindow).toBe(400_000);
    expect(openAICapabilities('llama3.1:8b')).toEqual({ images: false, video: false, contextWindow: 128_000 });
    expect(
      new OpenAIProvider({ model: 'qwen2.5-vl', apiKey: 'x', capabilities: { images: true, contextWindow: 32_768 } })
        .capabilities,
    ).toEqual({
      images: true,
      video: false,
      contextWindow: 32_768,
    });
  });

  it('runs a real Agent over HTTP: the tool result goes back in the Chat Completions wire shape', async () => {
    server.enqueue(
      openaiToolCalls([{ id: 'call_1', name: 'echo', arguments: ['{"te', 'xt":"hi"}'] }], {
        usage: { prompt_tokens: 50, completion_tokens: 5 },
      }),
      openaiText('done: hi', { usage: { prompt_tokens: 60, completion_tokens: 3 } }),
    );
    const model = provider();
    const loopTools = toLoopTools([echoTool], { fallback: false });
    const agent = new Agent(
      { id: 'a1', role: 'main' },
      {
        system: 'You are a test.',
        maxTurns: 5,
        callModel: (r, s) => model.complete(r, s),
        toolsForTurn: () => loopTools,
        context: { agentId: 'a1', role: 'main', cwd: process.cwd() },
      },
      new EventBus(),
    );
    const result = await agent.run('say hi');
    expect(result).toMatchObject({ status: 'completed', text: 'done: hi', usage: { input: 110, output: 8 } });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body.messages).toEqual([
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: 'say hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'echo', arguments: '{"text":"hi"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'hi' },
    ]);
    expect(server.requests[1]!.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'echo',
          description: 'Repeats the text.',
          parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        },
      },
    ]);
  });
});
