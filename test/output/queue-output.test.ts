// A typed output on a queue swarm: the schema travels in each job (with the items' profile), the worker checks the
// answers and sends the output back, and the coordinator's report and lines file carry it.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Script } from '../../orchestrator/models/scripted.js';
import { childEnv, clone, murmur, privateRedis, redisAvailable, startWorker, workspace } from '../queue/helpers.js';

describe.runIf(redisAvailable())('murmur swarm --queue --output-schema', () => {
  const fixture = privateRedis('murmur-queue-output-');

  it('checks the answers on the worker and reports each output', { timeout: 60_000 }, async () => {
    const { dir, redis } = fixture;
    const script: Script = {
      agents: [
        {
          match: { role: 'worker', prompt: 'Count (\\S+)' },
          turns: [
            { toolCalls: [{ name: 'final_answer', arguments: { file: '$1', lines: 'many' } }] },
            { toolCalls: [{ name: 'final_answer', arguments: { file: '$1', lines: 1 } }] },
          ],
        },
      ],
    };
    const { repo, script: model } = workspace(path.join(dir, 'one'), { 'a.txt': 'a\n', 'b.txt': 'b\n' }, script);
    const schema = path.join(dir, 'schema.json');
    writeFileSync(
      schema,
      JSON.stringify({
        type: 'object',
        properties: { file: { type: 'string' }, lines: { type: 'integer' } },
        required: ['file', 'lines'],
      }),
    );
    const worker = startWorker(redis.url, clone(repo, dir, 'w1'), dir, 'host-1');
    try {
      const out = path.join(dir, 'out.jsonl');
      const result = await murmur(
        [
          'swarm',
          '--template',
          'Count {{item}}',
          '--items',
          'a.txt',
          'b.txt',
          '--output-schema',
          schema,
          '--output-jsonl',
          out,
          '--model',
          `scripted:${model}`,
          '--queue',
          redis.url,
          '--json',
        ],
        repo,
        childEnv(dir),
      );
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      const report = JSON.parse(result.stdout) as { items: { output: unknown; host: string }[] };
      expect(report.items.map((row) => [row.output, row.host])).toEqual([
        [{ file: 'a.txt', lines: 1 }, 'host-1'],
        [{ file: 'b.txt', lines: 1 }, 'host-1'],
      ]);
      const lines = readFileSync(out, 'utf8').trim().split('\n');
      expect(lines.map((line) => (JSON.parse(line) as { output: unknown }).output)).toContainEqual({
        file: 'b.txt',
        lines: 1,
      });
    } finally {
      worker.child.kill('SIGTERM');
      await worker.child;
    }
  });
});
