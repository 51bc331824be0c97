// Typed outputs on the command line, through package.json's bin on the scripted model: `--output-schema` (a plain
// JSON Schema; a missing or invalid file is exit 2 naming it), the report's output, `--output-jsonl` (one line per
// finished item, appended by a resume only for the items not yet written), and an item whose model answers twice
// with invalid JSON failing with the validation errors in its reason.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Script } from '../../orchestrator/models/scripted.js';
import { readSavedState } from '../../orchestrator/saved-state.js';
import { murmurIn, removeDir, tempDir, waitFor } from '../swarm/helpers.js';
import { staleBinReason } from '../murmur-bin.js';

let dir: string;
beforeAll(() => {
  const stale = staleBinReason();
  if (stale) throw new Error(stale);
});
beforeEach(async () => {
  dir = await tempDir('murmur-output-cli-');
});
afterEach(async () => {
  await removeDir(dir);
});

function file(name: string, value: unknown): string {
  const at = path.join(dir, name);
  writeFileSync(at, typeof value === 'string' ? value : JSON.stringify(value));
  return at;
}

const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer', minimum: 0 } },
  required: ['city', 'population'],
  additionalProperties: false,
};

interface Line {
  index: number;
  item: string;
  outcome: string;
  output?: { city: string; population: number };
  reason?: string;
  agentId: string;
}

function lines(at: string): Line[] {
  return readFileSync(at, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
}

describe('murmur swarm --output-schema --output-jsonl', () => {
  it('writes one valid line per item for 20 items, and --json carries each output', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'worker', prompt: 'Look up city-(\\d+)' },
          turns: [
            {
              text: 'thinking',
              toolCalls: [{ name: 'final_answer', arguments: '{"city":"city-$1","population":$1}' }],
            },
          ],
        },
      ],
    };
    const items = Array.from({ length: 20 }, (_, i) => `city-${i + 1}`);
    const out = path.join(dir, 'out.jsonl');
    const result = await murmurIn(dir, [
      'swarm',
      '--template',
      'Look up {{item}}',
      '--items',
      ...items,
      '--output-schema',
      file('s.json', SCHEMA),
      '--output-jsonl',
      out,
      '--model',
      `scripted:${file('script.json', script)}`,
      '--json',
    ]);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const written = lines(out);
    expect(written).toHaveLength(20);
    expect(new Set(written.map((l) => l.index)).size).toBe(20);
    for (const line of written) {
      expect(line.outcome).toBe('completed');
      expect(line.output).toEqual({ city: items[line.index], population: line.index + 1 });
      expect(Object.keys(line)).toEqual(['index', 'item', 'outcome', 'output', 'agentId']);
    }
    const report = JSON.parse(result.stdout) as { items: { output: unknown; text: string }[] };
    expect(report.items[3]!.output).toEqual({ city: 'city-4', population: 4 });
    expect(JSON.parse(report.items[3]!.text)).toEqual({ city: 'city-4', population: 4 });
  });

  it('fails an item whose model answers twice with invalid JSON, with the validation errors in its reason', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'worker', prompt: 'Look up good' },
          turns: [{ toolCalls: [{ name: 'final_answer', arguments: { city: 'good', population: 3 } }] }],
        },
        {
          match: { role: 'worker', prompt: 'Look up bad' },
          turns: [
            { toolCalls: [{ name: 'final_answer', arguments: '{"city": "bad", population: ' }] },
            { toolCalls: [{ name: 'final_answer', arguments: '{"city": "bad"' }] },
          ],
        },
        {
          match: { role: 'worker', prompt: 'Look up wrong' },
          turns: [
            { toolCalls: [{ name: 'final_answer', arguments: { city: 'wrong' } }] },
            { toolCalls: [{ name: 'final_answer', arguments: { city: 'wrong', population: -1 } }] },
          ],
        },
      ],
    };
    const out = path.join(dir, 'out.jsonl');
    const result = await murmurIn(dir, [
      'swarm',
      '--template',
      'Look up {{item}}',
      '--items',
      'good',
      'bad',
      'wrong',
      '--output-schema',
      file('s.json', SCHEMA),
      '--output-jsonl',
      out,
      '--model',
      `scripted:${file('script.json', script)}`,
      '--json',
    ]);
    expect(result.exitCode).toBe(1);
    const byItem = new Map(lines(out).map((l) => [l.item, l]));
    expect(byItem.get('good')).toMatchObject({ outcome: 'completed', output: { city: 'good', population: 3 } });
    const bad = byItem.get('bad')!;
    expect(bad.outcome).toBe('failed');
    expect(bad.output).toBeUndefined();
    expect(bad.reason).toMatch(/^no valid final answer after 2 attempt\(s\) \(outputRetries 1\): /);
    expect(bad.reason).toContain('Invalid arguments for tool "final_answer": not valid JSON');
    const wrong = byItem.get('wrong')!;
    expect(wrong.outcome).toBe('failed');
    expect(wrong.reason).toContain('Invalid arguments for tool "final_answer": /population: must be >= 0');
    // The first invalid answer went back to the model with its errors (a second model call, counted in usage).
    const report = JSON.parse(result.stdout) as { items: { item: string; text: string }[] };
    expect(report.items.map((i) => i.item)).toEqual(['good', 'bad', 'wrong']);
  });

  it('after SIGKILL, murmur resume appends only the items the lines file does not have', async () => {
    const script = (latencyMs: number): Script => ({
      agents: [
        {
          match: { role: 'worker', prompt: 'Look up quick(\\d)' },
          turns: [{ toolCalls: [{ name: 'final_answer', arguments: { city: 'quick$1', population: 1 } }] }],
        },
        {
          match: { role: 'worker', prompt: 'Look up slow(\\d)' },
          turns: [{ latencyMs, toolCalls: [{ name: 'final_answer', arguments: { city: 'slow$1', population: 2 } }] }],
        },
      ],
    });
    const out = path.join(dir, 'out.jsonl');
    const schema = file('s.json', SCHEMA);
    const child = murmurIn(dir, [
      'swarm',
      '--template',
      'Look up {{item}}',
      '--items',
      'quick1',
      'slow1',
      'quick2',
      'slow2',
      '--output-schema',
      schema,
      '--output-jsonl',
      out,
      '--model',
      `scripted:${file('script.json', script(60_000))}`,
    ]);
    const sessions = path.join(dir, '.murmur', 'sessions');
    const saved = () => {
      const [id] = existsSync(sessions) ? readdirSync(sessions) : [];
      if (!id || !existsSync(path.join(sessions, id, 'state.json'))) return undefined;
      // Read as every reader does: items still queued are in the session's queued file, not in state.json.
      const read = readSavedState(path.join(sessions, id));
      const items = read.ok ? (read.state.swarm as { items?: { item: string }[] } | undefined)?.items : undefined;
      return items?.some((record) => record.item === 'quick2') ? id : undefined;
    };
    const sessionId = await waitFor(
      () => (existsSync(out) && lines(out).length === 2 ? saved() : undefined),
      15_000,
      'two lines and the saved swarm',
    );
    child.kill('SIGKILL');
    await child;
    // As if the process had died between quick2's result and its line.
    const kept = lines(out).filter((l) => l.item === 'quick1');
    writeFileSync(out, `${JSON.stringify(kept[0])}\n{"index": 2, "ite`);
    // The schema file is gone: the session saved it.
    rmSync(schema);
    const resumed = await murmurIn(dir, ['resume', sessionId, '--model', `scripted:${file('fast.json', script(0))}`]);
    expect(resumed.stderr).not.toMatch(/error/i);
    expect(resumed.exitCode).toBe(0);
    const after = lines(out);
    expect(after.map((l) => l.item).sort()).toEqual(['quick1', 'quick2', 'slow1', 'slow2']);
    expect(after.find((l) => l.item === 'slow2')!.output).toEqual({ city: 'slow2', population: 2 });
  });

  it('refuses a missing or invalid schema file with exit 2 naming it, before any session', async () => {
    const model = `scripted:${file('script.json', { agents: [] })}`;
    const base = ['swarm', '--template', 'Do {{item}}', '--items', 'a', '--model', model];
    const missing = await murmurIn(dir, [...base, '--output-schema', 'nope.json']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--output-schema "nope.json" cannot be read (ENOENT)');
    const broken = await murmurIn(dir, [...base, '--output-schema', file('broken.json', '{"type":')]);
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toContain('broken.json" is not valid JSON');
    const invalid = await murmurIn(dir, [...base, '--output-schema', file('invalid.json', { type: 'objekt' })]);
    expect(invalid.exitCode).toBe(2);
    expect(invalid.stderr).toContain('invalid.json" is not a valid JSON Schema: type must be JSONType');
    const sessions = await murmurIn(dir, ['sessions', '--json']);
    expect(JSON.parse(sessions.stdout)).toEqual([]);
  });
});

describe('murmur run --output-schema', () => {
  it("puts the main agent's answer on --json's output, after sending an answer in text back once", async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main', prompt: 'largest city' },
          turns: [
            { text: 'It is Tokyo.' },
            { toolCalls: [{ name: 'final_answer', arguments: { city: 'Tokyo', population: 37 } }] },
          ],
        },
      ],
    };
    const result = await murmurIn(dir, [
      'run',
      '--output-schema',
      file('s.json', SCHEMA),
      '--model',
      `scripted:${file('script.json', script)}`,
      '--json',
      'What is the largest city?',
    ]);
    expect(result.exitCode).toBe(0);
    const report = JSON.parse(result.stdout) as { status: string; output: unknown; usage: { input: number } };
    expect(report.status).toBe('completed');
    expect(report.output).toEqual({ city: 'Tokyo', population: 37 });
  });
});
