// The GenAI attributes that only a real server can give, through the official SDKs against fake OpenAI and
// Anthropic servers on loopback: the model the server says answered (not the one asked for), the response's id,
// the server's address and port, one conversation id per agent, and an HTTP failure's status as `error.type`.
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMurmur } from '../../api/index.js';
import type { ModelProvider } from '../../orchestrator/models/provider.js';
import { OpenAIProvider } from '../../orchestrator/models/openai.js';
import { AnthropicProvider } from '../../orchestrator/models/anthropic.js';
import { openaiText, startFakeOpenAIServer, type FakeOpenAIServer } from '../fakes/openai-server.js';
import { anthropicText, startFakeAnthropicServer, type FakeAnthropicServer } from '../fakes/anthropic-server.js';

let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let dir: string;
beforeAll(async () => {
  [openai, anthropic] = await Promise.all([startFakeOpenAIServer(), startFakeAnthropicServer()]);
});
afterAll(() => Promise.all([openai.close(), anthropic.close()]));
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-genai-')));
  // One attempt: a failure is the turn's end at once, not four backed-off tries.
  await writeFile(path.join(dir, 'murmur.toml'), '[retry]\nmaxAttempts = 1\n');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** The chat spans and the agent span of one run of `model` on `task`, with the run's result. */
async function traced(model: ModelProvider, task: string) {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const murmur = await createMurmur({ cwd: dir, model, tracerProvider });
  const outcome = await murmur.run(task).catch((error: unknown) => error);
  await murmur.close();
  const spans = exporter.getFinishedSpans();
  const chats = spans.filter((s) => s.name.startsWith('chat '));
  const agent = spans.find((s) => s.name.startsWith('invoke_agent '))!;
  const run = spans.find((s) => s.name === 'murmur.run')!;
  return { outcome, chats, agent, run };
}

function portOf(baseURL: string): number {
  return Number(new URL(baseURL).port);
}

function conversationOf(run: ReadableSpan, agent: ReadableSpan): string {
  return `${String(run.attributes['murmur.session.id'])}/${String(agent.attributes['gen_ai.agent.id'])}`;
}

describe('GenAI attributes from a server', () => {
  it('OpenAI: the reported model and id, the server, the conversation', async () => {
    openai.enqueue(openaiText('Hello.', { model: 'gpt-4.1-2025-04-14' }));
    const model = new OpenAIProvider({ model: 'gpt-4.1', apiKey: 'k', baseURL: openai.baseURL });
    const { chats, agent, run } = await traced(model, 'hello');
    expect(chats).toHaveLength(1);
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.request.model': 'gpt-4.1',
      'gen_ai.response.model': 'gpt-4.1-2025-04-14',
      'server.address': '127.0.0.1',
      'server.port': portOf(openai.baseURL),
      'gen_ai.conversation.id': conversationOf(run, agent),
    });
    expect(chats[0]!.attributes['gen_ai.response.id']).toMatch(/^chatcmpl-fake\d+$/);
    expect(agent.attributes['gen_ai.conversation.id']).toBe(conversationOf(run, agent));
  });

  it('Anthropic: the reported model and id, the server', async () => {
    anthropic.enqueue(anthropicText('Hello.', { model: 'claude-haiku-4-5-20251001' }));
    const model = new AnthropicProvider({ model: 'claude-haiku-4-5', apiKey: 'k', baseURL: anthropic.baseURL });
    const { chats } = await traced(model, 'hello');
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.request.model': 'claude-haiku-4-5',
      'gen_ai.response.model': 'claude-haiku-4-5-20251001',
      'server.address': '127.0.0.1',
      'server.port': portOf(anthropic.baseURL),
    });
    expect(chats[0]!.attributes['gen_ai.response.id']).toMatch(/^msg_fake\d+$/);
  });

  it('an HTTP 500 is error.type "500", with the server named; a cut connection is its kind', async () => {
    openai.enqueue({ kind: 'error', status: 500, body: { error: { message: 'boom', type: 'server_error' } } });
    const model = new OpenAIProvider({ model: 'gpt-4.1', apiKey: 'k', baseURL: openai.baseURL });
    const failed = await traced(model, 'hello');
    expect(failed.chats[0]!.attributes).toMatchObject({
      'error.type': '500',
      'server.address': '127.0.0.1',
      'server.port': portOf(openai.baseURL),
    });
    expect(failed.chats[0]!.attributes['gen_ai.response.model']).toBeUndefined();
    openai.enqueue({ ...(openaiText('never ends') as { kind: 'stream'; chunks: object[] }), cutAfter: 1 });
    const cut = await traced(model, 'hello');
    expect(cut.chats[0]!.attributes['error.type']).toBe('network');
  });
});
