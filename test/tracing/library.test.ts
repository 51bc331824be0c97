// The library's tracing: spans go to the `tracerProvider` option, else to the globally registered provider; the
// README's example runs as written; with no provider registered nothing is recorded and a run lets go of its events.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMurmur, MurmurOptionsError, type MurmurOptions } from '../../api/index.js';
import { scriptedModel } from '../../api/testing.js';
import { tracedBatch } from '../api/examples/tracing.js';
import { EventBus } from '../../orchestrator/events.js';
import { SpanRecorder } from '../../host/tracing/recorder.js';
import { tracingFor } from '../../api/tracing.js';

/** Keeps what it is given (the in-memory exporter forgets its spans when the provider shuts down). */
class Collected implements SpanExporter {
  readonly spans: ReadableSpan[] = [];
  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.spans.push(...spans);
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

const SCRIPT = {
  agents: [
    {
      match: { role: 'worker', prompt: 'Convert (\\S+) ' },
      turns: [
        { toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'require', new_string: 'import' } }] },
        { text: 'Converted $1.', usage: { input: 50, output: 5 } },
      ],
    },
    { match: { role: 'verifier', prompt: '<item>(\\S+)</item>' }, turns: [{ text: 'VERDICT: pass' }] },
    { match: { role: 'main', prompt: 'hello' }, turns: [{ text: 'Hello there.', usage: { input: 3, output: 2 } }] },
  ],
};

let dir: string;
const savedModel = process.env.MURMUR_MODEL;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-trace-')));
  for (const file of ['a.js', 'b.js', 'c.js']) writeFileSync(path.join(dir, file), "const x = require('x');\n");
  writeFileSync(path.join(dir, 'script.json'), JSON.stringify(SCRIPT));
  process.env.MURMUR_MODEL = `scripted:${path.join(dir, 'script.json')}`;
});
afterEach(async () => {
  trace.disable();
  if (savedModel === undefined) delete process.env.MURMUR_MODEL;
  else process.env.MURMUR_MODEL = savedModel;
  await rm(dir, { recursive: true, force: true });
});

function parentOf(spans: readonly ReadableSpan[], span: ReadableSpan): ReadableSpan | undefined {
  return spans.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);
}

function inMemory(): { provider: BasicTracerProvider; exporter: InMemorySpanExporter } {
  const exporter = new InMemorySpanExporter();
  return { exporter, provider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }) };
}

describe('tracing from the library', () => {
  it('the README example: a verified swarm is one trace of run, swarm, items, agents and calls', async () => {
    const exporter = new Collected();
    const report = await tracedBatch(dir, ['a.js', 'b.js', 'c.js'], exporter);
    expect(report.status).toBe('completed');
    const spans = exporter.spans;
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    const names = spans.map((s) => s.name);
    expect(names.filter((n) => n === 'murmur.swarm.item')).toHaveLength(3);
    expect(names.filter((n) => n === 'invoke_agent verifier')).toHaveLength(3);
    const edits = spans.filter((s) => s.name === 'execute_tool edit');
    expect(edits.length).toBeGreaterThan(0);
    for (const tool of edits) {
      const agent = parentOf(spans, tool)!;
      expect(agent.name).toBe('invoke_agent worker');
      const item = parentOf(spans, agent)!;
      expect(item.name).toBe('murmur.swarm.item');
      expect(parentOf(spans, parentOf(spans, item)!)!.name).toBe('murmur.run');
    }
    for (const verifier of spans.filter((s) => s.name === 'invoke_agent verifier'))
      expect(parentOf(spans, verifier)!.name).toBe('murmur.swarm.item');
  });

  it('uses the globally registered provider, with content only when tracing.captureContent is set', async () => {
    const { provider, exporter } = inMemory();
    trace.setGlobalTracerProvider(provider);
    const plain = await createMurmur({ cwd: dir, sessions: false });
    expect((await plain.run('hello')).result).toBe('Hello there.');
    await plain.close();
    const chat = exporter.getFinishedSpans().find((s) => s.name === 'chat scripted')!;
    expect(chat.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 3,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(chat.attributes['gen_ai.input.messages']).toBeUndefined();
    exporter.reset();

    const open = await createMurmur({ cwd: dir, sessions: false, tracing: { captureContent: true } });
    await open.run('hello');
    await open.close();
    const seen = exporter.getFinishedSpans().find((s) => s.name === 'chat scripted')!;
    expect(JSON.parse(seen.attributes['gen_ai.input.messages'] as string)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'hello' }] },
    ]);
    expect(JSON.parse(seen.attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Hello there.' }], finish_reason: 'stop' },
    ]);
  });

  it('records nothing and lets go of the events when no provider is registered', async () => {
    const bus = new EventBus();
    const recorder = new SpanRecorder(bus, { provider: trace.getTracerProvider(), captureContent: false, model: 'm' });
    expect(bus.wants('agent.start')).toBe(true);
    bus.emit({ type: 'run.start', mode: 'run', task: 't', model: 'm' });
    for (const type of ['run.start', 'agent.start', 'turn.start', 'tool.start', 'message'] as const)
      expect(bus.wants(type), type).toBe(false);
    recorder.close();
    // The library's first run finds the no-op provider; later runs are not traced until a provider is registered.
    const murmur = await createMurmur({ cwd: dir, sessions: false, model: scriptedModel(SCRIPT) });
    expect((await murmur.run('hello')).status).toBe('completed');
    expect(tracingFor({})).toBeUndefined();
    expect((await murmur.run('hello')).status).toBe('completed');
    await murmur.close();
    const { provider, exporter } = inMemory();
    trace.setGlobalTracerProvider(provider);
    expect(tracingFor({})).toBeDefined();
    const traced = await createMurmur({ cwd: dir, sessions: false, model: scriptedModel(SCRIPT) });
    await traced.run('hello');
    await traced.close();
    expect(exporter.getFinishedSpans().map((s) => s.name)).toContain('invoke_agent main');
  });

  it('refuses a tracerProvider that is not one, and unknown tracing keys, naming them', async () => {
    const bad = [
      [{ tracerProvider: {} }, 'tracerProvider'],
      [{ tracing: { captureContent: 'yes' } }, 'tracing.captureContent'],
      [{ tracing: { content: true } }, 'tracing.content'],
    ] as const;
    for (const [options, option] of bad) {
      const error = await createMurmur({ cwd: dir, ...(options as Partial<MurmurOptions>) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MurmurOptionsError);
      expect((error as MurmurOptionsError).option).toBe(option);
    }
  });
});
