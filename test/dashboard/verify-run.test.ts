// The dashboard's view of a recorded --verify swarm: a real Engine on the scripted model in a temp workspace,
// its events folded by the view model and printed by the plain lines. Verdicts belong to the worker rows, the
// verifier rows end like any agent, and each verdict is told once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus, type MurmurEvent } from '../../orchestrator/events.js';
import type { Script } from '../../orchestrator/models/scripted.js';
import { startLineReporter } from '../../dashboards/lines.js';
import { concurrency, initialSnapshot, isActive, progress, reduce, sortedAgents } from '../../dashboards/view-model.js';
import { makeEngine, removeDir, tempDir, writeTree } from '../swarm/helpers.js';

const SCRIPT: Script = {
  agents: [
    {
      match: { role: 'worker', prompt: 'Bump (\\S+)' },
      turns: [
        { toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'v0', new_string: 'v1' } }] },
        { text: 'bumped $1 to v1' },
        { toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'v1', new_string: 'v2' } }] },
        { text: 'bumped $1 to v2' },
      ],
    },
    {
      match: { role: 'verifier', prompt: 'round 1\\)[\\s\\S]*<item>a.txt</item>' },
      turns: [{ text: 'VERDICT: fail\na.txt must say v2' }],
    },
    {
      match: { role: 'verifier' },
      turns: [{ toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] }, { text: 'VERDICT: pass' }],
    },
  ],
};

let dir: string;
let events: MurmurEvent[];

/** Records the events of `murmur swarm --verify` over two items: a.txt fails once, then passes; b.txt passes. */
beforeAll(async () => {
  dir = await tempDir('murmur-dash-verify-');
  writeTree(dir, { 'a.txt': 'v0\n', 'b.txt': 'v0\n' });
  const t = makeEngine(dir, SCRIPT);
  const answer = await t.swarm({ promptTemplate: 'Bump {{item}}', items: ['a.txt', 'b.txt'], verify: true });
  expect(answer.ok && answer.report).toContain('<summary>completed: 2</summary>');
  events = t.events;
  await t.close();
});
afterAll(async () => {
  await removeDir(dir);
});

describe('a recorded --verify swarm', () => {
  it('puts verdicts on the worker rows; verifier rows end completed and nothing stays active', () => {
    const s = initialSnapshot({ now: events[0]!.ts });
    for (const event of events) reduce(s, event);
    const rows = [...s.agents.values()];
    const verifiers = rows.filter((a) => a.role === 'verifier');
    expect(verifiers).toHaveLength(3);
    for (const verifier of verifiers) {
      expect(verifier.state).toBe('completed');
      expect(verifier.verdict).toBeUndefined();
    }
    const workers = Object.fromEntries(rows.filter((a) => a.role === 'worker').map((a) => [a.item, a]));
    expect(workers['a.txt']).toMatchObject({ state: 'completed', verdict: 'pass', rounds: 2 });
    expect(workers['b.txt']).toMatchObject({ state: 'completed', verdict: 'pass', rounds: 1 });
    expect(sortedAgents(s).filter(isActive)).toEqual([]);
    expect(progress(s)).toMatchObject({ completed: 2, running: 0, total: 2 });
    expect(concurrency(s)).toEqual({ running: 0 });

    // Each verdict once, on its worker, naming the verifier that gave it.
    const verdicts = s.log
      .tail()
      .map((e) => e.text)
      .filter((text) => text.includes('verdict'));
    const a = workers['a.txt']!.id;
    const b = workers['b.txt']!.id;
    expect(verdicts.sort()).toEqual(
      [
        expect.stringMatching(new RegExp(`^${a} a\\.txt verdict fail \\(round 1, by a-\\d+\\): a\\.txt must say v2$`)),
        expect.stringMatching(new RegExp(`^${a} a\\.txt verdict pass \\(round 2, by a-\\d+\\)$`)),
        expect.stringMatching(new RegExp(`^${b} b\\.txt verdict pass \\(round 1, by a-\\d+\\)$`)),
      ].sort(),
    );
    expect(verdicts).toHaveLength(3);
  });

  it('prints each verdict once in the plain lines', () => {
    const bus = new EventBus();
    let out = '';
    const reporter = startLineReporter({ bus, out: { write: (text: string) => (out += text) }, env: {} });
    for (const event of events) bus.emit(event);
    reporter.stop();
    const verdicts = out.split('\n').filter((line) => line.includes(' verdict '));
    expect(verdicts.map((line) => line.replace(/^\[\d+:\d\d\] /, '').replace(/^(✓|✗) a-\d+ /, '$1 ')).sort()).toEqual(
      [
        '✗ a.txt verdict fail (round 1): a.txt must say v2',
        '✓ a.txt verdict pass (round 2)',
        '✓ b.txt verdict pass (round 1)',
      ].sort(),
    );
  });
});
