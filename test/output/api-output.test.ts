// Typed outputs and object items in the library: run() and swarm() with an `output` TypeBox schema (the answer
// typed as Static<typeof schema>), object items with {{field}} placeholders or a template function (each row's
// `item` a label, `input` the object), the verifier seeing the structured answer, invalid answers sent back
// `outputRetries` times, and the option errors.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { createMurmur, defineTool, MurmurOptionsError, textResult, Type } from '../../api/index.js';
import { scriptedModel } from '../../api/testing.js';
import { whereConfigured } from '../api/examples/typed-output.js';
import { writeFileSync } from 'node:fs';
import { murmurIn } from '../swarm/helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-api-output-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const Capital = Type.Object({ country: Type.String(), capital: Type.String(), confident: Type.Boolean() });

/** A call's MurmurOptionsError: thrown at the call (what it can check there), or rejecting its `done`. */
async function rejection(start: () => PromiseLike<unknown>): Promise<MurmurOptionsError> {
  let error: unknown;
  try {
    await start();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(MurmurOptionsError);
  return error as MurmurOptionsError;
}

describe('run() with an output schema', () => {
  it("types the report's output and tells the agent the schema through final_answer", async () => {
    const model = scriptedModel({
      agents: [
        {
          match: { role: 'main', prompt: 'capital of (\\w+)' },
          turns: [
            { toolCalls: [{ name: 'final_answer', arguments: { country: '$1', capital: 'Paris', confident: true } }] },
          ],
        },
      ],
    });
    const murmur = await createMurmur({ cwd: dir, model, sessions: false });
    try {
      const report = await murmur.run('What is the capital of France?', { output: Capital });
      expectTypeOf(report.output).toEqualTypeOf<{ country: string; capital: string; confident: boolean } | undefined>();
      expect(report.status).toBe('completed');
      expect(report.output).toEqual({ country: 'France', capital: 'Paris', confident: true });
      expect(JSON.parse(report.result)).toEqual(report.output);
      const [call] = model.calls;
      const tool = call!.tools.find((t) => t.name === 'final_answer');
      expect(tool?.parameters).toMatchObject({ type: 'object', required: ['country', 'capital', 'confident'] });
      expect(call!.system).toContain('call the tool final_answer once');
      model.assertComplete();
    } finally {
      await murmur.close();
    }
  });

  it('sends an invalid answer back with its errors, outputRetries times, then fails (every call in usage)', async () => {
    const turns = [
      { toolCalls: [{ name: 'final_answer', arguments: { country: 'France' } }], usage: { input: 10, output: 1 } },
      {
        toolCalls: [{ name: 'final_answer', arguments: { country: 'France', capital: 7 } }],
        usage: { input: 10, output: 1 },
      },
      { text: 'Paris, I think.', usage: { input: 10, output: 1 } },
    ];
    const model = scriptedModel({ agents: [{ match: { role: 'main' }, turns }] });
    const murmur = await createMurmur({ cwd: dir, model, sessions: false });
    try {
      const report = await murmur.run('The capital of France?', { output: Capital, outputRetries: 2 });
      expect(report.status).toBe('failed');
      expect(report.output).toBeUndefined();
      expect(report.reason).toBe(
        'no valid final answer after 3 attempt(s) (outputRetries 2): it answered in text without calling final_answer',
      );
      expect(report.usage.input).toBe(30);
      const second = model.calls[1]!.messages.at(-1)!;
      expect(JSON.stringify(second)).toContain('/capital: is required');
      expect(JSON.stringify(model.calls[2]!.messages.at(-1))).toContain('/capital: must be string');
      model.assertComplete();
    } finally {
      await murmur.close();
    }
  });

  it('takes a schema that is not an object (the answer goes as `value`)', async () => {
    const model = scriptedModel({
      agents: [{ turns: [{ toolCalls: [{ name: 'final_answer', arguments: { value: ['a', 'b'] } }] }] }],
    });
    const murmur = await createMurmur({ cwd: dir, model, sessions: false });
    try {
      const report = await murmur.run('List two letters.', { output: Type.Array(Type.String()) });
      expectTypeOf(report.output).toEqualTypeOf<string[] | undefined>();
      expect(report.output).toEqual(['a', 'b']);
    } finally {
      await murmur.close();
    }
  });
});

describe('swarm() with object items and an output schema', () => {
  const countries = [
    { name: 'France', region: 'Europe' },
    { name: 'Japan', region: 'Asia' },
    { name: 'Peru', region: 'South America' },
  ];

  it('fills {{field}} placeholders, labels rows, keeps each input, and the verifier sees the structured answer', async () => {
    const model = scriptedModel({
      agents: [
        {
          match: { role: 'explore', prompt: 'capital of (\\w+) \\(in ([\\w ]+)\\)' },
          turns: [
            { toolCalls: [{ name: 'final_answer', arguments: { country: '$1', capital: 'C-$1', confident: true } }] },
          ],
        },
        { match: { role: 'verifier', prompt: '"capital": "C-Peru"' }, turns: [{ text: 'VERDICT: fail\nnot sure' }] },
        { match: { role: 'verifier', prompt: '"capital": "C-' }, turns: [{ text: 'VERDICT: pass' }] },
      ],
    });
    const murmur = await createMurmur({ cwd: dir, model, sessions: false });
    try {
      const report = await murmur.swarm({
        template: 'Find the capital of {{name}} (in {{region}}).',
        items: countries,
        role: 'explore',
        output: Capital,
        verify: true,
        maxRounds: 1,
      });
      expectTypeOf(report.items[0]!.input).toEqualTypeOf<{ name: string; region: string }>();
      expectTypeOf(report.items[0]!.output).toEqualTypeOf<
        { country: string; capital: string; confident: boolean } | undefined
      >();
      expect(report.items.map((row) => [row.item, row.outcome, row.verdict])).toEqual([
        ['France', 'completed', 'pass'],
        ['Japan', 'completed', 'pass'],
        ['Peru', 'failed', 'fail'],
      ]);
      expect(report.items.map((row) => row.input)).toEqual(countries);
      expect(report.items[1]!.output).toEqual({ country: 'Japan', capital: 'C-Japan', confident: true });
      const verifierTask = model.calls.find((c) => c.agent.role === 'verifier')!.messages[0];
      expect(JSON.stringify(verifierTask)).toContain('<worker_handoff>\\n{\\n  \\"country\\"');
      // The verifier answers in text: it has no final_answer.
      expect(model.calls.find((c) => c.agent.role === 'verifier')!.tools.some((t) => t.name === 'final_answer')).toBe(
        false,
      );
    } finally {
      await murmur.close();
    }
  });

  it('takes a template function; each row is labelled with its JSON; a session saves the prompts and inputs', async () => {
    const model = scriptedModel({
      agents: [
        {
          match: { prompt: 'Summarise ticket (\\d+)' },
          turns: [{ toolCalls: [{ name: 'final_answer', arguments: { value: 'summary $1' } }] }],
        },
      ],
    });
    const murmur = await createMurmur({ cwd: dir, model });
    try {
      const tickets = [{ id: 7 }, { id: 9 }];
      const report = await murmur.swarm({
        template: (ticket: { id: number }) => `Summarise ticket ${ticket.id}.`,
        items: tickets,
        output: Type.String(),
      });
      expectTypeOf(report.items[0]!.output).toEqualTypeOf<string | undefined>();
      expect(report.status).toBe('completed');
      expect(report.items.map((row) => [row.item, row.output, row.input])).toEqual([
        ['{"id":7}', 'summary 7', { id: 7 }],
        ['{"id":9}', 'summary 9', { id: 9 }],
      ]);
      // resume() of the finished session gives the same rows back, from what was saved.
      const again = await murmur.resume(report.sessionId!);
      expect('items' in again && again.items.map((row) => [row.item, row.output, row.input])).toEqual([
        ['{"id":7}', 'summary 7', { id: 7 }],
        ['{"id":9}', 'summary 9', { id: 9 }],
      ]);
    } finally {
      await murmur.close();
    }
  });

  it('keeps string items as before (input is the string)', async () => {
    const model = scriptedModel({ agents: [{ match: { prompt: 'Check (\\S+)' }, turns: [{ text: '$1 ok' }] }] });
    const murmur = await createMurmur({ cwd: dir, model, sessions: false });
    try {
      const report = await murmur.swarm({ template: 'Check {{item}}', items: ['a.ts', 'b.ts'] });
      expectTypeOf(report.items[0]!.input).toEqualTypeOf<string>();
      expect(report.items.map((row) => [row.item, row.text, row.input, row.output])).toEqual([
        ['a.ts', 'a.ts ok', 'a.ts', undefined],
        ['b.ts', 'b.ts ok', 'b.ts', undefined],
      ]);
    } finally {
      await murmur.close();
    }
  });
});

describe('typed output options', () => {
  it('refuses bad schemas, retries, placeholders and a tool named final_answer, naming the option', async () => {
    const model = scriptedModel({ agents: [] });
    const murmur = await createMurmur({ cwd: dir, model, sessions: false });
    try {
      expect((await rejection(() => murmur.run('x', { output: { type: 'objekt' } as never }))).option).toBe('output');
      expect((await rejection(() => murmur.run('x', { output: Capital, outputRetries: -1 }))).option).toBe(
        'outputRetries',
      );
      expect((await rejection(() => murmur.run('x', { outputRetries: 2 }))).option).toBe('outputRetries');
      const missing = await rejection(() => murmur.swarm({ template: 'Do {{title}}', items: [{ name: 'x' }] }));
      expect(missing.option).toBe('swarm.items[0]');
      expect(missing.message).toContain('no field "title"');
      const noPlaceholder = await rejection(() => murmur.swarm({ template: 'Do it', items: [{ name: 'x' }] }));
      expect(noPlaceholder.option).toBe('swarm.template');
      const thrown = await rejection(() =>
        murmur.swarm({
          template: () => {
            throw new Error('boom');
          },
          items: [1],
        }),
      );
      expect(thrown.message).toContain('it threw for items[0]: boom');
      expect(
        (await rejection(() => murmur.swarm({ template: 'x {{item}}', items: ['a'], output: 5 as never }))).option,
      ).toBe('swarm.output');
    } finally {
      await murmur.close();
    }
    const tool = defineTool({
      def: { name: 'final_answer', description: 'x', parameters: Type.Object({}) },
      execute: () => textResult('x'),
    });
    const taken = await rejection(() => createMurmur({ cwd: dir, model, tools: [{ tool, roles: ['worker'] }] }));
    expect(taken.option).toBe('tools[0]');
  });
});

describe('the README example of a typed swarm output', () => {
  it('gives one checked object per module, and the reason for an item whose answer never passed', async () => {
    const model = scriptedModel({
      agents: [
        {
          match: { role: 'explore', prompt: 'under (\\S+) read the configuration of the db module' },
          turns: [
            { toolCalls: [{ name: 'grep', arguments: { pattern: 'config', path: '.' } }] },
            { toolCalls: [{ name: 'final_answer', arguments: { files: ['$1/pool.ts'], confidence: 'high' } }] },
          ],
        },
        {
          match: { role: 'explore', prompt: 'cache module' },
          turns: [
            { toolCalls: [{ name: 'final_answer', arguments: { files: 'none', confidence: 'high' } }] },
            { toolCalls: [{ name: 'final_answer', arguments: { files: [], confidence: 'maybe' } }] },
          ],
        },
      ],
    });
    const found = await whereConfigured(
      dir,
      [
        { name: 'db', dir: 'src/db' },
        { name: 'cache', dir: 'src/cache' },
      ],
      model,
    );
    expect(found.db).toEqual(['src/db/pool.ts']);
    expect(found.cache).toHaveLength(1);
    expect(found.cache![0]).toMatch(/^\(failed: no valid final answer after 2 attempt\(s\) \(outputRetries 1\): /);
    expect(found.cache![0]).toContain('/confidence');
    model.assertComplete();
  });
});

describe('a library session with a template function, resumed by murmur resume', () => {
  it('runs the unfinished items from their saved prompts, checked against the saved schema', async () => {
    const script = (latencyMs: number) => ({
      agents: [
        {
          match: { prompt: 'Size of box (\\d+)' },
          turns: [{ latencyMs: 0, toolCalls: [{ name: 'final_answer', arguments: { value: 1 } }] }],
        },
        {
          match: { prompt: 'Size of crate (\\d+)' },
          turns: [{ latencyMs, toolCalls: [{ name: 'final_answer', arguments: { value: 2 } }] }],
        },
      ],
    });
    const slow = path.join(dir, 'slow.json');
    writeFileSync(slow, JSON.stringify(script(60_000)));
    const murmur = await createMurmur({ cwd: dir, model: scriptedModel(slow) });
    const stop = new AbortController();
    murmur.on('swarm.item', (event) => {
      if (event.state === 'completed') stop.abort();
    });
    let sessionId: string | undefined;
    try {
      const things = [
        { kind: 'box', n: 1 },
        { kind: 'crate', n: 2 },
      ];
      const report = await murmur.swarm({
        template: (thing: { kind: string; n: number }) => `Size of ${thing.kind} ${thing.n}?`,
        items: things,
        output: Type.Integer(),
        maxConcurrency: 2,
        signal: stop.signal,
      });
      expect(report.status).toBe('aborted');
      expect(report.items.map((row) => row.outcome)).toEqual(['completed', 'aborted']);
      sessionId = report.sessionId;
    } finally {
      await murmur.close();
    }
    const fast = path.join(dir, 'fast.json');
    writeFileSync(fast, JSON.stringify(script(0)));
    const resumed = await murmurIn(dir, ['resume', sessionId!, '--model', `scripted:${fast}`, '--json']);
    expect(resumed.exitCode).toBe(0);
    const rows = (JSON.parse(resumed.stdout) as { items: { item: string; output: unknown; input: unknown }[] }).items;
    expect(rows.map((row) => [row.item, row.output, row.input])).toEqual([
      ['{"kind":"box","n":1}', 1, { kind: 'box', n: 1 }],
      ['{"kind":"crate","n":2}', 2, { kind: 'crate', n: 2 }],
    ]);
  });
});
