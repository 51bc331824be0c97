// The settled log on real files: a snapshot leaves out settled agents and ended items once they are appended, and
// appends each only once; every reader gets the whole state back; an item that changes after it settled is listed
// again; a process killed between the append and the snapshot loses nothing; a reopened session does not append
// again what it read; a lost settled file is an error naming the item, and a failed append keeps the snapshot whole.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentDirectory } from '../../orchestrator/agent-directory.js';
import type { AgentRecord } from '../../orchestrator/agent-tree-types.js';
import { readSavedState } from '../../orchestrator/saved-state.js';
import { SessionStore } from '../../orchestrator/session.js';
import type { SavedAgent } from '../../protocol/run-state.js';

let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

interface Item {
  item: string;
  agentId?: string;
  result?: { outcome: string; attempt?: number };
}

function row(id: string, status = 'completed'): SavedAgent {
  return { id, role: 'worker', status, usage: {}, turns: 1, toolCalls: 0, profile: 'worker', depth: 1 } as SavedAgent;
}

/** Agents settled the way a session swarm settles them (AgentDirectory.settle), so a snapshot may leave them out. */
function settled(...rows: SavedAgent[]): SavedAgent[] {
  const directory = new AgentDirectory();
  for (const r of rows) {
    directory.register({ id: r.id } as AgentRecord);
    directory.settle(r.id, r);
  }
  return rows;
}

function stateWith(agents: SavedAgent[], items: Item[]) {
  return {
    version: 3,
    id: 's',
    kind: 'swarm',
    createdAt: 1,
    updatedAt: 2,
    cwd: '/',
    model: 'm',
    status: 'running',
    agents,
    tasks: [],
    usage: {},
    swarm: { swarmId: 's-1', items },
  };
}

function read(store: SessionStore): { agents: SavedAgent[]; items: Item[] } {
  const got = readSavedState(store.dir);
  if (!got.ok) throw new Error(got.error);
  return { agents: got.state.agents, items: (got.state.swarm as { items: Item[] }).items };
}

function onDisk(store: SessionStore): {
  state: { agents: SavedAgent[]; swarm: { items: unknown[] } };
  settled: string;
} {
  const state = JSON.parse(readFileSync(path.join(store.dir, 'state.json'), 'utf8')) as ReturnType<
    typeof onDisk
  >['state'];
  const files = readdirSync(store.dir).filter(
    (f) => f.startsWith('settled-') && statSync(path.join(store.dir, f)).isFile(),
  );
  return { state, settled: files.map((f) => readFileSync(path.join(store.dir, f), 'utf8')).join('') };
}

const done = (item: string, agentId: string, attempt?: number): Item => ({
  item,
  agentId,
  result: { outcome: 'completed', ...(attempt ? { attempt } : {}) },
});

describe('the settled log', () => {
  it('takes settled agents and ended items out of every snapshot, appending each once; readers get them back', async () => {
    home = mkdtempSync(path.join(tmpdir(), 'murmur-settled-'));
    const store = SessionStore.create(home, 's');
    const [a1, a2] = settled(row('a-1'), row('a-2'));
    const live = row('a-3', 'running');
    const items: Item[] = [done('a', 'a-1'), done('b', 'a-2'), { item: 'c', agentId: 'a-3' }, { item: 'd' }];
    store.saveState(() => stateWith([a1!, a2!, live], items));
    await store.flush();
    const first = onDisk(store);
    expect(first.state.agents.map((a) => a.id)).toEqual(['a-3']);
    expect(first.state.swarm.items).toEqual([null, null, { item: 'c', agentId: 'a-3' }, { item: 'd' }]);
    expect(first.settled.trim().split('\n')).toHaveLength(4);
    expect(read(store)).toEqual({ agents: [a1, a2, live], items });

    // Later snapshots append only what settled since: c's agent and c.
    const [a3] = settled(row('a-3'));
    items[2] = done('c', 'a-3');
    for (let i = 0; i < 3; i++) store.saveState(() => stateWith([a1!, a2!, a3!], items));
    await store.flush();
    const second = onDisk(store);
    expect(second.state.agents).toEqual([]);
    expect(second.state.swarm.items).toEqual([null, null, null, { item: 'd' }]);
    expect(second.settled.trim().split('\n')).toHaveLength(6);
    expect(read(store)).toEqual({ agents: [a1, a2, a3], items });
  });

  it('lists again an item that changed after it settled (a retry), and settles its newer record', async () => {
    home = mkdtempSync(path.join(tmpdir(), 'murmur-settled-'));
    const store = SessionStore.create(home, 's');
    const items: Item[] = [done('a', 'a-1'), done('b', 'a-2')];
    store.saveState(() => stateWith([], items));
    await store.flush();
    items[1] = { item: 'b', agentId: 'a-3' };
    store.saveState(() => stateWith([], items));
    await store.flush();
    expect(onDisk(store).state.swarm.items).toEqual([null, { item: 'b', agentId: 'a-3' }]);
    expect(read(store).items[1]).toEqual({ item: 'b', agentId: 'a-3' });
    items[1] = done('b', 'a-3', 2);
    store.saveState(() => stateWith([], items));
    await store.flush();
    expect(onDisk(store).state.swarm.items).toEqual([null, null]);
    expect(read(store).items).toEqual(items);
  });

  it('loses nothing when killed between the append and the snapshot: the journal has what came after', async () => {
    home = mkdtempSync(path.join(tmpdir(), 'murmur-settled-'));
    const store = SessionStore.create(home, 's');
    const items: Item[] = [{ item: 'a', agentId: 'a-1' }];
    store.saveState(() => stateWith([], items));
    await store.flush();
    // The item ends: journaled, then appended by a snapshot whose write never happens (the process dies).
    items[0] = done('a', 'a-1');
    store.journalItem({ swarm: 's-1', index: 0, record: items[0] });
    const killed = SessionStore.open(home, 's');
    const appendOnly = (killed as unknown as { compactor: { compact(s: object): object } }).compactor;
    appendOnly.compact(stateWith([], items));
    expect(onDisk(store).state.swarm.items).toEqual([{ item: 'a', agentId: 'a-1' }]);
    expect(read(store).items).toEqual(items);
  });

  it('an agent a resume brought back is listed as it is now; a row settled after the snapshot is newer', async () => {
    home = mkdtempSync(path.join(tmpdir(), 'murmur-settled-'));
    const first = SessionStore.create(home, 's');
    const aborted: Item = { item: 'a', agentId: 'a-1', result: { outcome: 'aborted' } };
    first.saveState(() => stateWith(settled(row('a-1', 'aborted')), [aborted]));
    await first.flush();
    expect(read(first).agents.map((a) => a.status)).toEqual(['aborted']);

    // A resume runs the item again with the same agent: its live row is newer than the one the log holds.
    const second = SessionStore.open(home, 's');
    const running = { ...row('a-1', 'running'), turns: 5 };
    second.saveState(() => stateWith([running], [{ item: 'a', agentId: 'a-1' }]));
    await second.flush();
    expect(read(second).agents).toEqual([running]);
    expect(read(second).items).toEqual([{ item: 'a', agentId: 'a-1' }]);

    // It settles; the process dies after the append, before the snapshot: the line after the snapshot wins.
    const done = settled({ ...row('a-1'), turns: 6 })[0]!;
    const killed = (second as unknown as { compactor: { compact(s: object): object } }).compactor;
    killed.compact(stateWith([done], [{ item: 'a', agentId: 'a-1', result: { outcome: 'completed' } }]));
    expect(read(second).agents).toEqual([done]);
    expect(read(second).items[0]?.result).toEqual({ outcome: 'completed' });
  });

  it('a reopened session does not append again what it read', async () => {
    home = mkdtempSync(path.join(tmpdir(), 'murmur-settled-'));
    const store = SessionStore.create(home, 's');
    store.saveState(() => stateWith(settled(row('a-1')), [done('a', 'a-1'), { item: 'b' }]));
    await store.flush();
    const size = () =>
      readdirSync(store.dir)
        .filter((f) => f.startsWith('settled-'))
        .reduce((sum, f) => sum + statSync(path.join(store.dir, f)).size, 0);
    const before = size();
    const reopened = SessionStore.open(home, 's');
    const loaded = read(reopened);
    // What a resume rebuilds from the rows it read: the same objects, so the same identity.
    reopened.saveState(() => stateWith(loaded.agents, [loaded.items[0]!, done('b', 'a-2')]));
    await reopened.flush();
    expect(size()).toBeGreaterThan(before);
    const lines = onDisk(reopened).settled.trim().split('\n');
    expect(lines.filter((l) => l.includes('"index":0'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('"a-1"') && l.startsWith('{"agent"'))).toHaveLength(1);
    expect(read(reopened).items).toEqual([done('a', 'a-1'), done('b', 'a-2')]);
  });

  it('names the item when its settled file is gone, and keeps items listed when the log cannot be written', async () => {
    home = mkdtempSync(path.join(tmpdir(), 'murmur-settled-'));
    const store = SessionStore.create(home, 's');
    store.saveState(() => stateWith([], [done('a', 'a-1')]));
    await store.flush();
    rmSync(path.join(store.dir, 'settled-1.jsonl'));
    const lost = readSavedState(store.dir);
    expect(lost.ok).toBe(false);
    expect(!lost.ok && lost.error).toMatch(/item 0 of swarm s-1 is settled but no settled-\*\.jsonl holds it/);

    const other = SessionStore.create(home, 't');
    mkdirSync(path.join(other.dir, 'settled-1.jsonl'));
    other.saveState(() => stateWith(settled(row('a-1')), [done('a', 'a-1')]));
    await other.flush();
    expect(onDisk(other).state.swarm.items).toEqual([done('a', 'a-1')]);
    expect(onDisk(other).state.agents.map((a) => a.id)).toEqual(['a-1']);
  });
});
