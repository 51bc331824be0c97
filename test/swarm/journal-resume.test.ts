// What the events announce is what a resume reads: `murmur swarm` is killed (SIGKILL) right after its events
// file calls some items completed, then `murmur resume` finishes it — and no item the events had called completed
// starts again (no new agent, no launch). Before the item journal, state.json lagged the events by up to a save
// interval and such items ran a second time. Real child processes of package.json's bin, the scripted model.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Script } from '../../orchestrator/models/scripted.js';
import { murmurIn, readEvents, removeDir, tempDir, waitFor } from './helpers.js';
import { staleBinReason } from '../murmur-bin.js';

let dir: string;
beforeAll(() => {
  const stale = staleBinReason();
  if (stale) throw new Error(stale);
});
beforeEach(async () => {
  dir = await tempDir('murmur-journal-');
});
afterEach(async () => {
  await removeDir(dir);
});

const ITEMS = Array.from({ length: 80 }, (_, i) => `item${i + 1}`);

function completedIn(file: string): Set<string> {
  return new Set(
    readEvents(file)
      .filter((e) => e.type === 'swarm.item' && e.state === 'completed')
      .map((e) => (e as { item: string }).item),
  );
}

describe('the item journal', () => {
  it('never runs again an item the events file announced completed before a SIGKILL', async () => {
    const script: Script = { agents: [{ match: { prompt: 'Do (\\S+)' }, turns: [{ latencyMs: 15, text: 'did $1' }] }] };
    writeFileSync(path.join(dir, 'script.json'), JSON.stringify(script));
    const firstEvents = path.join(dir, 'first.jsonl');
    const child = murmurIn(dir, [
      'swarm',
      '--template',
      'Do {{item}}',
      '--items',
      ...ITEMS,
      '--max-concurrency',
      '20',
      '--model',
      'scripted:script.json',
      '--events',
      firstEvents,
    ]);
    // Killed mid-stream: items keep completing every few milliseconds, well inside one save interval of state.json.
    await waitFor(() => (completedIn(firstEvents).size >= 20 ? true : undefined), 30_000, '20 completed items');
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    const announced = completedIn(firstEvents);
    expect(announced.size).toBeLessThan(ITEMS.length);

    const sessions = path.join(dir, '.murmur', 'sessions');
    const [sessionId] = readdirSync(sessions);
    expect(existsSync(path.join(sessions, sessionId!, 'state.json'))).toBe(true);
    const secondEvents = path.join(dir, 'second.jsonl');
    const resumed = await murmurIn(dir, ['resume', sessionId!, '--json', '--events', secondEvents]);
    expect(resumed.stderr).toBe('');
    expect(resumed.exitCode).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ summary: { completed: ITEMS.length } });

    const again = readEvents(secondEvents).filter(
      (e) =>
        ((e.type === 'agent.start' && !e.resumed) || (e.type === 'swarm.item' && e.state === 'launched')) &&
        announced.has((e as { item?: string }).item ?? ''),
    );
    expect(again).toEqual([]);
    // Every item announced completed is reported so by the resume without running: "finished before the resume".
    const kept = readEvents(secondEvents).filter(
      (e) => e.type === 'swarm.item' && e.state === 'completed' && e.reason === 'finished before the resume',
    );
    for (const item of announced) expect(kept.map((e) => (e as { item: string }).item)).toContain(item);
    // The journal is what carried them: state.json may be behind it, never the other way round.
    const journals = readdirSync(path.join(sessions, sessionId!)).filter((f) => /^journal-\d+\.jsonl$/.test(f));
    expect(journals.length).toBeGreaterThan(0);
  }, 90_000);
});
