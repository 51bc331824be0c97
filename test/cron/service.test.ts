// The service on a fake clock with a fake launcher: fires, coalescing after downtime, the stale last run and
// deletion, queued runs behind a running one, the workspace lock, and runs left by a crash marked interrupted.
import { mkdtempSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CronService, type LaunchSpec, type ScheduledRunResult } from '../../scheduler/service.js';
import { CronStore } from '../../scheduler/store.js';
import { STALE_AFTER_MS } from '../../scheduler/types.js';

let ws: string;
let home: string;
let now: number;
const MIN = 60_000;

beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'murmur-cron-svc-')));
  home = mkdtempSync(join(tmpdir(), 'murmur-cron-svc-home-'));
  now = Date.parse('2026-06-01T08:00:00Z');
});

afterEach(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const clock = { now: () => now, setTimeout: () => undefined, clearTimeout: () => undefined };

function store(): CronStore {
  return CronStore.forWorkspace(ws, { env: { HOME: home }, now: () => now });
}

/** A launcher whose runs the test finishes by hand. */
function launcher() {
  const launched: (LaunchSpec & { finish: (r: ScheduledRunResult) => void })[] = [];
  return {
    launched,
    launch: (spec: LaunchSpec) => {
      let finish!: (r: ScheduledRunResult) => void;
      const done = new Promise<ScheduledRunResult>((resolve) => (finish = resolve));
      launched.push({ ...spec, finish });
      return { done, stop: () => finish({ state: 'interrupted', summary: 'stopped' }) };
    },
  };
}

function service(l: ReturnType<typeof launcher>, lines: string[] = []) {
  const s = store();
  const svc = new CronService({ stores: () => [s], clock, launch: l.launch, log: (line) => lines.push(line) });
  svc.claim();
  return svc;
}

const tick = () => new Promise((r) => setImmediate(r));

describe('CronService', () => {
  it('starts a due run, records it, and records how it ended', async () => {
    const created = store().create(
      { cron: '0 * * * *', prompt: 'hourly check', timezone: 'UTC' },
      { createdBy: 'person' },
    );
    if (!created.ok) throw new Error('create');
    const l = launcher();
    const svc = service(l);
    now = Date.parse('2026-06-01T08:30:00Z');
    expect(svc.check()).toEqual([]);
    now = Date.parse('2026-06-01T09:10:00Z');
    const [run] = svc.check();
    expect(run).toMatchObject({
      trigger: 'scheduled',
      planned: Date.parse('2026-06-01T09:00:00Z'),
      state: 'running',
      lateMs: 10 * MIN,
    });
    expect(l.launched[0]!.prompt).toBe('hourly check');
    expect(svc.check()).toEqual([]);
    l.launched[0]!.finish({ state: 'succeeded', summary: 'all fine' });
    await tick();
    await tick();
    expect(store().history(created.value.id)).toEqual([
      expect.objectContaining({ state: 'succeeded', summary: 'all fine', sessionId: run!.sessionId }),
    ]);
    expect(store().get(created.value.id)).toMatchObject({ fires: 1, cursor: Date.parse('2026-06-01T09:00:00Z') });
    await svc.stop();
  });

  it('coalesces the fires missed while no scheduler ran into one run with the envelope', async () => {
    const created = store().create({ cron: '*/10 * * * *', prompt: 'check', timezone: 'UTC' }, { createdBy: 'person' });
    if (!created.ok) throw new Error('create');
    now = Date.parse('2026-06-01T09:05:00Z');
    const l = launcher();
    const svc = service(l);
    svc.check();
    expect(l.launched).toHaveLength(1);
    expect(l.launched[0]!.run.coalescedCount).toBe(6);
    expect(l.launched[0]!.prompt).toContain('<cron-fire coalescedCount="6">');
    await svc.stop();
  });

  it('never replays the fires missed while paused: unpause starts from now', async () => {
    const created = store().create({ cron: '0 * * * *', prompt: 'hourly', timezone: 'UTC' }, { createdBy: 'person' });
    if (!created.ok) throw new Error('create');
    store().pause(created.value.id);
    const l = launcher();
    const svc = service(l);
    now = Date.parse('2026-06-01T12:30:00Z');
    svc.check();
    expect(l.launched).toEqual([]);
    store().unpause(created.value.id);
    svc.check();
    expect(l.launched).toEqual([]);
    now = Date.parse('2026-06-01T13:10:00Z');
    svc.check();
    expect(l.launched.map((x) => x.run.coalescedCount)).toEqual([1]);
    expect(l.launched[0]!.run.planned).toBe(Date.parse('2026-06-01T13:00:00Z'));
    await svc.stop();
  });

  it('queues a fire behind the running run, then starts it as "queued"', async () => {
    store().create({ cron: '*/10 * * * *', prompt: 'check', timezone: 'UTC' }, { createdBy: 'person' });
    const l = launcher();
    const svc = service(l);
    now = Date.parse('2026-06-01T08:11:00Z');
    svc.check();
    now = Date.parse('2026-06-01T08:21:00Z');
    svc.check();
    now = Date.parse('2026-06-01T08:31:00Z');
    svc.check();
    expect(l.launched).toHaveLength(1);
    const task = store().list()[0]!;
    expect(task.queued).toMatchObject({ coalescedCount: 2, planned: Date.parse('2026-06-01T08:30:00Z') });
    l.launched[0]!.finish({ state: 'succeeded', summary: 'ok' });
    await tick();
    await tick();
    expect(l.launched).toHaveLength(2);
    expect(l.launched[1]!.run).toMatchObject({ trigger: 'queued', coalescedCount: 2 });
    expect(store().list()[0]!.queued).toBeUndefined();
    await svc.stop();
  });

  it("makes an old agent task's last run stale and deletes the task", async () => {
    const created = store().create({ cron: '0 9 * * *', prompt: 'daily', timezone: 'UTC' }, { createdBy: 'agent' });
    if (!created.ok) throw new Error('create');
    now += STALE_AFTER_MS + 2 * 60 * MIN; // 8 days later, 10:00: the 09:00 fire is due
    store().mutate((tasks) => (tasks[0]!.cursor = now - 2 * 60 * MIN));
    const l = launcher();
    const svc = service(l);
    svc.check();
    expect(l.launched).toHaveLength(1);
    expect(l.launched[0]!.run.stale).toBe(true);
    expect(l.launched[0]!.prompt).toContain('stale="true"');
    expect(store().get(created.value.id)).toBeUndefined();
    await svc.stop();
    expect(store().history(created.value.id)[0]).toMatchObject({ state: 'interrupted' });
  });

  it('lets one scheduler hold a workspace, and marks runs a crashed one left as interrupted', async () => {
    const created = store().create({ cron: '0 * * * *', prompt: 'p', timezone: 'UTC' }, { createdBy: 'person' });
    if (!created.ok) throw new Error('create');
    // A crashed scheduler: its lock names a process that is gone, its run is still "running".
    const s = store();
    mkdirSync(s.dir, { recursive: true });
    writeFileSync(s.serviceLockFile, JSON.stringify({ pid: 2 ** 22 + 12345, startedAt: 0 }));
    s.mutateHistory(created.value.id, (runs) =>
      runs.push({
        id: 'run-old',
        taskId: created.value.id,
        trigger: 'scheduled',
        planned: now,
        started: now,
        lateMs: 0,
        sessionId: 'sess-1',
        state: 'running',
        coalescedCount: 1,
        stale: false,
      }),
    );
    const lines: string[] = [];
    const svc = service(launcher(), lines);
    expect(svc.serving).toEqual([s.home]);
    expect(store().history(created.value.id)[0]).toMatchObject({
      state: 'interrupted',
      summary: expect.stringContaining('murmur resume sess-1'),
    });
    expect(lines[0]).toContain('1 run left by a stopped scheduler marked interrupted');
    // A second service in this process is refused while the first holds the lock.
    const other: string[] = [];
    const second = new CronService({
      stores: () => [store()],
      clock,
      launch: launcher().launch,
      log: (l) => other.push(l),
    });
    writeFileSync(s.serviceLockFile, JSON.stringify({ pid: process.ppid, startedAt: 0 }));
    second.claim();
    expect(second.serving).toEqual([]);
    expect(other[0]).toContain(`another scheduler (pid ${process.ppid}) serves it`);
    await svc.stop();
  });
});
