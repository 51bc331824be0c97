// The Anthropic provider through the real `@anthropic-ai/sdk` against a fake Messages server on loopback.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../orchestrator/agent.js';
import { EventBus } from '../../orchestrator/events.js';
import { AnthropicProvider, anthropicCapabilities } from '../../orchestrator/models/anthropic.js';
import type { ModelResult } from '../../orchestrator/models/provider.js';
import { withRetries, type RetryNotice } from '../../orchestrator/models/retry.js';
import { toLoopTools } from '../../tools/loop-tools.js';
import {
  anthropicError,
  anthropicEvents,
  anthropicStreamError,
  anthropicText,
  anthropicToolUse,
  startFakeAnthropicServer,
  type FakeAnthropicServer,
} from '../fakes/anthropic-server.js';
import { echoTool, instantClock, modelRequest, PIXEL_PNG } from './helpers.js';
import { failure } from './helpers.js';

let server: FakeAnthropicServer;
beforeAll(async () => {
  server = await startFakeAnthropicServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const provider = (extra: Partial<ConstructorParameters<typeof AnthropicProvider>[0]> = {}) =>
  new AnthropicProvider({
    model: 'claude-haiku-4-5',
    apiKey: 'sk-ant-test',
    baseURL: server.baseURL,
    keyEnvVar: 'ANTHROPIC_API_KEY',
    ...extra,
  });

describe('AnthropicProvider', () => {
  it('streams text to onTextDelta and maps usage with cache reads and writes', async () => {
    server.enqueue(
      anthropicText(['Hel', 'lo, ', 'world'], {
        usage: {
          input_tokens: 100,
          output_tokens: 12,
          cache_read_input_tokens: 2000,
          cache_creation_input_tokens: 300,
        },
      }),
    );
    const deltas: string[] = [];
    const result = await provider().complete(
      modelRequest('hi', { onTextDelta: (t) => deltas.push(t) }),
      new AbortController().signal,
    );
    expect(result).toMatchObject({
      ok: true,
      message: {
        role: 'assistant',
        text: 'Hello, world',
        toolCalls: [],
        stopReason: 'end',
        model: 'anthropic:claude-haiku-4-5',
      },
    });
    expect(deltas).toEqual(['Hel', 'lo, ', 'world']);
    const usage = (result as Extract<ModelResult, { ok: true }>).message.usage!;
    expect(usage).toMatchObject({ input: 100, output: 12, cacheRead: 2000, cacheWrite: 300 });
    // claude-haiku-4-5: $1 in, $5 out, $0.10 cache read, $1.25 cache write per million.
    expect(usage.cost).toBeCloseTo((100 * 1 + 12 * 5 + 2000 * 0.1 + 300 * 1.25) / 1e6, 12);

    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['anthropic-version']).toBeDefined();
    expect(JSON.stringify(sent.headers)).toContain('sk-ant-test');
    expect(sent.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 16_384,
      stream: true,
      system: [{ type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }],
    });
  });

  it('assembles two tool_use blocks whose input_json_delta pieces split mid-string', async () => {
    server.enqueue(
      anthropicToolUse(
        [
          { id: 'toolu_a', name: 'read', input: ['{"pa', 'th": "src/ma', 'in.ts"', '}'] },
          { id: 'toolu_b', name: 'grep', input: ['', '{"patt', 'ern": "fo\\"o", "li', 'mit": 3}'] },
        ],
        { text: ['Let me ', 'look.'] },
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
      modelRequest('look', { tools, maxOutputTokens: 1234 }),
      new AbortController().signal,
    );
    expect(result).toMatchObject({
      ok: true,
      message: {
        text: 'Let me look.',
        stopReason: 'tool_calls',
        toolCalls: [
          { id: 'toolu_a', name: 'read', arguments: '{"path": "src/main.ts"}' },
          { id: 'toolu_b', name: 'grep', arguments: '{"pattern": "fo\\"o", "limit": 3}' },
        ],
      },
    });
    expect(server.requests[0]!.body.max_tokens).toBe(1234);
    expect(server.requests[0]!.body.tools).toEqual([
      { name: 'read', description: 'Reads a file.', input_schema: tools[0]!.parameters },
      { name: 'grep', description: 'Searches.', input_schema: tools[1]!.parameters },
    ]);
  });

  it('gives a tool_use without deltas the input {}', async () => {
    server.enqueue(anthropicToolUse([{ id: 'toolu_x', name: 'now', input: [] }]));
    const result = await provider().complete(modelRequest('time?'), new AbortController().signal);
    expect(result).toMatchObject({
      ok: true,
      message: { toolCalls: [{ id: 'toolu_x', name: 'now', arguments: '{}' }] },
    });
  });

  it("reports stop_reason max_tokens as stopReason 'length'", async () => {
    server.enqueue(anthropicText('truncat', { stopReason: 'max_tokens' }));
    expect(await provider().complete(modelRequest('go'), new AbortController().signal)).toMatchObject({
      ok: true,
      message: { stopReason: 'length' },
    });
  });

  it('sends consecutive tool results as one user message of tool_result blocks, images as base64 blocks', async () => {
    server.enqueue(anthropicText('ok'));
    await provider({ promptCaching: false }).complete(
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
          text: 'Checking.',
          toolCalls: [
            { id: 't1', name: 'screenshot', arguments: '{}' },
            { id: 't2', name: 'echo', arguments: '{"text":"x"}' },
          ],
          stopReason: 'tool_calls',
        },
        {
          role: 'tool',
          toolCallId: 't1',
          toolName: 'screenshot',
          content: [{ type: 'image', data: PIXEL_PNG, mimeType: 'image/png' }],
          isError: false,
        },
        {
          role: 'tool',
          toolCallId: 't2',
          toolName: 'echo',
          content: [{ type: 'text', text: 'no such file' }],
          isError: true,
        },
        { role: 'user', content: 'A background task finished.', synthetic: { kind: 'task' } },
      ]),
      new AbortController().signal,
    );
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL_PNG } };
    expect(server.requests[0]!.body.system).toBe('You are a test.');
    expect(server.requests[0]!.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'what is this?' }, image] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 't1', name: 'screenshot', input: {} },
          { type: 'tool_use', id: 't2', name: 'echo', input: { text: 'x' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: [image] },
          { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'no such file' }], is_error: true },
          { type: 'text', text: 'A background task finished.' },
        ],
      },
    ]);
  });

  it('retries a 429 after its Retry-After through withRetries, with a notice, then succeeds', async () => {
    server.enqueue(
      anthropicError(429, 'Number of request tokens has exceeded your per-minute rate limit', {
        headers: { 'retry-after': '3' },
      }),
      anthropicText('after the wait'),
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
      attempt: 1,
      delayMs: 3000,
      error: { kind: 'rate_limit', status: 429, retryAfterMs: 3000, retryable: true },
    });
    expect(notices[0]!.error.message).toContain('per-minute rate limit');
    expect(clock.delays).toEqual([3000]);
    expect(server.requests).toHaveLength(2);
  });

  it('turns a 529 overloaded and a 500 into retryable server errors', async () => {
    server.enqueue(anthropicError(529, 'Overloaded'), anthropicError(500, 'Internal server error'));
    const overloaded = failure(await provider().complete(modelRequest('go'), new AbortController().signal));
    expect(overloaded).toMatchObject({ kind: 'server', status: 529, retryable: true });
    expect(overloaded.message).toContain('Overloaded');
    expect(failure(await provider().complete(modelRequest('go'), new AbortController().signal))).toMatchObject({
      kind: 'server',
      status: 500,
      retryable: true,
    });
    // Only one request each: the SDK's own retries are off.
    expect(server.requests).toHaveLength(2);
  });

  it('turns an overloaded_error event inside the stream into a retryable server error', async () => {
    const events = [
      ...anthropicEvents({ text: ['so far'] }).slice(0, 4),
      anthropicStreamError('overloaded_error', 'Overloaded'),
    ];
    server.enqueue({ kind: 'stream', events });
    const error = failure(await provider().complete(modelRequest('go'), new AbortController().signal));
    expect(error).toMatchObject({ kind: 'server', retryable: true });
    expect(error.message).toContain('overloaded_error');
  });

  it('turns a stream cut in the middle into a retryable network error with no partial message', async () => {
    const events = anthropicEvents({ text: ['part one ', 'part two ', 'part three'] });
    // message_start, ping, content_block_start, delta 1, then half of delta 2.
    server.enqueue({ kind: 'stream', events, cutAfter: 4 });
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

  it('treats a stream that ends cleanly but without message_stop as cut', async () => {
    const events = anthropicEvents({ text: 'half' }).slice(0, -1);
    server.enqueue({ kind: 'stream', events });
    expect(failure(await provider().complete(modelRequest('go'), new AbortController().signal))).toMatchObject({
      kind: 'network',
      retryable: true,
    });
  });

  it('does not retry a 401 and names the environment variable to fix', async () => {
    server.enqueue(anthropicError(401, 'invalid x-api-key'));
    const notices: RetryNotice[] = [];
    const model = withRetries(
      provider(),
      { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
      (n) => notices.push(n),
      instantClock(),
    );
    const error = failure(await model.complete(modelRequest('go'), new AbortController().signal));
    expect(error).toMatchObject({ kind: 'auth', status: 401, retryable: false });
    expect(error.message).toContain('ANTHROPIC_API_KEY');
    expect(error.message).toContain('invalid x-api-key');
    expect(notices).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 400 and quotes the server', async () => {
    server.enqueue(anthropicError(400, 'prompt is too long: 212345 tokens > 200000 maximum'));
    const error = failure(await provider().complete(modelRequest('go'), new AbortController().signal));
    expect(error).toMatchObject({ kind: 'bad_request', status: 400, retryable: false });
    expect(error.message).toContain('prompt is too long: 212345 tokens > 200000 maximum');
  });

  it('stops on abort in the middle of a stream and closes the connection', async () => {
    server.enqueue({ kind: 'stream', events: anthropicEvents({ text: ['first ', 'second ', 'never'] }), hangAfter: 5 });
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

  it('guesses capabilities from the model name and takes an override', () => {
    expect(anthropicCapabilities('claude-sonnet-4-6')).toEqual({ images: true, video: false, contextWindow: 200_000 });
    expect(anthropicCapabilities('kimi-k2')).toMatchObject({ images: false });
    expect(provider({ capabilities: { contextWindow: 1_000_000 } }).capabilities.contextWindow).toBe(1_000_000);
  });

  it('runs a real Agent over HTTP: the tool result goes back as a tool_result block', async () => {
    server.enqueue(
      anthropicToolUse([{ id: 'toolu_1', name: 'echo', input: ['{"te', 'xt":"hi"}'] }], {
        usage: { input_tokens: 50, output_tokens: 5 },
      }),
      anthropicText('done: hi', { usage: { input_tokens: 60, output_tokens: 3 } }),
    );
    const model = provider({ promptCaching: false });
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
      { role: 'user', content: [{ type: 'text', text: 'say hi' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'hi' } }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'hi' }] }],
      },
    ]);
    expect(server.requests[1]!.body.tools).toEqual([
      {
        name: 'echo',
        description: 'Repeats the text.',
        input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      },
    ]);
  });
});
