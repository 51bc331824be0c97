// Ended items leave a session swarm's memory once its settled log holds them, and are read back from the log: by
// the reader (the last line of an item wins, however the line is spaced; agents' rows and other swarms' items are
// passed over; a line still being written is read once whole) and by the runner, whose results, records and
// record losses still see every item as it ended.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listQueued, QueuedItems, queuedFileName } from '../../orchestrator/queued-items.js';
import { readSavedState } from '../../orchestrator/saved-state.js';
import { SessionStore } from '../../orchestrator/session.js';
import { SettledItemReader } from '../../orchestrator/settled-reader.js';
import type { Attempt, ItemLauncher } from '../../swarm/item-launcher.js';
import { queuedItem, type SwarmItem } from '../../swarm/item-state.js';
import type { ItemResult } from '../../swarm/report.js';
import { plainSpec } from './plain-spec.js';
import { SwarmRun, type SavingSwarm, type SwarmItemRecord, type SwarmSink } from '../../swarm/runner.js';
import { ItemStore } from '../../swarm/item-store.js';

let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

function tempHome(): string {
  home = mkdtempSync(path.join(tmpdir(), 'murmur-item-store-'));
  return home;
}

const line = (swarm: string, index: number, text: string) =>
  `${JSON.stringify({ swarm, index, record: { item: `i${index}`, rounds: 0, result: { index, item: `i${index}`, outcome: 'completed', rounds: 0, text } } })}\n`;

describe('the settled item reader', () => {
  it("reads an item's last line, spaced or not, past agents' rows and other swarms' items", () => {
    const dir = tempHome();
    const spaced = (index: number, text: string) =>
      `{"swarm": "s-1", "index": ${index}, "record": {"item": "i${index}", "rounds": 0, "result": {"index": ${index}, "item": "i${index}", "outcome": "completed", "rounds": 0, "text": "${text}"}}}\n`;
    writeFileSync(
      path.join(dir, 'settled-1.jsonl'),
      `{"agent": {"id": "a-1", "role": "worker"}}\n${spaced(0, 'first')}${line('s-2', 0, 'other swarm')}${line('s-1', 1, 'one')}`,
    );
    writeFileSync(path.join(dir, 'settled-2.jsonl'), line('s-1', 0, 'again'));
    const reader = new SettledItemReader(dir, 's-1');
    expect(reader.get(0)).toMatchObject({ result: { text: 'again' } });
    expect(reader.get(1)).toMatchObject({ result: { text: 'one' } });
    expect(reader.get(2)).toBeUndefined();
  });

  it('finds lines appended since, and reads a line cut short only once it is whole', () => {
    const dir = tempHome();
    const file = path.join(dir, 'settled-1.jsonl');
    writeFileSync(file, line('s-1', 0, 'old'));
    const reader = new SettledItemReader(dir, 's-1');
    expect(reader.get(0)).toMatchObject({ result: { text: 'old' } });
    const next = line('s-1', 1, 'new');
    appendFileSync(file, line('s-1', 0, 'newer') + next.slice(0, 20));
    reader.grown();
    expect(reader.get(0)).toMatchObject({ result: { text: 'newer' } });
    expect(reader.get(1)).toBeUndefined();
    appendFileSync(file, next.slice(20));
    expect(reader.get(1)).toMatchObject({ result: { text: 'new' } });
  });
});

/** Ends each item when told to, with `done <index>`. */
class HeldLauncher implements ItemLauncher {
  private readonly open = new Map<number, (attempt: Attempt) => void>();
  run(index: number, item: SwarmItem, report: (change: { kind: 'launched'; agentId: string }) => void) {
    report({ kind: 'launched', agentId: `a-${index}` });
    return new Promise<Attempt>((resolve) => this.open.set(index, resolve));
  }
  async keep(_index: number, result: ItemResult): Promise<ItemResult> {
    return result;
  }
  end(index: number): void {
    const result: ItemResult = {
      index,
      item: `i${index}`,
      agentId: `a-${index}`,
      outcome: 'completed',
      rounds: 0,
    } as ItemResult;
    this.open.get(index)?.({ kind: 'done', result: { ...result, text: `done ${index}` } });
    this.open.delete(index);
  }
  get running(): number {
    return this.open.size;
  }
}

/** `count` new items `i0`, `i1`, … with their prompts. */
const newItems = (count: number) =>
  Array.from({ length: count }, (_, i) => queuedItem(`i${i}`, { prompt: `Do i${i}` }));

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
};

/**
 * A session swarm of `count` new items on a held launcher (`atOnce` at a time), in a new session store, with what
 * `sink` adds for that store; `saved.latest` is its last saved state.
 */
function heldSessionSwarm(
  name: string,
  count: number,
  atOnce: number,
  sink: (store: SessionStore) => Partial<SwarmSink>,
) {
  const store = SessionStore.create(tempHome(), 's');
  const items = newItems(count);
  const launcher = new HeldLauncher();
  const saved: { latest?: SavingSwarm } = {};
  const run = new SwarmRun(plainSpec(name, items, atOnce), launcher, {
    emit: () => undefined,
    persist: (state) => (saved.latest = state),
    ...sink(store),
  });
  return { store, items, launcher, saved, run };
}

describe("a session swarm's ended items", () => {
  it('leave memory once the settled log holds them and are read back whole: results, records, record losses', async () => {
    const count = 12;
    const { store, items, launcher, saved, run } = heldSessionSwarm('held', count, count, (store) => ({
      settledItems: (swarmId) => new SettledItemReader(store.dir, swarmId),
    }));
    const snapshot = async () => {
      store.saveState(() => ({ version: 3, id: 's', kind: 'swarm', agents: [], swarm: saved.latest }));
      await store.flush();
    };
    const done = run.run(new AbortController().signal);
    await until(() => launcher.running === count);
    for (let i = 0; i < 6; i++) launcher.end(i);
    await until(() => run.item(5).status === 'done');
    // Appended by the snapshot; the next item to end lets go of them.
    await snapshot();
    expect(
      run
        .state()
        .items.slice(0, 6)
        .every((r) => r !== null),
    ).toBe(true);
    launcher.end(6);
    await until(() => run.state().items[0] === null);
    expect(run.state().items.map((r) => r === null)).toEqual([...Array(6).fill(true), ...Array(6).fill(false)]);
    // Read back as it ended.
    expect(run.item(2)).toMatchObject({ status: 'done', result: { text: 'done 2', agentId: 'a-2' } });
    for (let i = 7; i < count; i++) launcher.end(i);
    const results = [...(await done)];
    expect(run.tally()).toEqual({ counts: { completed: count }, allCompleted: true });
    expect(results.map((r) => r.text)).toEqual(items.map((_, i) => `done ${i}`));
    expect(results.map((r) => r.index)).toEqual(items.map((_, i) => i));

    // A transcript found lost after the run: an item that left memory fails too, and is listed again.
    run.markRecordLosses((agentId) => (agentId === 'a-1' || agentId === 'a-8' ? 'its transcript is lost' : undefined));
    const after = [...run.results()];
    expect(after.filter((r) => r.outcome === 'failed').map((r) => r.index)).toEqual([1, 8]);
    // Counted as they moved, without reading them back.
    expect(run.tally()).toEqual({ counts: { completed: count - 2, failed: 2 }, allCompleted: false });
    expect(run.state().items[1]).toMatchObject({ result: { outcome: 'failed', reason: 'its transcript is lost' } });
    await snapshot();
    const log = new SettledItemReader(store.dir, 's-1');
    expect(log.get(1)).toMatchObject({ result: { outcome: 'failed' } });
    expect(log.get(0)).toMatchObject({ result: { outcome: 'completed', text: 'done 0' } });
  });
});

describe('items waiting as they were queued', () => {
  it('are held as their records alone, and read as the queued items they were until they move', () => {
    const fresh = queuedItem('i0', { prompt: 'Do i0' });
    const resumed = queuedItem('i1', { agentId: 'a-7', resumePrompt: 'Go on' });
    const ended: SwarmItem = {
      status: 'done',
      item: 'i2',
      prompt: 'Do i2',
      rounds: 0,
      result: { index: 2, item: 'i2', outcome: 'completed', rounds: 0, text: 'ok' },
    };
    const store = new ItemStore([fresh, resumed, ended], undefined, { verify: false, maxRounds: 1 });
    // Only the items that are more than their record stay as objects.
    const held = (store as unknown as { items: (SwarmItem | undefined)[] }).items;
    expect(held.map((s) => s !== undefined)).toEqual([false, true, true]);
    expect(store.records).toEqual([
      { item: 'i0', prompt: 'Do i0', rounds: 0 },
      { item: 'i1', agentId: 'a-7', resumePrompt: 'Go on', rounds: 0 },
      { item: 'i2', prompt: 'Do i2', rounds: 0, result: ended.result },
    ]);
    expect([0, 1, 2].map((i) => store.label(i))).toEqual(['i0', 'i1', 'i2']);
    expect(store.get(0)).toEqual(fresh);
    expect(store.get(1)).toBe(resumed);
    expect([0, 1, 2].map((i) => store.isDone(i))).toEqual([false, false, true]);
    expect(store.tally()).toEqual({ counts: { completed: 1, aborted: 2 }, allCompleted: false });

    // Once it moves it is held as it is now.
    const launched: SwarmItem = { ...fresh, status: 'launched', agentId: 'a-1' };
    store.set(0, store.get(0), launched);
    expect(store.get(0)).toBe(launched);
    expect(store.records[0]).toEqual({ item: 'i0', prompt: 'Do i0', rounds: 0, agentId: 'a-1' });
    expect([...store.results()].map((r) => r.outcome)).toEqual(['aborted', 'aborted', 'completed']);
  });
});

describe("a session swarm's items kept as queued (state version 4)", () => {
  it('are read from the file as they launch; a snapshot lists only the items up to the last one that moved', async () => {
    const count = 10;
    const { store, items, launcher, saved, run } = heldSessionSwarm('queued', count, 3, (store) => ({
      queueItems: (swarmId, records, n) => QueuedItems.write(store.dir, queuedFileName(swarmId)!, records, n),
    }));
    // Nothing listed yet: every item waits in the file, one line each.
    expect(run.state()).toMatchObject({ items: [], queuedItems: { file: 'queued-s-1.jsonl', count } });
    const lines = readFileSync(path.join(store.dir, 'queued-s-1.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(
      items.map((s) => ({ item: s.item, prompt: s.prompt, rounds: 0 })),
    );
    expect(run.item(7)).toEqual(items[7]);

    const done = run.run(new AbortController().signal);
    await until(() => launcher.running === 3);
    launcher.end(1);
    await until(() => run.item(1).status === 'done');
    // The four launched (the fourth in the slot item 1 left) are listed as they stand; the six others are the file's.
    await until(() => launcher.running === 3);
    expect(saved.latest!.items.map((r) => r?.agentId)).toEqual(['a-0', 'a-1', 'a-2', 'a-3']);
    expect(saved.latest!.queuedItems).toEqual({ file: 'queued-s-1.jsonl', count });

    // What every reader sees: the listed items, then the file's.
    store.saveState(() => ({
      version: 4,
      id: 's',
      kind: 'swarm',
      agents: [],
      tasks: [],
      status: 'running',
      swarm: saved.latest,
    }));
    await store.flush();
    const read = readSavedState(store.dir);
    expect(read.ok).toBe(true);
    const swarm = (read as { state: { swarm: { items: SwarmItemRecord[]; queuedItems?: unknown } } }).state.swarm;
    expect(swarm.queuedItems).toBeUndefined();
    expect(swarm.items.map((r) => r.item)).toEqual(items.map((s) => s.item));
    expect(swarm.items[1]).toMatchObject({ result: { outcome: 'completed' } });
    expect(swarm.items[5]).toEqual({ item: 'i5', prompt: 'Do i5', rounds: 0 });

    for (let i = 0; i < count; i++) {
      await until(() => launcher.running > 0 || run.item(i).status === 'done');
      launcher.end(i);
    }
    expect([...(await done)].map((r) => r.text)).toEqual(items.map((_, i) => `done ${i}`));
    expect(run.state().items).toHaveLength(count);
  });

  it('a file that is missing or short is an error that names it', () => {
    const dir = tempHome();
    expect(QueuedItems.open(dir, { file: 'queued-s-1.jsonl', count: 2 })).toMatch(
      /cannot read .*queued-s-1\.jsonl: ENOENT/,
    );
    writeFileSync(path.join(dir, 'queued-s-1.jsonl'), '{"item":"a","rounds":0}\n{"item":"b"');
    expect(QueuedItems.open(dir, { file: 'queued-s-1.jsonl', count: 2 })).toMatch(/holds 1 whole lines.*needs 2/);
    expect(QueuedItems.open(dir, { file: '../state.json', count: 1 })).toMatch(/names no queued-<swarm>\.jsonl file/);
    const state = { swarm: { swarmId: 's-1', items: [], queuedItems: { file: 'queued-s-1.jsonl', count: 2 } } };
    expect(listQueued(dir, state)).toMatchObject({ ok: false, error: expect.stringMatching(/holds 1 whole lines/) });
  });
});
