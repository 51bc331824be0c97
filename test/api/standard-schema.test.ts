// Standard Schema (zod 4 here) beside TypeBox: a swarm's typed output and a tool's arguments given as zod schemas
// are shown to the model as JSON Schema, checked by zod (refinements and transforms apply: the row's output and the
// tool's input are zod's output), typed by zod's inference (checked by tsc with the rest of the tests), and a
// Standard Schema that cannot be written as JSON Schema is a MurmurOptionsError naming the option.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMurmur, defineTool, MurmurOptionsError, textResult } from '../../api/index.js';
import { scriptedModel } from '../../api/testing.js';
import { reviewFiles } from './examples/typed-output-zod.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-standard-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const Finding = z.object({
  // A refinement JSON Schema cannot say: only zod refuses a file that is not TypeScript.
  files: z.array(z.string()).refine((files) => files.every((file) => file.endsWith('.ts')), 'name TypeScript files'),
  confidence: z.enum(['high', 'low']),
  // A transform: the model writes a string, the row's output holds its length.
  note: z.string().transform((text) => text.length),
});

describe('a Standard Schema as a typed output', () => {
  it("types each row's output with zod's output, shows the model the JSON Schema and sends zod's issues back", async () => {
    const model = scriptedModel({
      agents: [
        {
          match: { prompt: 'Find a' },
          turns: [
            { toolCalls: [{ name: 'final_answer', arguments: { files: ['a.ts'], confidence: 'high', note: 'abc' } }] },
          ],
        },
        {
          match: { prompt: 'Find b' },
          turns: [
            // Valid JSON Schema, refused by zod's refinement: the call's error carries zod's message.
            { toolCalls: [{ name: 'final_answer', arguments: { files: ['b.md'], confidence: 'low', note: '' } }] },
            { toolCalls: [{ name: 'final_answer', arguments: { files: ['b.ts'], confidence: 'low', note: 'hello' } }] },
          ],
        },
      ],
    });
    const murmur = await createMurmur({ cwd: dir, model, sessions: false });
    const report = await murmur.swarm({
      template: 'Find {{item}}',
      items: ['a', 'b'],
      role: 'explore',
      output: Finding,
    });
    await murmur.close();
    const outputs = report.items.map((row) => row.output);
    expect(outputs).toEqual([
      { files: ['a.ts'], confidence: 'high', note: 3 },
      { files: ['b.ts'], confidence: 'low', note: 5 },
    ]);
    // Typed by zod's inference: note is a number after the transform.
    const lengths: (number | undefined)[] = report.items.map((row) => row.output?.note);
    expect(lengths).toEqual([3, 5]);
    const shown = model.calls[0]!.tools.find((tool) => tool.name === 'final_answer')!.parameters as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(shown.properties)).toEqual(['files', 'confidence', 'note']);
    expect(shown.required).toEqual(['files', 'confidence', 'note']);
    const refused = model.calls
      .flatMap((call) => call.messages)
      .find((message) => message.role === 'tool' && message.isError === true);
    expect(JSON.stringify(refused)).toContain('/files: name TypeScript files');
    model.assertComplete();
  });

  it('names the option when a Standard Schema exports no JSON Schema', async () => {
    const model = scriptedModel({ agents: [] });
    const murmur = await createMurmur({ cwd: dir, model, sessions: false });
    const bare = { '~standard': { version: 1, vendor: 'handmade', validate: (value: unknown) => ({ value }) } };
    const error = await murmur.run('x', { output: bare as never }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    await murmur.close();
    expect(error).toBeInstanceOf(MurmurOptionsError);
    expect((error as MurmurOptionsError).option).toBe('output');
    expect((error as Error).message).toContain('this handmade schema exports no JSON Schema');
  });
});

describe('a Standard Schema for a tool', () => {
  it("gives execute zod's output and sends the model zod's issues before the call runs", async () => {
    const seen: { ticket: number; tags: string[] }[] = [];
    const close = defineTool({
      def: {
        name: 'close_ticket',
        description: 'Close a ticket',
        readOnly: true, // runs without asking: the test is about its arguments
        parameters: z.object({
          ticket: z.string().regex(/^\d+$/, 'a ticket number').transform(Number),
          tags: z.array(z.string()).default([]),
        }),
      },
      execute: (_ctx, input) => {
        // Typed: ticket is a number after the transform, tags a list (its default applied).
        seen.push({ ticket: input.ticket, tags: input.tags });
        return textResult(`closed #${input.ticket}`);
      },
    });
    const model = scriptedModel({
      agents: [
        {
          turns: [
            { toolCalls: [{ name: 'close_ticket', arguments: { ticket: 'twelve' } }] },
            { toolCalls: [{ name: 'close_ticket', arguments: { ticket: '12' } }] },
            { text: 'done' },
          ],
        },
      ],
    });
    const murmur = await createMurmur({
      cwd: dir,
      model,
      sessions: false,
      tools: [{ tool: close, roles: ['main'] }],
      permissionMode: 'auto',
    });
    const report = await murmur.run('close 12');
    await murmur.close();
    expect(report.status).toBe('completed');
    expect(seen).toEqual([{ ticket: 12, tags: [] }]);
    const results = model.calls.at(-1)!.messages.filter((message) => message.role === 'tool');
    expect(JSON.stringify(results[0])).toContain('a ticket number');
    expect(JSON.stringify(results[1])).toContain('closed #12');
    const shown = model.calls[0]!.tools.find((tool) => tool.name === 'close_ticket')!.parameters;
    expect(shown).not.toHaveProperty('$schema');
    expect(shown).toMatchObject({ type: 'object', properties: { ticket: { type: 'string' } } });
  });
});

describe("the README's zod example", () => {
  it('reviews each file, a blank comment sent back by zod (its trim, not the JSON Schema) and mended', async () => {
    const comment = (text: string) => ({
      toolCalls: [{ name: 'final_answer', arguments: { verdict: 'request-changes', comments: [{ line: 3, text }] } }],
    });
    const model = scriptedModel({
      agents: [
        {
          match: { prompt: 'Review a.ts' },
          turns: [{ toolCalls: [{ name: 'final_answer', arguments: { verdict: 'approve', comments: [] } }] }],
        },
        { match: { prompt: 'Review b.ts' }, turns: [comment('   '), comment(' name the constant ')] },
      ],
    });
    const reviews = await reviewFiles(dir, ['a.ts', 'b.ts'], model);
    expect(reviews).toEqual([
      { file: 'a.ts', verdict: 'approve', lines: [] },
      { file: 'b.ts', verdict: 'request-changes', lines: [3] },
    ]);
    const refused = model.calls.flatMap((call) => call.messages).find((m) => m.role === 'tool' && m.isError === true);
    expect(JSON.stringify(refused)).toContain('/comments/0/text:');
    model.assertComplete();
  });
});
