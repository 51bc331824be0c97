// A handle on each run: the session id at once, the run's own events (each with its sessionId), the report on
// `done` (and by awaiting the handle), abort with a reason; a reader that never reads holds nothing up; listSessions
// is what `murmur sessions --json` prints.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMurmur, type MurmurEvent } from '../../api/index.js';
import { scriptedModel } from '../../api/testing.js';
import { MURMUR_BIN } from '../murmur-bin.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-handle-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Each agent answers after a glob call; a prompt with "slow" waits 5 s for its answer. */
const model = () =>
  scriptedModel({
    agents: [
      {
        match: { prompt: 'slow' },
        turns: [{ toolCalls: [{ name: 'glob', arguments: { pattern: '*' } }] }, { latencyMs: 5_000, text: 'late' }],
      },
      { turns: [{ toolCalls: [{ name: 'glob', arguments: { pattern: '*' } }] }, { text: 'done: $0' }] },
    ],
  });

async function collect(events: AsyncIterable<MurmurEvent>): Promise<MurmurEvent[]> {
  const all: MurmurEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('a run handle', () => {
  it('has its session id at once, its report on done and by await, and the session on disk', async () => {
    const murmur = await createMurmur({ cwd: dir, model: model() });
    const handle = murmur.run('count the files');
    expect(handle.sessionId).toMatch(/^\d{8}-\d{6}-/);
    const events = collect(handle.events());
    const report = await handle;
    expect(await handle.done).toBe(report);
    expect(report).toMatchObject({ kind: 'run', status: 'completed', sessionId: handle.sessionId });
    const seen = await events;
    expect(seen[0]).toMatchObject({ type: 'run.start', sessionId: handle.sessionId });
    expect(seen.at(-1)).toMatchObject({ type: 'run.end', status: 'completed' });
    expect(seen.every((event) => event.sessionId === handle.sessionId)).toBe(true);
    expect(seen.map((event) => event.type)).toContain('message.delta');
    await murmur.close();
  });

  it('events() of two parallel runs on one instance are separate; every event carries its run id, sessions off too', async () => {
    const murmur = await createMurmur({ cwd: dir, model: model(), sessions: false });
    const everything: MurmurEvent[] = [];
    murmur.on('*', (event) => everything.push(event));
    const first = murmur.run('first task');
    const second = murmur.swarm({ template: 'item {{item}}', items: ['a', 'b'], role: 'explore' });
    expect(first.sessionId).not.toBe(second.sessionId);
    const [firstEvents, secondEvents] = await Promise.all([collect(first.events()), collect(second.events())]);
    expect((await first).sessionId).toBeUndefined();
    expect((await second).status).toBe('completed');
    expect(firstEvents.every((event) => event.sessionId === first.sessionId)).toBe(true);
    expect(secondEvents.every((event) => event.sessionId === second.sessionId)).toBe(true);
    expect(firstEvents.filter((event) => event.type === 'agent.start')).toHaveLength(1);
    expect(secondEvents.filter((event) => event.type === 'agent.start')).toHaveLength(2);
    expect(secondEvents.some((event) => event.type === 'swarm.end')).toBe(true);
    expect(firstEvents.some((event) => event.type.startsWith('swarm.'))).toBe(false);
    // The instance's listeners hear both runs, each event with its run's id.
    expect(everything).toHaveLength(firstEvents.length + secondEvents.length);
    expect(new Set(everything.map((event) => event.sessionId))).toEqual(new Set([first.sessionId, second.sessionId]));
    await murmur.close();
  });

  it('a reader that never reads does not hold the run, and keeps at most maxBuffered events', async () => {
    const murmur = await createMurmur({ cwd: dir, model: model(), sessions: false });
    const handle = murmur.run('a task');
    const unread = handle.events({ maxBuffered: 4 });
    const report = await handle;
    expect(report.status).toBe('completed');
    const kept = await collect(unread);
    expect(kept.length).toBe(4);
    expect(unread.dropped).toBeGreaterThan(0);
    // Streamed pieces went first: the run's end is kept.
    expect(kept.some((event) => event.type === 'message.delta')).toBe(false);
    expect(kept.at(-1)?.type).toBe('run.end');
    // Asked for after the run ended: nothing, at once.
    expect(await collect(handle.events())).toEqual([]);
    await murmur.close();
  });

  it('a reader that stops early (break) lets the run go on', async () => {
    const murmur = await createMurmur({ cwd: dir, model: model(), sessions: false });
    const handle = murmur.run('a task');
    for await (const event of handle.events()) if (event.type === 'agent.start') break;
    expect((await handle).status).toBe('completed');
    await murmur.close();
  });

  it('listSessions() is what `murmur sessions --json` prints', async () => {
    const murmur = await createMurmur({ cwd: dir, model: model() });
    const first = await murmur.run('one');
    const second = await murmur.swarm({ template: 'item {{item}}', items: ['a'], role: 'explore' });
    const listed = murmur.listSessions();
    expect(listed.map((session) => session.id)).toEqual([second.sessionId, first.sessionId]);
    expect(listed[1]).toMatchObject({ kind: 'run', status: 'completed', task: 'one' });
    const cli = spawnSync(process.execPath, [MURMUR_BIN, 'sessions', '--json', '--cwd', dir], { encoding: 'utf8' });
    expect(cli.status).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual(listed);
    await murmur.close();
  });
});

describe('an aborted run resolves with the caller’s reason', () => {
  it('aborted before it starts (0 ms): nothing runs and nothing is saved', async () => {
    const murmur = await createMurmur({ cwd: dir, model: model() });
    const controller = new AbortController();
    controller.abort('the user left');
    const handle = murmur.run('count the files', { signal: controller.signal });
    const events = collect(handle.events());
    const report = await handle;
    expect(report).toMatchObject({ kind: 'run', status: 'aborted', reason: 'the user left', agents: [] });
    expect(report.sessionId).toBeUndefined();
    expect(existsSync(path.join(dir, '.murmur', 'sessions', handle.sessionId))).toBe(false);
    expect((await events).map((event) => event.type)).toEqual(['run.start', 'run.end']);
    // Aborted through the handle right after the call: the same.
    const right = murmur.run('count the files');
    right.abort('changed my mind');
    expect(await right).toMatchObject({ status: 'aborted', reason: 'changed my mind' });
    await murmur.close();
  });

  it('aborted after 10 ms', async () => {
    const murmur = await createMurmur({ cwd: dir, model: model() });
    const report = await murmur.run('slow task', { signal: AbortSignal.timeout(10) });
    expect(report.status).toBe('aborted');
    expect(report.reason).toBe('The operation was aborted due to timeout');
    const handle = murmur.run('slow task');
    setTimeout(() => handle.abort('ten ms'), 10);
    expect(await handle).toMatchObject({ status: 'aborted', reason: 'ten ms' });
    await murmur.close();
  });

  it('aborted mid-tool: the tool is stopped, the run resolves with the reason, and resume continues it', async () => {
    const script = {
      agents: [{ turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 30' } }] }, { text: 'slept' }] }],
    };
    const murmur = await createMurmur({ cwd: dir, model: scriptedModel(script), permissionMode: 'yolo' });
    const handle = murmur.run('sleep a while');
    const started = Date.now();
    for await (const event of handle.events()) if (event.type === 'tool.start') handle.abort('mid-tool stop');
    const report = await handle;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(report).toMatchObject({ status: 'aborted', reason: 'mid-tool stop', sessionId: handle.sessionId });
    expect(report.agents[0]).toMatchObject({ id: 'main', status: 'aborted', reason: 'mid-tool stop' });
    const resumed = await murmur.resume(handle.sessionId);
    expect(resumed.kind).toBe('run');
    if (resumed.kind === 'run') expect(resumed).toMatchObject({ status: 'completed', result: 'slept' });
    await murmur.close();
  });

  it('a swarm aborted at 0 ms or mid-run says why; its items stay to resume', async () => {
    const murmur = await createMurmur({ cwd: dir, model: model() });
    const at0 = await murmur.swarm({
      template: 'item {{item}}',
      items: ['a', 'b'],
      signal: AbortSignal.abort('not today'),
    });
    expect(at0).toMatchObject({ kind: 'swarm', status: 'aborted', reason: 'not today', summary: { aborted: 2 } });
    const handle = murmur.swarm({ template: 'slow item {{item}}', items: ['a', 'b'], role: 'explore' });
    for await (const event of handle.events()) if (event.type === 'tool.end') handle.abort('enough');
    const report = await handle;
    expect(report).toMatchObject({ status: 'aborted', reason: 'enough', summary: { aborted: 2 } });
    // A launched item stops with the reason; one the controller had not launched yet never started.
    expect(report.items[0]!.reason).toBe('enough');
    for (const item of report.items) expect(['enough', 'aborted before it started']).toContain(item.reason);
    const resumed = await murmur.resume(report.sessionId!, { signal: AbortSignal.abort('still not') });
    expect(resumed).toMatchObject({ kind: 'swarm', status: 'aborted', reason: 'still not' });
    await murmur.close();
  });

  it('on a closed instance, or closed while it runs', async () => {
    const murmur = await createMurmur({ cwd: dir, model: model() });
    const running = murmur.run('slow task');
    for await (const event of running.events()) if (event.type === 'turn.start') break;
    await murmur.close();
    expect(await running).toMatchObject({ status: 'aborted', reason: 'murmur.close() was called' });
    expect(await murmur.run('count the files')).toMatchObject({
      status: 'aborted',
      reason: 'this murmur instance is closed',
    });
  });

  it('the instance’s signal aborts every run with its reason', async () => {
    const controller = new AbortController();
    const murmur = await createMurmur({ cwd: dir, model: model(), signal: controller.signal });
    const one = murmur.run('slow task');
    const two = murmur.run('slow task');
    setTimeout(() => controller.abort('shutting down'), 20);
    expect((await Promise.all([one, two])).map((report) => report.reason)).toEqual(['shutting down', 'shutting down']);
    await murmur.close();
  });
});
