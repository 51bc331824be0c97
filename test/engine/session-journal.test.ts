// The session's item journal on real files: a snapshot says where it was taken and a reader applies only the
// lines after it; a cut last line is skipped; a big generation rotates and the old ones go once a snapshot covers
// them; a reopened session appends after what it read.
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../orchestrator/session.js';
import { readSavedState } from '../../orchestrator/saved-state.js';
import { summarizeState } from '../../orchestrator/session-list.js';

let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

interface Swarm {
  swarmId: string;
  items: { item: string; done?: boolean; pad?: string }[];
}

function stateWith(swarm: Swarm) {
  return {
    version: 2,
    id: 's',
    kind: 'swarm',
    createdAt: 1,
    updatedAt: 2,
    cwd: '/',
    model: 'm',
    status: 'running',
    agents: [],
    tasks: [],
    usage: {},
    swarm,
  };
}

function items(store: SessionStore): Swarm['items'] {
  const read = readSavedState(store.dir);
  if (!read.ok) throw new Error(read.error);
  return (read.state.swarm as Swarm).items;
}

function journals(store: SessionStore): string[] {
  return readdirSync(store.dir)
    .filter((f) => f.startsWith('journal-'))
    .sort();
}

describe('the item journal', () => {
  it('replays onto the snapshot only the changes made after it, the last one of an item winning', async () => {
    home = mkdtempSync(path.join(tmpdir(), 'murmur-journal-unit-'));
    const store = SessionStore.create(home, 's');
    let swarm: Swarm = { swarmId: 's-1', items: [{ item: 'a' }, { item: 'b' }, { item: 'c' }] };
    store.saveState(() => stateWith(swarm));
    // The first state of a new session is on disk at once.
    expect(items(store)).toEqual(swarm.items);

    store.journalItem({ swarm: 's-1', index: 0, record: { item: 'a', done: true } });
    expect(items(store)[0]).toEqual({ item: 'a', done: true });

    // A snapshot taken now holds a's change; a line after it (b) comes from the journal, and an older line for a
    // does not undo what a newer snapshot says.
    swarm = { ...swarm, items: [{ item: 'a', done: true, pad: 'newer' }, { item: 'b' }, { item: 'c' }] };
    store.saveState(() => stateWith(swarm));
    await store.flush();
    store.journalItem({ swarm: 's-1', index: 1, record: { item: 'b', done: true } });
    store.journalItem({ swarm: 's-other', index: 2, record: { item: 'x' } });
    store.journalItem({ swarm: 's-1', index: 9, record: { item: 'out of range' } });
    expect(items(store)).toEqual([{ item: 'a', done: true, pad: 'newer' }, { item: 'b', done: true }, { item: 'c' }]);
  });

  it("applies changes to items still in a version-4 queued file, for readers and for a session's summary", async () => {
    home = mkdtempSync(path.join(tmpdir(), 'murmur-journal-unit-'));
    const store = SessionStore.create(home, 's');
    const queued = ['a', 'b', 'c', 'd'].map((item) => JSON.stringify({ item, prompt: `Do ${item}`, rounds: 0 }));
    writeFileSync(path.join(store.dir, 'queued-s-1.jsonl'), `${queued.join('\n')}\n`);
    const swarm = { swarmId: 's-1', items: [{ item: 'a' }], queuedItems: { file: 'queued-s-1.jsonl', count: 4 } };
    store.saveState(() => ({ ...stateWith(swarm), version: 4 }));
    await store.flush();
    const completed = (item: string, index: number) => ({
      item,
      rounds: 0,
      result: { index, item, outcome: 'completed', rounds: 0, text: 'ok' },
    });
    store.journalItem({ swarm: 's-1', index: 2, record: completed('c', 2) });
    expect(items(store).map((r) => r.item)).toEqual(['a', 'b', 'c', 'd']);
    expect(items(store)[2]).toMatchObject({ result: { outcome: 'completed' } });
    expect(items(store)[3]).toEqual({ item: 'd', prompt: 'Do d', rounds: 0 });
    const text = readFileSync(path.join(store.dir, 'state.json'), 'utf8');
    expect(summarizeState('s', text, store.dir).items).toEqual({ total: 4, completed: 1 });
  });

  it('skips a line cut by a killed process', () => {
    home = mkdtempSync(path.join(tmpdir(), 'murmur-journal-unit-'));
    const store = SessionStore.create(home, 's');
    store.saveState(() => stateWith({ swarmId: 's-1', items: [{ item: 'a' }, { item: 'b' }] }));
    store.journalItem({ swarm: 's-1', index: 0, record: { item: 'a', done: true } });
    appendFileSync(path.join(store.dir, journals(store)[0]!), '{"swarm":"s-1","index":1,"rec');
    expect(items(store)).toEqual([{ item: 'a', done: true }, { item: 'b' }]);
  });

  it('rotates a big journal at the next snapshot and removes what that snapshot covers', async () => {
    home = mkdtempSync(path.join(tmpdir(), 'murmur-journal-unit-'));
    const store = SessionStore.create(home, 's');
    const swarm: Swarm = { swarmId: 's-1', items: Array.from({ length: 5 }, (_, i) => ({ item: `i${i}` })) };
    store.saveState(() => stateWith(swarm));
    const pad = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 5; i++) {
      const record = { item: `i${i}`, done: true, pad };
      store.journalItem({ swarm: 's-1', index: i, record });
      swarm.items[i] = record;
    }
    expect(journals(store)).toEqual(['journal-1.jsonl']);
    store.saveState(() => stateWith(swarm));
    await store.flush();
    // The snapshot started generation 2 and holds everything: generation 1 is gone.
    expect(journals(store)).toEqual([]);
    store.journalItem({ swarm: 's-1', index: 0, record: { item: 'i0', done: false } });
    expect(journals(store)).toEqual(['journal-2.jsonl']);
    expect(items(store).map((i) => i.done)).toEqual([false, true, true, true, true]);
  });

  it('a reopened session appends in a new generation after the ones it read', async () => {
    home = mkdtempSync(path.join(tmpdir(), 'murmur-journal-unit-'));
    const first = SessionStore.create(home, 's');
    first.saveState(() => stateWith({ swarmId: 's-1', items: [{ item: 'a' }, { item: 'b' }] }));
    first.journalItem({ swarm: 's-1', index: 0, record: { item: 'a', done: true } });
    // Killed here: no later snapshot. A resume reads a's change, then journals b's before its own first save.
    const reopened = SessionStore.open(home, 's');
    reopened.journalItem({ swarm: 's-1', index: 1, record: { item: 'b', done: true } });
    expect(journals(reopened)).toEqual(['journal-1.jsonl', 'journal-2.jsonl']);
    expect(items(reopened)).toEqual([
      { item: 'a', done: true },
      { item: 'b', done: true },
    ]);
    await reopened.flush();
  });
});
