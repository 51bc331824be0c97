// Restoring a saved swarm in one process (what `murmur resume` does for a swarm session): finished items keep
// their results and their agents never run again, even when the process died between an agent's final answer
// and the next save of the state.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionState } from '../../orchestrator/engine.js';
import type { Script } from '../../orchestrator/models/scripted.js';
import { readSessionTranscripts, SessionStore, stateHome } from '../../orchestrator/session.js';
import { prepareSwarm, restoreSwarm } from '../../host/swarm.js';
import { restoreOn } from '../../host/resume.js';
import type { SavedSwarm } from '../../swarm/runner.js';
import { renderReport } from '../../swarm/report.js';
import { reworkPrompt } from '../../swarm/verify.js';
import { userText, type UserMessage } from '../../orchestrator/types.js';
import { eventsOf, makeEngine, removeDir, tempDir, writeTree, type TestEngine } from './helpers.js';

const SCRIPT: Script = {
  agents: [
    {
      match: { prompt: 'Do broken' },
      turns: [{ failFirst: { status: 400, times: 1, message: 'broke once' }, text: 'fixed on resume' }],
    },
    { match: { prompt: 'Do (\\S+)' }, turns: [{ text: 'did $1' }] },
  ],
};
/** The model after the restart: whatever broke is fixed now. */
const AFTER_RESTART: Script = {
  agents: [{ match: { prompt: 'Do broken' }, turns: [{ text: 'fixed on resume' }] }, ...SCRIPT.agents.slice(1)],
};

let dir: string;
const open: TestEngine[] = [];
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
  await removeDir(dir);
});

/** Runs `murmur swarm`'s core in process and returns the saved session state. */
async function firstRun(items: string[], maxConcurrency?: number): Promise<SessionState> {
  const t = makeEngine(dir, SCRIPT);
  open.push(t);
  const request = {
    promptTemplate: 'Do {{item}}',
    items,
    maxItems: Number.POSITIVE_INFINITY,
    ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
  };
  const prepared = await prepareSwarm(t.engine, undefined, request, {});
  if (!prepared.ok) throw new Error(prepared.error);
  await prepared.run.run(t.engine.signal);
  const state = t.engine.stateSnapshot();
  await t.close();
  open.pop();
  return state;
}

async function resume(state: SessionState, env: NodeJS.ProcessEnv = {}): Promise<{ t: TestEngine; report: string }> {
  const session = SessionStore.open(stateHome(dir, {}), state.id);
  const t = makeEngine(dir, AFTER_RESTART, { extra: { session, sessionKind: 'swarm' } });
  open.push(t);
  t.engine.restore(state);
  const restored = await restoreSwarm(t.engine, state.swarm as SavedSwarm, undefined, env);
  if (!restored.ok) throw new Error(restored.error);
  return { t, report: renderReport(await restored.run.run(t.engine.signal)) };
}

describe('restoring a saved swarm', () => {
  it('keeps completed items and re-runs failed ones with their own agents', async () => {
    const state = await firstRun(['a', 'broken', 'c']);
    const { t, report } = await resume(state);
    expect(report).toBe(
      [
        '<agent_swarm_result>',
        '<summary>completed: 3</summary>',
        '<subagent agent_id="a-1" item="a" outcome="completed" rounds="0">did a</subagent>',
        '<subagent agent_id="a-2" item="broken" outcome="completed" rounds="0">fixed on resume</subagent>',
        '<subagent agent_id="a-3" item="c" outcome="completed" rounds="0">did c</subagent>',
        '</agent_swarm_result>',
      ].join('\n'),
    );
    expect(eventsOf(t.events, 'agent.start').map((e) => e.agentId)).toEqual(['a-2']);
    const items = eventsOf(t.events, 'swarm.item');
    expect(items.filter((e) => e.reason === 'finished before the resume').map((e) => e.item)).toEqual(['a', 'c']);
  });

  it('an agent killed after its final answer but before the state was saved does not run again', async () => {
    const state = await firstRun(['a', 'b']);
    // The state as a SIGKILL inside the save interval leaves it: b's answer is in its transcript, but the
    // saved state still has b running and no result.
    const saved = state.swarm as SavedSwarm;
    delete saved.items[1]!.result;
    state.agents.find((a) => a.id === saved.items[1]!.agentId)!.status = 'running';
    const { t, report } = await resume(state);
    expect(report).toContain('<subagent agent_id="a-2" item="b" outcome="completed" rounds="0">did b</subagent>');
    expect(eventsOf(t.events, 'agent.start')).toEqual([]);
    // Settled, it has left memory: its row says how it ended.
    expect(t.engine.agentTree.summaries().find((a) => a.id === 'a-2')?.status).toBe('completed');
  });

  it('items that never started start on resume with new agents', async () => {
    const state = await firstRun(['a', 'b']);
    const saved = state.swarm as SavedSwarm;
    saved.items.push({
      item: 'late',
      prompt: 'Do late',
      rounds: 0,
      result: { index: 2, item: 'late', outcome: 'aborted', rounds: 0, text: '', notStarted: true },
    });
    const { t, report } = await resume(state);
    expect(report).toContain('<subagent agent_id="a-3" item="late" outcome="completed" rounds="0">did late</subagent>');
    expect(eventsOf(t.events, 'agent.start').map((e) => [e.agentId, e.resumed])).toEqual([['a-3', false]]);
  });

  it('keeps the concurrency cap the swarm ran with, unless the environment sets one now', async () => {
    const state = await firstRun(['a', 'broken', 'c'], 1);
    expect((state.swarm as SavedSwarm).maxConcurrency).toBe(1);
    const kept = await resume(structuredClone(state));
    expect(eventsOf(kept.t.events, 'swarm.start')[0]).toMatchObject({ maxConcurrency: 1 });
    const overridden = await resume(structuredClone(state), { MURMUR_SWARM_MAX_CONCURRENCY: '4' });
    expect(eventsOf(overridden.t.events, 'swarm.start')[0]).toMatchObject({ maxConcurrency: 4 });
  });

  it('verify mode: a verification round cut short runs again on resume instead of failing the item', async () => {
    writeTree(dir, { 'f.txt': 'v0\n', 'g.txt': 'v0\n' });
    const script: Script = {
      agents: [
        {
          match: { role: 'worker', prompt: 'Bump (\\S+)' },
          turns: [
            { toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'v0', new_string: 'v1' } }] },
            { text: 'v1 done' },
            { toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'v1', new_string: 'v2' } }] },
            { text: 'v2 done' },
          ],
        },
        { match: { role: 'verifier', prompt: 'round 1\\)' }, turns: [{ text: 'VERDICT: fail\nwant v2' }] },
        { match: { role: 'verifier', prompt: 'round 2\\)' }, turns: [{ latencyMs: 5000, text: 'VERDICT: pass' }] },
      ],
    };
    const first = makeEngine(dir, script);
    open.push(first);
    const prepared = await prepareSwarm(
      first.engine,
      undefined,
      { promptTemplate: 'Bump {{item}}', items: ['f.txt', 'g.txt'], verify: true, maxItems: Infinity },
      {},
    );
    if (!prepared.ok) throw new Error(prepared.error);
    const stop = new AbortController();
    // Stop as soon as both round-2 verifiers are running.
    let lastRound = 0;
    first.engine.bus.on('agent.start', (e) => {
      if (e.role === 'verifier' && String(e.prompt).includes('round 2)') && ++lastRound === 2) stop.abort();
    });
    await prepared.run.run(stop.signal);
    const state = first.engine.stateSnapshot();
    const saved = state.swarm as SavedSwarm;
    expect(saved.items.map((i) => [i.rounds, i.verdict, i.result?.outcome])).toEqual([
      [1, 'fail', 'aborted'],
      [1, 'fail', 'aborted'],
    ]);
    await first.close();
    open.pop();

    const fastVerifier: Script = {
      agents: [script.agents[0]!, { match: { role: 'verifier' }, turns: [{ text: 'VERDICT: pass' }] }],
    };
    const session = SessionStore.open(stateHome(dir, {}), state.id);
    const t = makeEngine(dir, fastVerifier, { extra: { session, sessionKind: 'swarm' } });
    open.push(t);
    t.engine.restore(state);
    const restored = await restoreSwarm(t.engine, saved, undefined, {});
    if (!restored.ok) throw new Error(restored.error);
    const report = renderReport(await restored.run.run(t.engine.signal));
    expect(report).toContain('<summary>completed: 2</summary>');
    expect(report).toContain(
      '<subagent agent_id="a-1" item="f.txt" outcome="completed" verdict="pass" rounds="2">v2 done</subagent>',
    );
    // The workers had finished their rework: they did not run again, only the round's verifiers did.
    expect(eventsOf(t.events, 'agent.start').map((e) => e.role)).toEqual(['verifier', 'verifier']);
  });

  it("verify mode: an item that failed its last round goes on with the verifier's reasons, then a fresh verification", async () => {
    writeTree(dir, { 'f.txt': 'v0\n', 'g.txt': 'v0\n' });
    const worker: Script['agents'][number] = {
      match: { role: 'worker', prompt: 'Bump (\\S+)' },
      turns: [
        { toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'v0', new_string: 'v1' } }] },
        { text: 'v1 done' },
        { toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'v1', new_string: 'v2' } }] },
        { text: 'v2 done' },
      ],
    };
    const first = makeEngine(dir, {
      agents: [
        worker,
        { match: { role: 'verifier', prompt: '<item>f.txt' }, turns: [{ text: 'VERDICT: fail\nf.txt must say v2' }] },
        { match: { role: 'verifier' }, turns: [{ text: 'VERDICT: pass' }] },
      ],
    });
    open.push(first);
    const prepared = await prepareSwarm(
      first.engine,
      undefined,
      { promptTemplate: 'Bump {{item}}', items: ['f.txt', 'g.txt'], verify: true, maxRounds: 1, maxItems: Infinity },
      {},
    );
    if (!prepared.ok) throw new Error(prepared.error);
    const firstReport = renderReport(await prepared.run.run(first.engine.signal), { resumeCommand: 'murmur resume X' });
    expect(firstReport).toContain('item="f.txt" outcome="failed" verdict="fail" rounds="1"');
    expect(firstReport).toContain('<resume_hint>');
    const state = first.engine.stateSnapshot();
    await first.close();
    open.pop();

    // After the restart the verifier is satisfied with v2.
    const after: Script = {
      agents: [worker, { match: { role: 'verifier', prompt: 'v2' }, turns: [{ text: 'VERDICT: pass' }] }],
    };
    const session = SessionStore.open(stateHome(dir, {}), state.id);
    const t = makeEngine(dir, after, { extra: { session, sessionKind: 'swarm' } });
    open.push(t);
    t.engine.restore(state);
    const restored = await restoreSwarm(t.engine, state.swarm as SavedSwarm, undefined, {});
    if (!restored.ok) throw new Error(restored.error);
    const report = renderReport(await restored.run.run(t.engine.signal));
    expect(report).toContain('<summary>completed: 2</summary>');
    expect(report).toContain(
      '<subagent agent_id="a-1" item="f.txt" outcome="completed" verdict="pass" rounds="1">v2 done</subagent>',
    );
    // The worker was told what the verifier found, then a new verifier checked its fix (its transcript says so: the
    // settled worker has left memory).
    await t.engine.recordsLost();
    const told = readSessionTranscripts(session.dir, ['a-1'])
      .get('a-1')!
      .messages.filter((m): m is UserMessage => m.role === 'user')
      .map((m) => userText(m));
    expect(told).toEqual(['Bump f.txt', reworkPrompt('f.txt must say v2', 1)]);
    expect(eventsOf(t.events, 'agent.start').map((e) => [e.agentId, e.role, e.resumed])).toEqual([
      ['a-1', 'worker', true],
      ['a-5', 'verifier', false],
    ]);
  });

  it('an agent the journal names but the saved agents do not (started after their last save) keeps its id taken', async () => {
    const state = await firstRun(['a', 'b']);
    // The journal had item b launched with a-7, an agent the snapshot of the agents never saw.
    const swarm = state.swarm as SavedSwarm;
    const journaled: SessionState = {
      ...state,
      swarm: { ...swarm, items: [swarm.items[0]!, { item: 'b', prompt: 'Do b', rounds: 0, agentId: 'a-7' }] },
    };
    const session = SessionStore.open(stateHome(dir, {}), state.id);
    const t = makeEngine(dir, AFTER_RESTART, { extra: { session, sessionKind: 'swarm' } });
    open.push(t);
    restoreOn(t.engine, {
      session,
      state: journaled,
      swarm: journaled.swarm as SavedSwarm,
      title: 'x',
      settings: {},
      model: undefined,
      interruptions: [],
    });
    const restored = await restoreSwarm(t.engine, journaled.swarm as SavedSwarm, undefined, {});
    if (!restored.ok) throw new Error(restored.error);
    expect(renderReport(await restored.run.run(t.engine.signal))).toContain('item="b" outcome="completed"');
    // b starts again with a new agent, never a second a-7 (its transcript belongs to the lost attempt).
    expect(eventsOf(t.events, 'agent.start').map((e) => e.agentId)).toEqual(['a-8']);
  });
});
