// The run lifecycle, once for every front end: run.start and run.end exactly once around a run, a refused request
// as a value with no event and no session left behind, and a resume refused after reopening its session leaving
// that session byte for byte as it was (so a later resume still finishes the items).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assembleEngine } from '../../host/assemble.js';
import { runOnEngine, type RunRequest } from '../../host/lifecycle.js';
import { openResumable } from '../../host/resume.js';
import { EventBus, type MurmurEvent } from '../../orchestrator/events.js';
import { ScriptedModel, type Script } from '../../orchestrator/models/scripted.js';
import type { SessionStore } from '../../orchestrator/session.js';
import type { EngineOptions } from '../../orchestrator/engine.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-lifecycle-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SCRIPT: Script = {
  agents: [{ match: { prompt: 'Do (\\S+)' }, turns: [{ text: 'did $1' }] }, { turns: [{ text: 'done' }] }],
};

async function runRequest(
  request: RunRequest | ((session: SessionStore | undefined) => RunRequest),
  options: {
    env?: NodeJS.ProcessEnv;
    session?: SessionStore;
    kind?: 'run' | 'swarm';
    signal?: AbortSignal;
    extend?: (o: EngineOptions) => void;
  } = {},
) {
  const bus = new EventBus();
  const events: MurmurEvent[] = [];
  bus.on('*', (event) => events.push(event));
  const env = options.env ?? {};
  const { engine, close } = await assembleEngine({
    cwd: dir,
    config: { retry: { maxAttempts: 1 } },
    env,
    bus,
    provider: new ScriptedModel(SCRIPT),
    frontEnd: 'cli',
    sessionKind: options.kind ?? 'run',
    headlessReason: 'a test',
    ...(options.session ? { session: options.session } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.extend ? { extend: options.extend } : {}),
  });
  try {
    const result = await runOnEngine(engine, typeof request === 'function' ? request(engine.session) : request, env);
    return { result, events, sessionId: engine.session?.id };
  } finally {
    await close();
  }
}

const sessionsDir = () => path.join(dir, '.murmur', 'sessions');
const sessions = () => (existsSync(sessionsDir()) ? readdirSync(sessionsDir()) : []);

describe('runOnEngine', () => {
  it('announces a task once, runs it and returns the outcome as data', async () => {
    const { result, events } = await runRequest({ kind: 'task', task: 'Do x' });
    expect(result).toMatchObject({
      ok: true,
      finished: { kind: 'run', outcome: { status: 'completed', result: 'did x' } },
    });
    const lifecycle = events.filter((e) => e.type === 'run.start' || e.type === 'run.end');
    expect(lifecycle).toMatchObject([
      { type: 'run.start', mode: 'run', task: 'Do x', model: 'scripted' },
      { type: 'run.end', status: 'completed' },
    ]);
    expect(events[0]!.type).toBe('run.start');
    expect(events.at(-1)!.type).toBe('run.end');
  });

  it('refuses an unknown agent as a value: no event, and no session folder left behind', async () => {
    const { result, events } = await runRequest({ kind: 'task', task: 'Do x', agent: 'wrker' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.refused.part).toBe('agent');
    expect(result.refused.message).toMatch(/"wrker".*worker/s);
    expect(events.filter((e) => e.type.startsWith('run.'))).toEqual([]);
    expect(sessions()).toEqual([]);
  });

  it('runs a swarm: its items, its status and the whole run in one result', async () => {
    const { result, events } = await runRequest(
      {
        kind: 'swarm',
        launch: { promptTemplate: 'Do {{item}}', items: ['a', 'b'], maxItems: Number.POSITIVE_INFINITY, minItems: 1 },
      },
      { kind: 'swarm' },
    );
    expect(result).toMatchObject({
      ok: true,
      finished: { kind: 'swarm', status: 'completed', outcome: { status: 'completed' } },
    });
    if (!result.ok || result.finished.kind !== 'swarm') return;
    expect([...result.finished.results].map((r) => r.text)).toEqual(['did a', 'did b']);
    expect(events.filter((e) => e.type === 'run.start')).toMatchObject([{ mode: 'swarm', task: 'Do {{item}} × 2' }]);
  });

  it('a resume refused after opening its session leaves the session as it was; a good resume then finishes', async () => {
    // A swarm stopped before its items ran: aborted at once, so every item is left to do.
    const aborted = new AbortController();
    aborted.abort();
    const first = await runRequest(
      {
        kind: 'swarm',
        launch: {
          promptTemplate: 'Do {{item}}',
          items: ['a', 'b', 'c'],
          maxItems: Number.POSITIVE_INFINITY,
          minItems: 1,
        },
      },
      { kind: 'swarm', signal: aborted.signal },
    );
    expect(first.result).toMatchObject({ ok: true, finished: { status: 'aborted' } });
    const id = first.sessionId!;
    const stateFile = path.join(sessionsDir(), id, 'state.json');
    const before = readFileSync(stateFile, 'utf8');
    expect(JSON.parse(before)).toMatchObject({ kind: 'swarm', status: 'aborted', swarm: { swarmId: 's-1' } });

    const bad = { MURMUR_SWARM_MAX_CONCURRENCY: 'abc' };
    const opened = openResumable(dir, bad, id);
    if (!opened.ok) throw new Error(opened.error);
    const refused = await runRequest(
      { kind: 'resume', resumable: opened.resumable },
      { env: bad, session: opened.resumable.session, kind: 'swarm' },
    );
    expect(refused.result).toMatchObject({
      ok: false,
      refused: { part: 'session', message: expect.stringMatching(/MURMUR_SWARM_MAX_CONCURRENCY.*abc/) },
    });
    expect(refused.events.filter((e) => e.type.startsWith('run.'))).toEqual([]);
    expect(readFileSync(stateFile, 'utf8')).toBe(before);

    const again = openResumable(dir, {}, id);
    if (!again.ok) throw new Error(again.error);
    const resumed = await runRequest(
      { kind: 'resume', resumable: again.resumable },
      { session: again.resumable.session, kind: 'swarm' },
    );
    expect(resumed.result).toMatchObject({ ok: true, finished: { kind: 'swarm', status: 'completed' } });
    if (!resumed.result.ok || resumed.result.finished.kind !== 'swarm') return;
    expect([...resumed.result.finished.results].map((r) => r.text)).toEqual(['did a', 'did b', 'did c']);
    expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toMatchObject({
      status: 'completed',
      swarm: { swarmId: 's-1' },
    });
  });

  it('says why a session cannot be resumed, changing nothing', () => {
    expect(openResumable(dir, {}, 'nope')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/no session "nope"/),
    });
    expect(openResumable(dir, {}, '../x')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not a session id/),
    });
    expect(existsSync(path.join(dir, '.murmur', 'sessions'))).toBe(false);
  });
});
