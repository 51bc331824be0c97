// `murmur swarm --verify` with OTEL_EXPORTER_OTLP_ENDPOINT set: the installed command exports its spans over
// OTLP/HTTP to a receiver started here, before it exits, as one trace shaped run → swarm → items → agents →
// model and tool calls (each item's verifier under the item); prompts and completions only when asked for.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { murmurIn, readEvents, removeDir, tempDir, waitFor, writeTree } from '../swarm/helpers.js';
import { childrenOf, OtlpReceiver, outline, type ReceivedSpan } from './otlp-receiver.js';

const SCRIPT = {
  agents: [
    {
      match: { role: 'worker', prompt: 'Fix (\\S+)' },
      turns: [
        { toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'a', new_string: 'b' } }] },
        { text: 'fixed $1', usage: { input: 100, output: 8, cacheRead: 40 } },
      ],
    },
    { match: { role: 'verifier', prompt: '<item>(\\S+)</item>' }, turns: [{ text: 'VERDICT: pass\n$1 is fixed' }] },
  ],
};
const ITEMS = ['a.txt', 'b.txt', 'c.txt'];

let receiver: OtlpReceiver;
let dir: string;

beforeAll(async () => {
  receiver = await OtlpReceiver.start();
});
afterAll(async () => {
  await receiver.close();
});

/** A new workspace (`dir`) with the items' files and the script. */
async function workspaceWith(script: unknown): Promise<void> {
  dir = await tempDir('murmur-otel-');
  writeTree(dir, Object.fromEntries(ITEMS.map((item) => [item, 'a\n'])));
  writeFileSync(path.join(dir, 'script.json'), JSON.stringify(script));
}

/** `murmur swarm --template 'Fix {{item}}' --items ITEMS --model scripted:… --json FLAGS` in `dir`, exporting to the receiver. */
function swarm(flags: string[], extraEnv: Record<string, string> = {}) {
  const args = [
    'swarm',
    '--template',
    'Fix {{item}}',
    '--items',
    ...ITEMS,
    '--model',
    'scripted:script.json',
    '--json',
  ];
  return murmurIn(dir, [...args, ...flags], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...extraEnv });
}

async function tracedSwarm(extraEnv: Record<string, string> = {}): Promise<ReceivedSpan[]> {
  await workspaceWith(SCRIPT);
  const before = receiver.spans.length;
  const ran = await swarm(['--verify', '--permission-mode', 'auto'], extraEnv);
  // Only the notice that verifiers run unconfined here (no sandbox, no worktree).
  expect(ran.stderr).toMatch(/^murmur: warn: verifiers' shells are not confined [^\n]*\n?$/);
  expect(ran.exitCode).toBe(0);
  await removeDir(dir);
  // Flushed before the command exited: nothing to wait for.
  return receiver.spans.slice(before);
}

function only(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found, `one ${name}`).toHaveLength(1);
  return found[0]!;
}

describe('murmur swarm with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it(
    'exports one trace: run → swarm → items → worker and verifier → chat and execute_tool',
    { timeout: 60_000 },
    async () => {
      const spans = await tracedSwarm();
      expect(receiver.refused).toEqual([]);
      expect(new Set(spans.map((s) => s.traceId)).size, outline(spans)).toBe(1);
      const run = only(spans, 'murmur.run');
      expect(run.parentSpanId).toBe('');
      expect(run.resource['service.name']).toBe('murmur');
      expect(run.scope).toBe('murmur-agents');
      expect(run.schemaUrl).toBe('https://opentelemetry.io/schemas/1.41.0');
      expect(run.attributes).toMatchObject({ 'murmur.run.mode': 'swarm', 'murmur.run.status': 'completed' });
      expect(run.attributes['murmur.run.task']).toBeUndefined();
      const swarm = only(spans, 'murmur.swarm');
      expect(swarm.parentSpanId).toBe(run.spanId);
      expect(swarm.attributes).toMatchObject({ 'murmur.swarm.items': 3, 'murmur.swarm.role': 'worker' });
      const items = childrenOf(spans, swarm);
      expect(items.map((s) => s.name)).toEqual(['murmur.swarm.item', 'murmur.swarm.item', 'murmur.swarm.item']);
      expect(items.map((s) => s.attributes['murmur.swarm.item.index']).sort()).toEqual([0, 1, 2]);
      for (const item of items) {
        expect(item.attributes).toMatchObject({
          'murmur.swarm.item.outcome': 'completed',
          'murmur.swarm.item.verdict': 'pass',
          'murmur.swarm.item.rounds': 1,
        });
        expect(item.attributes['murmur.swarm.item']).toBeUndefined();
        expect(item.events.map((e) => e.name)).toEqual(
          expect.arrayContaining([
            'murmur.swarm.item.queued',
            'murmur.swarm.item.launched',
            'murmur.swarm.item.verifying',
          ]),
        );
        const agents = childrenOf(spans, item);
        expect(agents.map((s) => s.name).sort()).toEqual(['invoke_agent verifier', 'invoke_agent worker']);
        const worker = agents.find((s) => s.name === 'invoke_agent worker')!;
        expect(worker.attributes).toMatchObject({
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.provider.name': 'scripted',
          'gen_ai.agent.name': 'worker',
          'murmur.agent.status': 'completed',
          'gen_ai.usage.input_tokens': 140,
          'gen_ai.usage.output_tokens': 8,
        });
        const calls = childrenOf(spans, worker);
        expect(calls.map((s) => s.name).sort()).toEqual(['chat scripted', 'chat scripted', 'execute_tool edit']);
        const tool = calls.find((s) => s.name === 'execute_tool edit')!;
        expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'edit' });
        expect(tool.attributes['gen_ai.tool.call.id']).toEqual(expect.any(String));
        expect(tool.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
        const chats = calls.filter((s) => s.name === 'chat scripted');
        expect(chats.map((s) => s.attributes['gen_ai.response.finish_reasons']).sort()).toEqual([
          ['stop'],
          ['tool_call'],
        ]);
        const last = chats.find((s) => s.attributes['gen_ai.response.finish_reasons']?.toString() === 'stop')!;
        expect(last.kind).toBe(3); // CLIENT
        expect(last.attributes).toMatchObject({
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'scripted',
          'gen_ai.request.model': 'scripted',
          'gen_ai.usage.input_tokens': 140,
          'gen_ai.usage.output_tokens': 8,
          'gen_ai.usage.cache_read.input_tokens': 40,
          'gen_ai.usage.cache_creation.input_tokens': 0,
        });
        // The scripted model is no server: it names no response model, id or server (the fake-server test does).
        expect(last.attributes['gen_ai.response.model']).toBeUndefined();
        expect(last.attributes['server.address']).toBeUndefined();
        // One conversation per agent and session, on the agent's span and each of its calls.
        const conversation = `${String(run.attributes['murmur.session.id'])}/${String(worker.attributes['gen_ai.agent.id'])}`;
        expect(run.attributes['murmur.session.id']).toMatch(/^\d{8}-\d{6}-\w+$/);
        expect(worker.attributes['gen_ai.conversation.id']).toBe(conversation);
        expect(chats.map((s) => s.attributes['gen_ai.conversation.id'])).toEqual([conversation, conversation]);
        const verifier = agents.find((s) => s.name === 'invoke_agent verifier')!;
        expect(childrenOf(spans, verifier).map((s) => s.name)).toEqual(['chat scripted']);
      }
      for (const span of spans) {
        expect(span.attributes['gen_ai.input.messages']).toBeUndefined();
        expect(span.attributes['gen_ai.output.messages']).toBeUndefined();
      }
    },
  );

  it(
    'puts prompts, completions and tool arguments and results on the spans when asked to',
    { timeout: 60_000 },
    async () => {
      const spans = await tracedSwarm({
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
        OTEL_SERVICE_NAME: 'batch',
      });
      expect(spans[0]!.resource['service.name']).toBe('batch');
      expect(only(spans, 'murmur.run').attributes['murmur.run.task']).toContain('Fix {{item}}');
      const tools = spans.filter((s) => s.name === 'execute_tool edit');
      expect(tools).toHaveLength(3);
      for (const tool of tools) {
        expect(JSON.parse(tool.attributes['gen_ai.tool.call.arguments'] as string)).toMatchObject({ old_string: 'a' });
        expect(tool.attributes['gen_ai.tool.call.result']).toEqual(expect.any(String));
      }
      const chats = spans.filter((s) => s.name === 'chat scripted' && s.attributes['murmur.turn'] === 1);
      const first = chats.find((s) => (s.attributes['gen_ai.input.messages'] as string).includes('Fix a.txt'))!;
      expect(JSON.parse(first.attributes['gen_ai.input.messages'] as string)).toEqual([
        { role: 'user', parts: [{ type: 'text', content: expect.stringContaining('Fix a.txt') }] },
      ]);
      expect(JSON.parse(first.attributes['gen_ai.output.messages'] as string)).toEqual([
        {
          role: 'assistant',
          parts: [
            {
              type: 'tool_call',
              id: expect.any(String),
              name: 'edit',
              arguments: { path: 'a.txt', old_string: 'a', new_string: 'b' },
            },
          ],
          finish_reason: 'tool_call',
        },
      ]);
    },
  );

  it('flushes the spans of a swarm stopped with Ctrl-C before it exits', { timeout: 60_000 }, async () => {
    const slow = {
      agents: [{ match: { role: 'worker', prompt: 'Fix' }, turns: [{ latencyMs: 30_000, text: 'never' }] }],
    };
    await workspaceWith(slow);
    const before = receiver.spans.length;
    const child = swarm(['--events', 'events.jsonl']);
    const events = path.join(dir, 'events.jsonl');
    await waitFor(() => readEvents(events).some((e) => e.type === 'turn.start') || undefined, 15_000, 'a model call');
    child.kill('SIGINT');
    const ran = await child;
    expect(ran.exitCode).toBe(130);
    await removeDir(dir);
    const spans = receiver.spans.slice(before);
    const run = only(spans, 'murmur.run');
    expect(run.attributes['murmur.run.status']).toBe('aborted');
    expect(run.status.code).toBe(2); // ERROR
    const items = spans.filter((s) => s.name === 'murmur.swarm.item');
    expect(items).toHaveLength(3);
    for (const item of items) expect(item.attributes['murmur.swarm.item.outcome']).toBe('aborted');
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
  });
});
