// The pure parts of the console: the session fold (timeline changes, marks, capacity line), the structural
// schedule choices and the theoretical last moment; and `murmur report` against what the run itself printed.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldEvents, ITEM_STATES } from '../../dashboards/web/session-model.js';
import { modelJson } from '../../dashboards/web/model-json.js';
import { choiceOf, predictTimeline, theoreticalLast, zoneOptions } from '../../dashboards/web/task-forms.js';
import { taskForm } from '../../dashboards/web/task-form-html.js';
import { timeZoneNames } from '../../scheduler/time-zones.js';
import type { ScheduledTask } from '../../scheduler/types.js';
import type { MurmurEvent } from '../../orchestrator/events.js';
import { childEnv, murmur, removeDir, tempDir } from './helpers.js';
import { ZONES_NODE_LACKS } from '../cron/zone-names.js';

const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 };

describe('the session fold', () => {
  it('remembers the past across a resume: the first start, the time of every run, and the bars of items done before', () => {
    const e = (ts: number, rest: Record<string, unknown>) => ({ ts, ...rest }) as unknown as MurmurEvent;
    const start = (ts: number) => e(ts, { type: 'run.start', mode: 'swarm', task: 't', model: 'scripted:x' });
    const swarm = (ts: number) =>
      e(ts, { type: 'swarm.start', swarmId: 's-1', description: 'd', role: 'worker', items: ['a', 'b'] });
    const item = (ts: number, index: number, state: string, reason?: string) =>
      e(ts, {
        type: 'swarm.item',
        swarmId: 's-1',
        item: ['a', 'b'][index],
        index,
        state,
        ...(reason ? { reason } : {}),
      });
    const first = [
      start(0),
      swarm(1),
      item(2, 0, 'launched'),
      item(2, 1, 'launched'),
      item(5_000, 0, 'completed'),
      item(10_000, 1, 'aborted'),
      e(10_000, { type: 'run.end', status: 'aborted', usage, startedAt: 0, durationMs: 10_000 }),
    ];
    // Resumed 90 s later: the swarm starts again and restates the item done before.
    const again = [start(100_000), swarm(100_001), item(100_001, 0, 'completed', 'finished before the resume')];
    const running = foldEvents('s', [...first, ...again]);
    expect(running).toMatchObject({ status: 'running', startedAt: 0, runStartedAt: 100_000, earlierMs: 10_000 });
    const [timeline] = running.swarms;
    // Item a keeps its one bar ending at 5 s; no restatement at the resume.
    const changesOfA = [];
    for (let i = 0; i < timeline!.changes.length; i += 3)
      if (timeline!.changes[i] === 0) changesOfA.push(timeline!.changes.slice(i + 1, i + 3));
    expect(changesOfA).toEqual([
      [2, ITEM_STATES.indexOf('launched')],
      [5_000, ITEM_STATES.indexOf('completed')],
    ]);
    const ended = foldEvents('s', [
      ...first,
      ...again,
      item(100_002, 1, 'launched'),
      item(110_000, 1, 'completed'),
      e(110_000, { type: 'run.end', status: 'completed', usage, startedAt: 0, durationMs: 20_000 }),
    ]);
    expect(ended).toMatchObject({ status: 'completed', startedAt: 0, durationMs: 20_000 });
  });

  it('keeps each item state change, the marks and the capacity line, relative to the first event', () => {
    const e = (ts: number, rest: Record<string, unknown>) => ({ ts, ...rest }) as unknown as MurmurEvent;
    const model = foldEvents('s', [
      e(1000, { type: 'run.start', mode: 'swarm', task: 't', model: 'scripted:x' }),
      e(1001, {
        type: 'swarm.start',
        swarmId: 's-1',
        description: 'd',
        role: 'worker',
        items: ['a', 'b'],
        maxConcurrency: 2,
      }),
      e(1002, {
        type: 'swarm.item',
        swarmId: 's-1',
        item: 'a',
        index: 0,
        state: 'launched',
        agentId: 'a-1',
        capacity: 1,
        running: 1,
      }),
      e(1003, { type: 'agent.start', agentId: 'a-1', role: 'worker', prompt: 'Check a', swarmId: 's-1', item: 'a' }),
      e(1004, { type: 'model.retry', agentId: 'a-1', status: 429, attempt: 1, delayMs: 5, reason: 'rate' }),
      e(1005, { type: 'swarm.capacity', swarmId: 's-1', capacity: 2, running: 1, limited: false }),
      e(1006, {
        type: 'swarm.item',
        swarmId: 's-1',
        item: 'a',
        index: 0,
        state: 'completed',
        agentId: 'a-1',
        verdict: 'pass',
      }),
      e(1007, {
        type: 'agent.end',
        agentId: 'a-1',
        role: 'worker',
        status: 'completed',
        usage,
        turns: 1,
        toolCalls: 0,
        durationMs: 4,
        swarmId: 's-1',
        item: 'a',
      }),
      e(1008, { type: 'swarm.end', swarmId: 's-1', counts: { completed: 1 }, durationMs: 7 }),
      e(1009, { type: 'run.end', status: 'completed', usage }),
    ]);
    expect(model.status).toBe('completed');
    expect(model.t0).toBe(1000);
    const swarm = model.swarms[0]!;
    expect(swarm.changes).toEqual([0, 2, ITEM_STATES.indexOf('launched'), 0, 6, ITEM_STATES.indexOf('completed')]);
    expect(swarm.marks).toEqual([0, 4, 1, 0, 6, 2]);
    expect(swarm.capacity).toEqual([2, 1, 5, 2]);
    expect(model.agents.map((a) => [a.id, a.state, a.tokens])).toEqual([['a-1', 'completed', 15]]);
  });

  it('is serialized in slices to the same JSON, also past the lists it cuts in pieces', async () => {
    const e = (ts: number, rest: Record<string, unknown>) => ({ ts, ...rest }) as unknown as MurmurEvent;
    const items = Array.from({ length: 12_345 }, (_, i) => `item "${i}" <é>`);
    const events = [
      e(1, { type: 'run.start', mode: 'swarm', task: 't', model: 'm' }),
      e(2, { type: 'swarm.start', swarmId: 's-1', description: 'd', role: 'worker', items }),
      e(3, { type: 'swarm.start', swarmId: 's-2', description: 'empty', role: 'worker', items: [] }),
    ];
    items.forEach((item, index) => {
      events.push(
        e(10 + index, {
          type: 'agent.start',
          agentId: `a-${index}`,
          role: 'worker',
          prompt: item,
          swarmId: 's-1',
          item,
        }),
      );
      events.push(e(10 + index, { type: 'swarm.item', swarmId: 's-1', item, index, state: 'launched', capacity: 3 }));
    });
    const model = foldEvents('s', events);
    const text = await modelJson(model);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(model)));
    expect(text.length).toBe(JSON.stringify(model).length);
  });
});

describe('schedule choices', () => {
  it('maps the structural choices back from a task, and keeps a cron they cannot say', () => {
    const cron = (c: string, more: Partial<ScheduledTask> = {}) =>
      choiceOf({ schedule: { kind: 'cron', cron: c }, recurring: true, ...more });
    expect(cron('15 * * * *')).toEqual({ kind: 'hourly', minute: 15 });
    expect(cron('0 9 * * *')).toEqual({ kind: 'daily', time: '09:00' });
    expect(cron('30 8 * * 1-5')).toEqual({ kind: 'weekday', time: '08:30' });
    expect(cron('0 9 * * 1')).toEqual({ kind: 'weekly', time: '09:00', day: 1 });
    expect(cron('0 9 15 * *')).toEqual({ kind: 'monthly', time: '09:00', dom: 15 });
    expect(cron('*/5 9-17 * * *')).toEqual({ kind: 'cron', cron: '*/5 9-17 * * *' });
    // An end date goes with every recurring kind (as --until does), so it is shown and kept.
    expect(cron('0 9 * * 1', { until: '2026-12-20' })).toEqual({
      kind: 'weekly',
      time: '09:00',
      day: 1,
      until: '2026-12-20',
    });
    // A one-shot cron (--once) is not "Monthly": it stays as set elsewhere.
    expect(cron('0 9 5 12 *', { recurring: false })).toEqual({ kind: 'cron', cron: '0 9 5 12 *' });
    const every = (n: number, unit: 'd' | 'w' | 'mo', until?: string) =>
      choiceOf({
        schedule: { kind: 'every', every: { n, unit }, at: '10:00', start: '2026-12-01' },
        recurring: until !== '2026-12-01',
        ...(until ? { until } : {}),
      });
    expect(every(2, 'w', '2027-01-01')).toEqual({
      kind: 'custom',
      every: '2w',
      time: '10:00',
      start: '2026-12-01',
      until: '2027-01-01',
    });
    expect(every(1, 'd', '2026-12-01')).toEqual({ kind: 'once', time: '10:00', start: '2026-12-01' });
    expect(every(3, 'mo', '2026-12-01')).toMatchObject({ kind: 'custom', every: '3mo' });
  });

  it('predicts no times an ended task will not make, one for a one-shot task, and counts past runs against a cap', () => {
    const now = Date.parse('2026-12-02T12:00:00Z');
    const daily = { cron: '0 9 * * *', timezone: 'UTC' };
    const task = {
      schedule: { kind: 'cron', cron: '0 9 * * *' },
      timezone: 'UTC',
      recurring: true,
      fires: 3,
      paused: false,
    } as ScheduledTask;
    const ok = (p: ReturnType<typeof predictTimeline>) => (p.ok ? p.value : undefined);
    expect(ok(predictTimeline(daily, now))?.next).toHaveLength(2);
    expect(ok(predictTimeline({ ...daily, recurring: false }, now))).toMatchObject({
      next: ['2026-12-03T09:00:00+00:00'],
      note: 'It runs once.',
    });
    expect(ok(predictTimeline({ ...daily, maxFires: '4' }, now, task))?.next).toEqual(['2026-12-03T09:00:00+00:00']);
    const ended = { ...task, maxFires: 3, ended: { at: now, reason: 'max-fires' as const } };
    expect(ok(predictTimeline({ ...daily, maxFires: 3 }, now, ended))).toMatchObject({ next: [] });
    expect(ok(predictTimeline({ ...daily, maxFires: 3 }, now, ended))?.note).toMatch(/^Ended: it made all its runs/);
    // Raising the cap re-arms it, as saving would.
    expect(ok(predictTimeline({ ...daily, maxFires: 5 }, now, ended))?.next).toHaveLength(2);
    const once = { ...task, recurring: false, ended: { at: now, reason: 'once' as const } };
    expect(ok(predictTimeline({ ...daily, recurring: false }, now, once))).toMatchObject({ next: [] });
    expect(ok(predictTimeline(daily, now, { ...task, paused: true }))?.note).toMatch(/^Paused/);
  });

  it('computes the theoretical last moment before now, and none before an interval starts', () => {
    const now = Date.parse('2026-12-02T12:00:00Z');
    expect(new Date(theoreticalLast({ cron: '0 9 * * 1', timezone: 'UTC' }, now)!).toISOString()).toBe(
      '2026-11-30T09:00:00.000Z',
    );
    expect(theoreticalLast({ every: '1d', at: '09:00', start: '2026-12-10', timezone: 'UTC' }, now)).toBeUndefined();
    const p = predictTimeline(
      { every: '1d', at: '09:00', start: '2026-12-10', until: '2026-12-10', timezone: 'UTC' },
      now,
    );
    expect(p.ok && p.value).toEqual({
      zone: 'UTC',
      theoretical: null,
      next: ['2026-12-10T09:00:00+00:00'],
      note: 'It runs once.',
    });
  });

  it('offers the zones murmur schedule accepts, so a task in Asia/Kolkata shows Asia/Kolkata selected', () => {
    const zones = zoneOptions('Europe/Berlin');
    expect(zones).toEqual([...timeZoneNames()]);
    for (const zone of ZONES_NODE_LACKS) expect(zones).toContain(zone);
    // A zone the list lacks (the machine's, or a task's kept as typed) is put first rather than lost.
    expect(zoneOptions('US/Pacific-New', 'Canada/East-Saskatchewan', undefined).slice(0, 2)).toEqual([
      'Canada/East-Saskatchewan',
      'US/Pacific-New',
    ]);

    const task = {
      id: 'st-1',
      title: 't',
      prompt: 'p',
      schedule: { kind: 'cron', cron: '0 9 * * *' },
      timezone: 'Asia/Kolkata',
      recurring: true,
    } as ScheduledTask;
    const form = taskForm({ workspaces: ['/ws'], models: [], zones, defaultZone: 'UTC', today: '2026-12-02' }, task);
    const selected = [...form.matchAll(/<option value="([^"]*)" selected>/g)].map((m) => m[1]);
    expect(selected).toContain('Asia/Kolkata');
    expect(selected).not.toContain('UTC');

    const p = predictTimeline({ cron: '0 9 * * *', timezone: 'asia/kolkata' }, Date.parse('2026-12-02T12:00:00Z'));
    expect(p.ok && p.value.zone).toBe('Asia/Kolkata');
  });
});

describe('murmur report', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir();
    writeFileSync(
      path.join(dir, 'script.json'),
      JSON.stringify({
        agents: [
          { match: { prompt: 'Check (\\S+)' }, turns: [{ text: '$1 <ok> & fine' }] },
          { match: { prompt: 'Answer' }, turns: [{ text: 'The answer is 42' }] },
        ],
      }),
    );
    mkdirSync(path.join(dir, 'ws'));
  });
  afterAll(async () => {
    await removeDir(dir);
  });

  it('prints the swarm report as the run did, the same --json object, and the answer with its tree for a run', async () => {
    const ws = path.join(dir, 'ws');
    const env = childEnv(dir, { MURMUR_MODEL: `scripted:${path.join(dir, 'script.json')}` });
    const swarm = await murmur(
      ['swarm', '--template', 'Check {{item}}', '--items', 'a.ts', 'b.ts', '--json', '--no-dashboard'],
      ws,
      env,
    );
    expect(swarm.exitCode).toBe(0);
    const printed = JSON.parse(swarm.stdout) as { sessionId: string };
    const json = await murmur(['report', printed.sessionId, '--json'], ws, env);
    expect(JSON.parse(json.stdout)).toEqual(printed);
    const text = await murmur(['report', printed.sessionId], ws, env);
    expect(text.stdout).toContain(
      '<subagent agent_id="a-1" item="a.ts" outcome="completed" rounds="0">a.ts &lt;ok&gt; &amp; fine</subagent>',
    );

    const run = await murmur(['run', '--json', '--no-dashboard', 'Answer please'], ws, env);
    const runReport = JSON.parse(run.stdout) as { sessionId: string; result: string };
    const runText = await murmur(['report', runReport.sessionId], ws, env);
    expect(runText.stdout).toMatch(/^The answer is 42\n\nAgents:\n\S+ \S+ completed/);
    const runJson = JSON.parse((await murmur(['report', runReport.sessionId, '--json'], ws, env)).stdout) as {
      result: string;
      status: string;
      sessionId: string;
    };
    expect(runJson).toMatchObject({ result: runReport.result, status: 'completed', sessionId: runReport.sessionId });

    const html = await murmur(['report', printed.sessionId, '--html', '-o', path.join(dir, 'r.html')], ws, env);
    expect(html.stdout.trim()).toBe(path.join(dir, 'r.html'));
    expect(readdirSync(dir)).toContain('r.html');
    const missing = await murmur(['report', 'nope'], ws, env);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('no session "nope"');
  });
});
