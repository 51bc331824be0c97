// The store on real files: an edit merges into the task as it is under the lock (never writing back another
// editor's old fields), a removed task's history goes with it, and a history file that does not parse is
// moved aside rather than overwritten.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CronStore } from '../../scheduler/store.js';

let ws: string;
let home: string;
const T0 = Date.parse('2026-06-01T08:00:00Z');

beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'murmur-cron-store-')));
  home = mkdtempSync(join(tmpdir(), 'murmur-cron-store-home-'));
});

afterEach(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

function store(now: () => number = () => T0): CronStore {
  return CronStore.forWorkspace(ws, { env: { HOME: home }, now });
}

function created(): string {
  const task = store().create(
    { cron: '0 * * * *', prompt: 'the prompt', title: 'the title', timezone: 'UTC' },
    { createdBy: 'person' },
  );
  if (!task.ok) throw new Error('create');
  return task.value.id;
}

describe('CronStore', () => {
  it("merges an edit into the task as read under the lock, keeping another editor's change", () => {
    const id = created();
    let first = true;
    // Another editor saves a new prompt while this one is between reading the task and writing it.
    const racing = store(() => {
      if (first) {
        first = false;
        store().update(id, { prompt: 'the new prompt' });
      }
      return T0;
    });
    const updated = racing.update(id, { title: 'the new title' });
    expect(updated).toMatchObject({ ok: true });
    expect(store().get(id)).toMatchObject({ title: 'the new title', prompt: 'the new prompt' });
  });

  it('removes the history with the task, and a run ending afterwards does not make it again', () => {
    const id = created();
    const s = store();
    s.mutateHistory(id, (runs) =>
      runs.push({
        id: 'r1',
        taskId: id,
        trigger: 'scheduled',
        planned: T0,
        started: T0,
        lateMs: 0,
        state: 'running',
        coalescedCount: 1,
        stale: false,
      }),
    );
    expect(s.remove(id)).toBe(true);
    expect(existsSync(s.historyFile(id))).toBe(false);
    expect(s.mutateExistingHistory(id, (runs) => runs.push())).toBeUndefined();
    expect(existsSync(s.historyFile(id))).toBe(false);
  });

  it('moves a history file that does not parse aside instead of overwriting it', () => {
    const id = created();
    const s = store();
    mkdirSync(join(s.dir, 'history'), { recursive: true });
    writeFileSync(s.historyFile(id), '[{"id":"r1","state":"succ');
    s.mutateHistory(id, (runs) =>
      runs.push({
        id: 'r2',
        taskId: id,
        trigger: 'run-now',
        planned: T0,
        started: T0,
        lateMs: 0,
        state: 'running',
        coalescedCount: 1,
        stale: false,
      }),
    );
    const aside = readdirSync(join(s.dir, 'history')).filter((f) => f.startsWith(`${id}.json.corrupt-`));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(s.dir, 'history', aside[0]!), 'utf8')).toBe('[{"id":"r1","state":"succ');
    expect(s.history(id).map((r) => r.id)).toEqual(['r2']);
  });
});
