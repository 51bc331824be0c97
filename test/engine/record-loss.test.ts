// No silent loss: a transcript or event line that cannot be written, even after waiting out a shortage of file
// handles, marks what it belongs to. Once the run's lines are written, the agent whose transcript is incomplete is
// `failed` with a reason naming the file and the error (so is its swarm item), and a run or swarm whose records are
// incomplete ends `failed` saying which file, never "completed"; a `log` event tells the loss as it happens. The
// disk is the append pool's port (a failing one is handed in), never a mock of node:fs.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeAppendFs, type AppendFs } from '../../orchestrator/append-fs.js';
import { AppendPool } from '../../orchestrator/append-pool.js';
import { SessionStore } from '../../orchestrator/session.js';
import { readSavedState } from '../../orchestrator/saved-state.js';
import { EventBus } from '../../orchestrator/events.js';
import { ScriptedModel } from '../../orchestrator/models/scripted.js';
import { assembleEngine } from '../../host/assemble.js';
import { runOnEngine } from '../../host/lifecycle.js';
import { swarmReport } from '../../host/reports.js';
import { readJsonLines, scriptedEngine, type Script, workspacePerTest } from './helpers.js';

const workspace = workspacePerTest('murmur-loss-');
const NO_WAIT = { attempts: 3, baseDelayMs: 1, maxDelayMs: 1, wait: () => Promise.resolve() };

/** The real disk, except that opening a file whose path ends with `suffix` always fails with `code`. */
function poolFailing(suffix: string, code: string): AppendPool {
  const fs: AppendFs = {
    ...nodeAppendFs,
    open: (file) =>
      file.endsWith(suffix)
        ? Promise.reject(Object.assign(new Error(`${code}: simulated, open '${file}'`), { code }))
        : nodeAppendFs.open(file),
  };
  return new AppendPool({ fs, retry: NO_WAIT });
}

const DELEGATING: Script = {
  agents: [
    {
      match: { role: 'main' },
      turns: [
        { toolCalls: [{ name: 'agent', arguments: { prompt: 'Look around', description: 'look' } }] },
        { text: 'main done' },
      ],
    },
    { match: { role: 'worker' }, turns: [{ text: 'looked' }] },
  ],
};

describe('a record that cannot be written', () => {
  it('fails the agent whose transcript it is, naming the file and the error, and the run with it', async () => {
    const session = SessionStore.create(path.join(workspace.dir, '.murmur'), 'loss');
    const appendPool = poolFailing(path.join('a-1', 'transcript.jsonl'), 'EMFILE');
    const { engine, recorder } = scriptedEngine(workspace.dir, DELEGATING, { session, appendPool });
    const outcome = await engine.runTask('start');
    await engine.close();

    const file = session.transcriptPath('a-1');
    const a1 = outcome.agents.find((a) => a.id === 'a-1')!;
    expect(a1.status).toBe('failed');
    expect(a1.reason).toBe(
      `its transcript ${file} could not be written to the end (EMFILE: simulated, open '${file}')`,
    );
    // main answered, yet the run's records are incomplete: not completed, and the reason says where.
    expect(outcome.agents.find((a) => a.id === 'main')!.status).toBe('completed');
    expect(outcome.status).toBe('failed');
    expect(outcome.reason).toBe(
      `data is missing from the session: ${file} could not be written to the end (EMFILE: simulated, open '${file}')`,
    );
    expect(
      recorder
        .of('log')
        .filter((e) => e.level === 'error')
        .map((e) => e.message),
    ).toEqual([expect.stringContaining(`${file} could not be written to the end`)]);
    const saved = session.loadState<{ status: string; agents: { id: string; status: string }[] }>();
    expect(saved.status).toBe('failed');
    expect(saved.agents.find((a) => a.id === 'a-1')!.status).toBe('failed');
    // What could be written was: main's transcript is whole.
    expect(readJsonLines(session.transcriptPath('main')).length).toBeGreaterThanOrEqual(4);
  });

  it('writes everything and completes when the disk only ran short for a while', async () => {
    let refusals = 0;
    const fs: AppendFs = {
      ...nodeAppendFs,
      open: (file) =>
        refusals++ < 4
          ? Promise.reject(Object.assign(new Error(`EMFILE: simulated, open '${file}'`), { code: 'EMFILE' }))
          : nodeAppendFs.open(file),
    };
    const session = SessionStore.create(path.join(workspace.dir, '.murmur'), 'short');
    const appendPool = new AppendPool({ fs, retry: { ...NO_WAIT, attempts: 10 } });
    const { engine } = scriptedEngine(workspace.dir, DELEGATING, { session, appendPool });
    const outcome = await engine.runTask('start');
    await engine.close();
    expect(outcome.status).toBe('completed');
    expect(outcome.reason).toBeUndefined();
    expect(readJsonLines(session.transcriptPath('a-1')).length).toBe(2);
  });

  async function swarmWith(appendPool: AppendPool) {
    const bus = new EventBus();
    const items: { item: string; state: string }[] = [];
    bus.on('swarm.item', (event) => items.push({ item: event.item, state: event.state }));
    const { engine, close } = await assembleEngine({
      cwd: workspace.dir,
      config: { retry: { maxAttempts: 1 } },
      env: {},
      bus,
      provider: new ScriptedModel({ agents: [{ match: { prompt: 'Do (\\S+)' }, turns: [{ text: 'did $1' }] }] }),
      frontEnd: 'cli',
      sessionKind: 'swarm',
      headlessReason: 'a test',
      appendPool,
    });
    try {
      const result = await runOnEngine(
        engine,
        {
          kind: 'swarm',
          launch: { promptTemplate: 'Do {{item}}', items: ['a', 'b', 'c'], maxItems: 10, minItems: 1 },
        },
        {},
      );
      if (!result.ok || result.finished.kind !== 'swarm') throw new Error('the swarm did not run');
      return { finished: result.finished, session: engine.session!, items };
    } finally {
      await close();
    }
  }

  it("fails the swarm's items whose packed transcripts are lost, and the swarm", async () => {
    // Items' transcripts share the session's pack: every item whose lines it could not take failed.
    const { finished, session, items } = await swarmWith(poolFailing('transcripts-1.jsonl', 'ENOSPC'));
    expect([...finished.results].map((r) => r.outcome)).toEqual(['failed', 'failed', 'failed']);
    expect([...finished.results][1]!.reason).toContain(`its transcript ${session.transcriptPack} could not be written`);
    expect([...finished.results][1]!.reason).toContain('ENOSPC');
    expect(finished.status).toBe('failed');
    expect(finished.outcome.reason).toContain(session.transcriptPack);
    // The item's row says it too, and its saved state: a resume runs it again.
    expect(items.filter((e) => e.item === 'b').map((e) => e.state)).toEqual([
      'queued',
      'launched',
      'completed',
      'failed',
    ]);
    // Through the one reader: ended items are in the settled log, not in state.json.
    const read = readSavedState(session.dir);
    if (!read.ok) throw new Error(read.error);
    const saved = read.state as unknown as { swarm: { items: { result?: { outcome: string } }[] } };
    expect(saved.swarm.items.map((i) => i.result?.outcome)).toEqual(['failed', 'failed', 'failed']);
  });

  it('fails a swarm whose items all completed when its events.jsonl could not be written, and says so in the report', async () => {
    const { finished, session } = await swarmWith(poolFailing('events.jsonl', 'ENOSPC'));
    expect([...finished.results].map((r) => r.outcome)).toEqual(['completed', 'completed', 'completed']);
    expect(finished.status).toBe('failed');
    expect(finished.outcome.status).toBe('failed');
    const events = path.join(session.dir, 'events.jsonl');
    expect(finished.outcome.reason).toBe(
      `data is missing from the session: ${events} could not be written to the end (ENOSPC: simulated, open '${events}')`,
    );
    const report = swarmReport(finished.results, finished.status, session.id, finished.outcome.reason);
    expect(report).toMatchObject({ status: 'failed', reason: finished.outcome.reason });
    expect(session.loadState<{ status: string }>().status).toBe('failed');
  });
});
