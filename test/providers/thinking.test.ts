// Effort and thinking through the official SDKs against the fake servers: what each level sends, thinking kept
// in the conversation and sent back unchanged (signatures intact), reasoning deltas kept out of the answer.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../orchestrator/agent.js';
import { EventBus, type MurmurEvent } from '../../orchestrator/events.js';
import { AnthropicProvider } from '../../orchestrator/models/anthropic.js';
import { anthropicAcceptsThinking, openAIAcceptsEffort, THINKING_BUDGET } from '../../orchestrator/models/effort.js';
import { OpenAIProvider } from '../../orchestrator/models/openai.js';
import type { ModelProvider, ModelResult } from '../../orchestrator/models/provider.js';
import type { AssistantMessage, Message } from '../../orchestrator/types.js';
import { toLoopTools } from '../../tools/loop-tools.js';
import {
  anthropicError,
  anthropicText,
  anthropicToolUse,
  startFakeAnthropicServer,
  type FakeAnthropicServer,
} from '../fakes/anthropic-server.js';
import {
  openaiChunks,
  openaiError,
  openaiText,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../fakes/openai-server.js';
import { echoTool, modelRequest } from './helpers.js';

let anthropic: FakeAnthropicServer;
let openai: FakeOpenAIServer;
beforeAll(async () => {
  [anthropic, openai] = await Promise.all([startFakeAnthropicServer(), startFakeOpenAIServer()]);
});
afterAll(() => Promise.all([anthropic.close(), openai.close()]));
beforeEach(() => {
  anthropic.requests.length = 0;
  openai.requests.length = 0;
});

const claude = (model = 'claude-haiku-4-5') =>
  new AnthropicProvider({ model, apiKey: 'sk-ant-test', baseURL: anthropic.baseURL, promptCaching: false });
const compatible = (model = 'deepseek-reasoner') => new OpenAIProvider({ model, apiKey: 'k', baseURL: openai.baseURL });
const ok = (result: ModelResult): AssistantMessage => {
  expect(result.ok).toBe(true);
  return (result as Extract<ModelResult, { ok: true }>).message;
};
const signal = () => new AbortController().signal;

/** Runs an agent with the echo tool on a provider; returns the agent's result, its messages and the bus events. */
async function runAgent(model: ModelProvider, effort: 'low' | 'medium' | 'high' | undefined, history: Message[] = []) {
  const bus = new EventBus();
  const events: MurmurEvent[] = [];
  bus.on('message.delta', (e) => events.push(e));
  bus.on('log', (e) => events.push(e));
  const messages: Message[] = [];
  const loopTools = toLoopTools([echoTool], { fallback: false });
  const agent = new Agent(
    { id: 'a1', role: 'main' },
    {
      system: 'You are a test.',
      maxTurns: 5,
      callModel: (r, s) => model.complete(r, s),
      toolsForTurn: () => loopTools,
      context: { agentId: 'a1', role: 'main', cwd: process.cwd() },
      onMessage: (m) => messages.push(m),
      ...(effort ? { effort } : {}),
    },
    bus,
    history,
  );
  const result = await agent.run('think, then echo hi');
  return { result, messages, events };
}

describe('effort rules', () => {
  it('sends reasoning_effort to the official API only for its reasoning models, to other servers whenever asked', () => {
    for (const model of ['o3', 'o3-mini', 'o4-mini', 'o1', 'gpt-5', 'gpt-5-mini', 'openai/gpt-5'])
      expect(openAIAcceptsEffort(model, true), model).toBe(true);
    for (const model of ['gpt-4.1', 'gpt-4o', 'o1-mini', 'o1-preview'])
      expect(openAIAcceptsEffort(model, true), model).toBe(false);
    expect(openAIAcceptsEffort('qwen3-32b', false)).toBe(true);
  });

  it('gives extended thinking to Claude 3.7 and later, not to older Claude models', () => {
    for (const model of [
      'claude-3-7-sonnet-latest',
      'claude-sonnet-4-5',
      'claude-opus-4-1',
      'claude-haiku-4-5',
      'glm-4.6',
    ])
      expect(anthropicAcceptsThinking(model), model).toBe(true);
    for (const model of ['claude-3-5-sonnet-latest', 'claude-3-opus-20240229', 'claude-3-5-haiku-latest'])
      expect(anthropicAcceptsThinking(model), model).toBe(false);
  });
});

describe('Anthropic extended thinking', () => {
  it('maps each effort to a thinking budget with max_tokens above it, and sends nothing without effort', async () => {
    for (const effort of ['low', 'medium', 'high'] as const) {
      anthropic.enqueue(anthropicText('ok'));
      ok(await claude().complete(modelRequest('hi', { effort }), signal()));
    }
    anthropic.enqueue(anthropicText('ok'), anthropicText('ok'));
    ok(await claude().complete(modelRequest('hi'), signal()));
    ok(await claude('claude-3-5-sonnet-latest').complete(modelRequest('hi', { effort: 'high' }), signal()));

    const [low, medium, high, none, old] = anthropic.requests.map((r) => r.body);
    expect(low.thinking).toEqual({ type: 'enabled', budget_tokens: THINKING_BUDGET.low });
    expect(medium.thinking).toEqual({ type: 'enabled', budget_tokens: THINKING_BUDGET.medium });
    expect(high.thinking).toEqual({ type: 'enabled', budget_tokens: THINKING_BUDGET.high });
    for (const body of [low, medium, high]) expect(body.max_tokens).toBeGreaterThan(body.thinking.budget_tokens);
    expect(high.max_tokens).toBeGreaterThan(16_384); // the model's default, raised
    expect(anthropic.requests[0]!.headers['anthropic-beta']).toContain('interleaved-thinking');
    expect(none.thinking).toBeUndefined();
    expect(old.thinking).toBeUndefined();
  });

  it('keeps thinking blocks and sends them back unchanged with the tool results, across interleaved turns', async () => {
    anthropic.enqueue(
      anthropicToolUse([{ id: 'toolu_1', name: 'echo', input: '{"text":"hi"}' }], {
        thinking: [{ thinking: ['Let me ', 'use echo.'], signature: 'sig-AAA==' }, { redacted: 'ENCRYPTED-1' }],
        text: 'Echoing.',
      }),
      anthropicToolUse([{ id: 'toolu_2', name: 'echo', input: '{"text":"again"}' }], {
        thinking: [{ thinking: 'Once more.', signature: 'sig-BBB==' }],
      }),
      anthropicText('done', { thinking: [{ thinking: 'All done.', signature: 'sig-CCC==' }] }),
    );
    const { result, messages, events } = await runAgent(claude(), 'medium');
    expect(result.status).toBe('completed');
    expect(result.text).toBe('done');

    const first = messages.find((m): m is AssistantMessage => m.role === 'assistant')!;
    expect(first.text).toBe('Echoing.');
    expect(first.thinking).toEqual([
      { type: 'thinking', thinking: 'Let me use echo.', signature: 'sig-AAA==' },
      { type: 'redacted_thinking', data: 'ENCRYPTED-1' },
    ]);

    // The third request carries both earlier assistant turns, thinking first, signatures intact.
    expect(anthropic.requests).toHaveLength(3);
    expect(anthropic.requests[2]!.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'think, then echo hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Let me use echo.', signature: 'sig-AAA==' },
          { type: 'redacted_thinking', data: 'ENCRYPTED-1' },
          { type: 'text', text: 'Echoing.' },
          { type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'hi' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'hi' }] }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Once more.', signature: 'sig-BBB==' },
          { type: 'tool_use', id: 'toolu_2', name: 'echo', input: { text: 'again' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'again' }] }],
      },
    ]);

    // Thinking streams as message.delta with thinking: true, apart from the answer.
    const thinking = events
      .filter((e) => e.type === 'message.delta' && e.thinking)
      .map((e) => (e as { text: string }).text);
    const answer = events
      .filter((e) => e.type === 'message.delta' && !e.thinking)
      .map((e) => (e as { text: string }).text);
    expect(thinking).toEqual(['Let me ', 'use echo.', 'Once more.', 'All done.']);
    expect(answer.join('')).toBe('Echoing.done');
  });

  it('resumes from a transcript (JSON lines) with the thinking blocks still signed', async () => {
    anthropic.enqueue(
      anthropicToolUse([{ id: 'toolu_1', name: 'echo', input: '{"text":"hi"}' }], {
        thinking: [{ thinking: 'Plan.', signature: 'sig-XYZ==' }],
      }),
      anthropicText('first'),
    );
    const { messages } = await runAgent(claude(), 'low');
    const transcript = messages.map((m) => JSON.stringify(m)).join('\n');
    const restored = transcript.split('\n').map((line) => JSON.parse(line) as Message);

    anthropic.requests.length = 0;
    anthropic.enqueue(anthropicText('second'));
    await runAgent(claude(), 'low', restored);
    const assistant = anthropic.requests[0]!.body.messages[1];
    expect(assistant.content[0]).toEqual({ type: 'thinking', thinking: 'Plan.', signature: 'sig-XYZ==' });
  });

  it('leaves thinking off while answering tool calls that were asked for without it (a resume with --effort)', async () => {
    const history: Message[] = [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        text: '',
        toolCalls: [{ id: 'toolu_9', name: 'echo', arguments: '{"text":"x"}' }],
        stopReason: 'tool_calls',
      },
      { role: 'tool', toolCallId: 'toolu_9', toolName: 'echo', content: [{ type: 'text', text: 'x' }], isError: false },
    ];
    anthropic.enqueue(anthropicText('ok'), anthropicText('ok'));
    ok(await claude().complete(modelRequest(history, { effort: 'high' }), signal()));
    ok(
      await claude().complete(
        modelRequest(
          [
            ...history,
            { role: 'assistant', text: 'ok', toolCalls: [], stopReason: 'end' },
            { role: 'user', content: 'next' },
          ],
          { effort: 'high' },
        ),
        signal(),
      ),
    );
    expect(anthropic.requests.map((r) => r.body.thinking?.type)).toEqual([undefined, 'enabled']);
  });

  it('retries once without thinking when a compatible server rejects it, and remembers', async () => {
    const model = claude('glm-4.6');
    anthropic.enqueue(
      anthropicError(400, 'thinking: Extra inputs are not permitted'),
      anthropicText('ok'),
      anthropicText('again'),
    );
    expect(ok(await model.complete(modelRequest('hi', { effort: 'high' }), signal())).text).toBe('ok');
    expect(ok(await model.complete(modelRequest('hi', { effort: 'high' }), signal())).text).toBe('again');
    expect(anthropic.requests.map((r) => r.body.thinking !== undefined)).toEqual([true, false, false]);
  });

  it('says once, as a log warning on the bus, that the server refused thinking', async () => {
    anthropic.enqueue(anthropicError(400, 'thinking: Extra inputs are not permitted'), anthropicText('ok'));
    const { result, events } = await runAgent(claude('glm-4.6'), 'high');
    expect(result.status).toBe('completed');
    const warnings = events.filter((e) => e.type === 'log');
    expect(warnings).toMatchObject([
      {
        level: 'warn',
        agentId: 'a1',
        message: expect.stringMatching(/refused the thinking parameter.*Extra inputs.*continuing without --effort/),
      },
    ]);
  });

  it('does not drop thinking for a 400 about a thinking block in the messages', async () => {
    anthropic.enqueue(anthropicError(400, 'messages.1.content.0.thinking.signature: Invalid signature'));
    const result = await claude().complete(modelRequest('hi', { effort: 'low' }), signal());
    expect(result).toMatchObject({ ok: false, error: { kind: 'bad_request', status: 400 } });
    expect(anthropic.requests).toHaveLength(1);
  });
});

describe('OpenAI-compatible reasoning', () => {
  it('sends reasoning_effort when asked, and retries once without it when the server rejects it, remembering', async () => {
    openai.enqueue(
      openaiError(400, 'Unrecognized request argument supplied: reasoning_effort'),
      openaiText('ok'),
      openaiText('again'),
    );
    const model = compatible('llama-3.3-70b');
    expect(ok(await model.complete(modelRequest('hi', { effort: 'medium' }), signal())).text).toBe('ok');
    expect(ok(await model.complete(modelRequest('hi', { effort: 'medium' }), signal())).text).toBe('again');
    expect(openai.requests.map((r) => r.body.reasoning_effort)).toEqual(['medium', undefined, undefined]);

    openai.enqueue(openaiText('plain'));
    ok(await compatible().complete(modelRequest('hi'), signal()));
    expect(openai.requests[3]!.body).not.toHaveProperty('reasoning_effort');
  });

  it('warns once, naming the refusal, when the server refuses reasoning_effort', async () => {
    openai.enqueue(
      openaiError(400, "Unsupported parameter: 'reasoning_effort'"),
      openaiText('ok'),
      openaiText('again'),
    );
    const model = compatible('llama-3.3-70b');
    const warnings: string[] = [];
    const request = modelRequest('hi', { effort: 'high', onWarning: (message) => warnings.push(message) });
    ok(await model.complete(request, signal()));
    ok(await model.complete(request, signal()));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /openai:llama-3\.3-70b: the server refused reasoning_effort \(Unsupported parameter: 'reasoning_effort'\); continuing without --effort/,
    );

    // Through an agent: the warning is a log event on the bus.
    openai.enqueue(openaiError(400, 'Unrecognized request argument supplied: reasoning_effort'), openaiText('done'));
    const { events } = await runAgent(compatible('qwen3'), 'low');
    expect(events.filter((e) => e.type === 'log')).toMatchObject([
      { level: 'warn', agentId: 'a1', message: expect.stringMatching(/refused reasoning_effort/) },
    ]);
  });

  it('keeps effort on after a 400 about something else that mentions reasoning, or about an unsupported level', async () => {
    const model = compatible('o-like');
    const warnings: string[] = [];
    const request = modelRequest('hi', { effort: 'low', onWarning: (message) => warnings.push(message) });
    for (const refusal of [
      "Unsupported value: 'reasoning_effort' does not support 'low' with this model. Supported values are: 'medium'.",
      'Your prompt plus reasoning tokens exceed the context window',
    ]) {
      openai.enqueue(openaiError(400, refusal));
      const result = await model.complete(request, signal());
      expect(result).toMatchObject({ ok: false, error: { kind: 'bad_request', status: 400 } });
    }
    openai.enqueue(openaiText('ok'));
    ok(await model.complete(request, signal()));
    expect(openai.requests.map((r) => r.body.reasoning_effort)).toEqual(['low', 'low', 'low']);
    expect(warnings).toEqual([]);
  });

  for (const field of ['reasoning_content', 'reasoning'] as const) {
    it(`keeps streamed ${field} out of the answer, shows it as thinking and counts its tokens`, async () => {
      openai.enqueue({
        kind: 'stream',
        chunks: openaiChunks({
          reasoning: { field, pieces: ['The user ', 'wants hi.'] },
          text: ['Hi', '!'],
          usage: { prompt_tokens: 20, completion_tokens: 50, reasoning_tokens: 40 },
        }),
      });
      const thinking: string[] = [];
      const text: string[] = [];
      const message = ok(
        await compatible().complete(
          modelRequest('hi', { onThinkingDelta: (t) => thinking.push(t), onTextDelta: (t) => text.push(t) }),
          signal(),
        ),
      );
      expect(message.text).toBe('Hi!');
      expect(text.join('')).toBe('Hi!');
      expect(thinking).toEqual(['The user ', 'wants hi.']);
      expect(message.thinking).toEqual([{ type: 'thinking', thinking: 'The user wants hi.' }]);
      expect(message.usage).toMatchObject({ input: 20, output: 50 });
    });
  }

  it('adds reasoning tokens a server counts apart from the completion', async () => {
    openai.enqueue({
      kind: 'stream',
      chunks: openaiChunks({
        reasoning: { field: 'reasoning', pieces: ['hmm'] },
        text: 'ok',
        usage: { prompt_tokens: 5, completion_tokens: 3, reasoning_tokens: 30 },
      }),
    });
    expect(ok(await compatible().complete(modelRequest('hi'), signal())).usage).toMatchObject({ output: 33 });
  });

  it('never sends the reasoning back (Chat Completions has no field for it), and Anthropic drops unsigned reasoning', async () => {
    const history: Message[] = [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        text: 'a',
        toolCalls: [],
        stopReason: 'end',
        thinking: [{ type: 'thinking', thinking: 'secret musing' }],
      },
      { role: 'user', content: 'q2' },
    ];
    openai.enqueue(openaiText('ok'));
    anthropic.enqueue(anthropicText('ok'));
    ok(await compatible().complete(modelRequest(history), signal()));
    ok(await claude().complete(modelRequest(history), signal()));
    expect(JSON.stringify(openai.requests[0]!.body)).not.toContain('secret musing');
    expect(anthropic.requests[0]!.body.messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'a' }],
    });
  });
});
