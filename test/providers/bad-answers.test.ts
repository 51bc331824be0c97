// Bad answers from fake servers on loopback, through the real SDKs: each ends in one line naming the provider, the
// model and what came back, malformed ones are retried at most once, and neither SDK writes to the console.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AnthropicProvider } from '../../orchestrator/models/anthropic.js';
import { OpenAIProvider } from '../../orchestrator/models/openai.js';
import type { ModelProvider } from '../../orchestrator/models/provider.js';
import { withRetries, type RetryNotice } from '../../orchestrator/models/retry.js';
import { anthropicEvents, startFakeAnthropicServer, type FakeAnthropicServer } from '../fakes/anthropic-server.js';
import { openaiChunks, startFakeOpenAIServer, type FakeOpenAIServer } from '../fakes/openai-server.js';
import { htmlPage, rawEventStream } from '../fakes/scripted-http-server.js';
import { failure, instantClock, modelRequest } from './helpers.js';

let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
beforeAll(async () => {
  [openai, anthropic] = await Promise.all([startFakeOpenAIServer(), startFakeAnthropicServer()]);
});
afterAll(() => Promise.all([openai.close(), anthropic.close()]));
beforeEach(() => {
  openai.requests.length = 0;
  anthropic.requests.length = 0;
});

const openaiProvider = () => new OpenAIProvider({ model: 'llama-3', apiKey: 'k', baseURL: openai.baseURL });
const anthropicProvider = () =>
  new AnthropicProvider({ model: 'claude-haiku-4-5', apiKey: 'k', baseURL: anthropic.baseURL });

/** The provider behind withRetries (four attempts, no real waits); the notices it gave. */
async function completeWithRetries(provider: ModelProvider) {
  const notices: RetryNotice[] = [];
  const retried = withRetries(
    provider,
    { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 1 },
    (n) => notices.push(n),
    instantClock(),
  );
  const error = failure(await retried.complete(modelRequest('go'), new AbortController().signal));
  return { error, notices };
}

const oneLine = (message: string) => expect(message).not.toMatch(/\n/);

describe('an OpenAI-compatible server that answers badly', () => {
  it('200 with an HTML page: named as a page, quoted, retried once', async () => {
    openai.setFallback(() => htmlPage(200, 'LM Studio', 'Welcome to the web UI.'));
    const { error, notices } = await completeWithRetries(openaiProvider());
    expect(error.kind).toBe('malformed');
    expect(error.message).toBe(
      `openai:llama-3: ${openai.baseURL} answered HTTP 200 with an HTML page, not a stream: "LM Studio LM Studio Welcome to the web UI." — check the base URL`,
    );
    expect(openai.requests).toHaveLength(2);
    expect(notices.map((n) => n.error.kind)).toEqual(['malformed']);
  });

  it('200 with a JSON body instead of a stream: its content type and an excerpt', async () => {
    openai.setFallback(() => ({
      kind: 'raw',
      status: 200,
      contentType: 'application/json',
      body: '{"id": "x",\n "choices": []}',
    }));
    const { error } = await completeWithRetries(openaiProvider());
    expect(error.message).toContain(
      'answered HTTP 200 with application/json, not a stream: "{\\"id\\": \\"x\\", \\"choices\\": []}"',
    );
    expect(openai.requests).toHaveLength(2);
  });

  it('502 with an HTML page: the status and a short excerpt of the page, not the whole page', async () => {
    openai.enqueue(htmlPage(502, '502 Bad Gateway', `nginx/1.25.3 ${'padding '.repeat(100)}`));
    const error = failure(await openaiProvider().complete(modelRequest('go'), new AbortController().signal));
    expect(error).toMatchObject({ kind: 'server', status: 502, retryable: true });
    expect(error.message).toMatch(
      new RegExp(
        `^openai:llama-3: HTTP 502 from ${openai.baseURL}: an HTML page \\("502 Bad Gateway 502 Bad Gateway nginx/1\\.25\\.3 padding .{100,}…"\\)$`,
      ),
    );
    expect(error.message.length).toBeLessThan(320);
    oneLine(error.message);
  });

  it('a malformed stream: where it broke and what it held, retried exactly once, nothing on the console', async () => {
    const [first] = openaiChunks({ text: 'hi' });
    openai.setFallback(() => rawEventStream([JSON.stringify(first), '{"choices": [oops']));
    const written = watchConsole();
    const { error, notices } = await completeWithRetries(openaiProvider());
    expect(written()).toEqual([]);
    expect(error.kind).toBe('malformed');
    expect(error.message).toBe(
      `openai:llama-3: the stream from ${openai.baseURL} was malformed at event 2, not JSON: "{\\"choices\\": [oops"`,
    );
    oneLine(error.message);
    expect(openai.requests).toHaveLength(2);
    expect(notices).toHaveLength(1);
    expect(notices[0]!.error.message).toBe(error.message);
  });

  it('an empty stream: said so, retried once', async () => {
    openai.setFallback(() => rawEventStream([]));
    const { error } = await completeWithRetries(openaiProvider());
    expect(error.message).toBe(`openai:llama-3: ${openai.baseURL} answered with an empty stream (no events)`);
    expect(openai.requests).toHaveLength(2);
  });

  it('a stream without an event-stream content type still works', async () => {
    const frames = openaiChunks({ text: ['fine'] }).map((chunk) => JSON.stringify(chunk));
    openai.enqueue({ ...rawEventStream([...frames, '[DONE]']), contentType: 'text/plain' });
    const result = await openaiProvider().complete(modelRequest('go'), new AbortController().signal);
    expect(result).toMatchObject({ ok: true, message: { text: 'fine' } });
  });
});

describe('an Anthropic-compatible server that answers badly', () => {
  it('200 with an HTML page: named as a page, retried once', async () => {
    anthropic.setFallback(() => htmlPage(200, 'Sign in'));
    const { error } = await completeWithRetries(anthropicProvider());
    expect(error.message).toBe(
      `anthropic:claude-haiku-4-5: ${anthropic.baseURL} answered HTTP 200 with an HTML page, not a stream: "Sign in Sign in" — check the base URL`,
    );
    expect(anthropic.requests).toHaveLength(2);
  });

  it('a malformed stream: retried exactly once, nothing on the console', async () => {
    const [start] = anthropicEvents({ text: 'hi' });
    anthropic.setFallback(() =>
      rawEventStream([
        { event: start!.event, data: JSON.stringify(start!.data) },
        { event: 'content_block_start', data: '{"type": "content_block_start", oops' },
      ]),
    );
    const written = watchConsole();
    const { error } = await completeWithRetries(anthropicProvider());
    expect(written()).toEqual([]);
    expect(error.message).toMatch(
      /^anthropic:claude-haiku-4-5: the stream from .* was malformed at event 2, not JSON: .*oops/,
    );
    expect(anthropic.requests).toHaveLength(2);
  });
});

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

/** Records what reaches console.* and process.stdout/stderr until the test ends. */
function watchConsole(): () => string[] {
  const seen: string[] = [];
  const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void seen.push(args.map(String).join(' '))),
  );
  const streams = [process.stdout, process.stderr].map((stream) =>
    vi.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
      seen.push(String(chunk));
      return true;
    }),
  );
  restore = () => [...spies, ...streams].forEach((spy) => spy.mockRestore());
  return () => seen;
}
