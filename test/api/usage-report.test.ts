// Usage and cost on every report: a swarm's rows carry what their agents used (the worker and its verifiers), the
// report its total; a price given for a model murmur does not know (the library's `prices`, murmur.toml's
// `[prices]`) makes the cost known, on the rows, the totals and `murmur report --json` alike.
import { writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMurmur, MurmurOptionsError } from '../../api/index.js';
import { scriptedModel } from '../../api/testing.js';
import { murmur as cli } from '../cli/helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-usage-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SCRIPT = {
  agents: [
    {
      match: { role: 'worker', prompt: 'Check (\\S+)' },
      turns: [{ text: 'checked $1', usage: { input: 1_000_000, output: 100_000 } }],
    },
    { match: { role: 'verifier' }, turns: [{ text: 'VERDICT: pass', usage: { input: 500_000, output: 0 } }] },
  ],
};

describe('usage and cost on a swarm report', () => {
  it('rows carry their worker and verifier usage, the report its total, priced by the given price', async () => {
    const murmur = await createMurmur({
      cwd: dir,
      model: scriptedModel(SCRIPT),
      prices: { scripted: { input: 2, output: 10 } },
    });
    try {
      const report = await murmur.swarm({ template: 'Check {{item}}', items: ['a', 'b'], verify: true });
      expect(report.status).toBe('completed');
      for (const row of report.items)
        // 1.5 M input at $2 and 0.1 M output at $10 per million: $3 + $1 (one item alone: $2 + $1).
        expect(row.usage).toEqual({ input: 1_500_000, output: 100_000, cacheRead: 0, cacheWrite: 0, cost: 4 });
      expect(report.usage).toMatchObject({ input: 3_000_000, output: 200_000, cost: 8 });
    } finally {
      await murmur.close();
    }
  });

  it('a bad price is MurmurOptionsError naming it', async () => {
    await expect(
      createMurmur({ cwd: dir, model: scriptedModel(SCRIPT), prices: { scripted: { input: -1, output: 1 } } }),
    ).rejects.toThrow(MurmurOptionsError);
  });

  it('murmur.toml [prices] prices the command line too: --json and murmur report --json carry the cost', async () => {
    writeFileSync(path.join(dir, 'script.json'), JSON.stringify(SCRIPT));
    const model = `scripted:${path.join(dir, 'script.json')}`;
    writeFileSync(path.join(dir, 'murmur.toml'), `[prices."${model}"]\ninput = 2\noutput = 10\n`);
    const ran = await cli(['swarm', '--template', 'Check {{item}}', '--items', 'a', '--model', model, '--json'], {
      cwd: dir,
    });
    expect(ran.code, ran.stderr).toBe(0);
    const report = JSON.parse(ran.stdout) as {
      sessionId: string;
      usage: { cost: number };
      items: { usage: unknown }[];
    };
    expect(report.usage.cost).toBe(3);
    expect(report.items[0]!.usage).toMatchObject({ input: 1_000_000, cost: 3 });
    const again = await cli(['report', report.sessionId, '--json'], { cwd: dir });
    expect(JSON.parse(again.stdout)).toMatchObject({ usage: { cost: 3 }, items: [{ usage: { cost: 3 } }] });
  });
});
