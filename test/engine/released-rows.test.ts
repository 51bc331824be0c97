// A session swarm's settled agents leave memory once the settled log holds their rows: their ids stay taken and
// their usage known, the full list reads them back in spawn order, a snapshot's list leaves them out, a record loss
// found later brings one back changed, and a verifier's row stays (its item's usage is found by it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentDirectory } from '../../orchestrator/agent-directory.js';
import type { AgentRecord } from '../../orchestrator/agent-tree-types.js';
import { ReleasedRows } from '../../orchestrator/released-rows.js';
import { SettledLog, markInSettledLog } from '../../orchestrator/settled-log.js';
import type { SavedAgent } from '../../protocol/run-state.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function row(id: string, role = 'worker', input = 1): SavedAgent {
  const usage = { input, output: 2, cacheRead: 0, cacheWrite: 0 };
  return { id, role, status: 'completed', usage, turns: 1, toolCalls: 0, profile: role, depth: 1 } as SavedAgent;
}

const ids = (entries: Iterable<{ record: AgentRecord } | { row: SavedAgent }>) =>
  [...entries].map((e) => ('row' in e ? e.row.id : e.record.id));

describe('settled rows out of memory', () => {
  it('keep their ids and usage, come back for the full list and for a record loss, and leave verifiers be', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'murmur-released-'));
    const directory = new AgentDirectory(dir);
    const rows = [row('a-1', 'worker', 10), row('a-2', 'worker', 20), row('a-3', 'verifier', 30), row('a-4')];
    for (const r of rows) directory.register({ id: r.id } as AgentRecord);
    for (const r of rows.slice(0, 3)) directory.settle(r.id, r);
    // The log takes the first three (as a snapshot appends them); the next agent to settle lets go of them.
    const log = new SettledLog(dir);
    expect(log.append(rows.slice(0, 3).map((agent) => ({ agent })))).toBe(true);
    markInSettledLog(rows.slice(0, 3));
    expect(directory.settledRow('a-1')).toBe(rows[0]);
    directory.settle('a-4', rows[3]!);

    expect(directory.settledRow('a-1')).toBeUndefined();
    expect(directory.settledRow('a-3')).toBe(rows[2]);
    expect(ids(directory.entries())).toEqual(['a-3', 'a-4']);
    expect(['a-1', 'a-2', 'a-3', 'a-4', 'a-5'].map((id) => directory.has(id))).toEqual([true, true, true, true, false]);
    expect(directory.usageOf('a-2')).toEqual(rows[1]!.usage);
    expect([...directory.ids()].sort()).toEqual(['a-1', 'a-2', 'a-3', 'a-4']);
    expect(directory.everyEntry().map((e) => ('row' in e ? e.row : undefined))).toEqual(rows);

    directory.markRowLost('a-2', 'its transcript is lost');
    expect(directory.settledRow('a-2')).toMatchObject({ status: 'failed', reason: 'its transcript is lost' });
    expect(ids(directory.entries())).toEqual(['a-3', 'a-4', 'a-2']);
    expect(directory.everyEntry().map((e) => ('row' in e ? e.row.status : ''))).toEqual([
      'completed',
      'failed',
      'completed',
      'completed',
    ]);
    log.close();
  });

  it('without a session, keeps every row', () => {
    const directory = new AgentDirectory();
    const r = row('a-1');
    directory.register({ id: 'a-1' } as AgentRecord);
    directory.settle('a-1', r);
    markInSettledLog([r]);
    directory.register({ id: 'a-2' } as AgentRecord);
    directory.settle('a-2', row('a-2'));
    expect(directory.settledRow('a-1')).toBe(r);
  });
});

describe('the released rows store', () => {
  it('keeps usage with and without a cost, names that are not a-N, and forgets one brought back', () => {
    const released = new ReleasedRows();
    released.add('a-7', { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, cost: 0.5 });
    released.add('a-2000', { input: 5, output: 6, cacheRead: 0, cacheWrite: 0 });
    released.add('reviewer', { input: 9, output: 9, cacheRead: 0, cacheWrite: 0 });
    released.add('a-07', { input: 8, output: 8, cacheRead: 0, cacheWrite: 0 });
    expect(released.size).toBe(4);
    expect(released.usageOf('a-7')).toEqual({ input: 1, output: 2, cacheRead: 3, cacheWrite: 4, cost: 0.5 });
    expect(released.usageOf('a-2000')).toEqual({ input: 5, output: 6, cacheRead: 0, cacheWrite: 0 });
    expect(released.usageOf('a-07')).toMatchObject({ input: 8 });
    expect(released.has('a-8')).toBe(false);
    expect([...released.ids()].sort()).toEqual(['a-07', 'a-2000', 'a-7', 'reviewer']);
    released.delete('a-7');
    released.delete('reviewer');
    expect([released.has('a-7'), released.has('reviewer'), released.size]).toEqual([false, false, 2]);
  });

  it('keeps usage in pages made when first needed: agents far apart, and agents that used nothing', () => {
    const released = new ReleasedRows();
    const pages = () => (released as unknown as { pages: unknown[] }).pages.filter(Boolean).length;
    released.add('a-3', { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
    expect(pages()).toBe(0);
    expect(released.usageOf('a-3')).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
    released.add('a-200000', { input: 7, output: 1, cacheRead: 0, cacheWrite: 2, cost: 0.0123 });
    released.add('a-200001', { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
    expect(pages()).toBe(1);
    expect(released.usageOf('a-200000')).toEqual({ input: 7, output: 1, cacheRead: 0, cacheWrite: 2, cost: 0.0123 });
    expect(released.usageOf('a-200001')).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
    expect(released.size).toBe(3);
  });
});
