// The engine reads time only from its clock: a subagent's deadline for its background work, the session's id and
// its coalesced state writes all follow the shared fake clock, never the wall clock.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../orchestrator/session.js';
import { FakeClock } from '../fakes/clock.js';
import { readJson, scriptedEngine, waitFor, type Script, workspacePerTest } from './helpers.js';

const workspace = workspacePerTest();

describe('the engine clock', () => {
  it("times out a subagent waiting for its background work when the engine's clock passes its deadline", async () => {
    const clock = new FakeClock();
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            { toolCalls: [{ name: 'agent', arguments: { prompt: 'Build it', description: 'build it' } }] },
            { text: 'main done' },
          ],
        },
        {
          match: { role: 'worker' },
          turns: [
            {
              toolCalls: [
                { name: 'bash', arguments: { command: 'sleep 30', description: 'build', run_in_background: true } },
              ],
            },
            { text: 'started the build' },
          ],
        },
      ],
    };
    const { engine, recorder } = scriptedEngine(workspace.dir, script, { clock, limits: { agentTimeoutMs: 60_000 } });
    const run = engine.runTask('start');
    // The subagent answered; its answer waits for the build, which would take 30 real seconds.
    await waitFor(
      'the subagent to wait for its background work',
      () => recorder.of('agent.end', 'a-1').length === 1 && clock.scheduled.includes(60_000),
    );
    expect(engine.tasks.activeCount('a-1')).toBe(1);
    expect(engine.agentTree.get('a-1')!.agent.status).toBe('completed');

    clock.advance(60_000);
    const outcome = await run;
    expect(outcome.status).toBe('completed');
    const child = engine.agentTree.get('a-1')!.agent;
    expect(child.status).toBe('timeout');
    expect(child.reason).toBe('timed out after 60 s waiting for its background work');
    expect(engine.tasks.get('t-1')).toMatchObject({ status: 'stopped' });
  });

  it("names a session after the clock's time and coalesces its state writes on that clock", async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 30, 2, 15, 3));
    const session = SessionStore.create(path.join(workspace.dir, '.murmur'), undefined, clock);
    expect(session.id).toMatch(/^20261130-021503-[a-z0-9]{1,4}$/);
    const file = path.join(session.dir, 'state.json');

    // The first state is written at once (the session can be resumed from then on); later ones coalesce.
    session.saveState(() => ({ n: 0 }));
    expect(readJson(file)).toMatchObject({ n: 0 });
    session.saveState(() => ({ n: 1 }));
    session.saveState(() => ({ n: 2 }));
    clock.advance(199);
    expect(readJson(file)).toMatchObject({ n: 0 });
    clock.advance(1);
    await waitFor('the coalesced state write', () => (readJson(file) as { n: number }).n === 2 || undefined);
    expect(readJson(file)).toMatchObject({ n: 2 });
  });

  it("stamps the saved state with the engine's clock (and a session made on that clock is named by it)", async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5));
    // The host makes the session (host/assemble.ts); a session made on the run's clock is named by it.
    const session = SessionStore.create(path.join(workspace.dir, '.murmur'), undefined, clock);
    const { engine } = scriptedEngine(workspace.dir, { agents: [{ turns: [{ text: 'ok' }] }] }, { clock, session });
    expect(engine.session!.id).toMatch(/^20260102-030405-/);
    expect(engine.stateSnapshot()).toMatchObject({ createdAt: clock.now(), updatedAt: clock.now() });
    await engine.close();
  });
});
