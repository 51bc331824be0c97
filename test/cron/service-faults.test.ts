// The service when things go wrong, on a fake clock with real files: a workspace that cannot be served, or a
// fire that cannot be written, does not stop the scheduler nor lose the fire; stop() kills runs that do not
// stop within the grace period; max_fires counts runs, not fires merged into a waiting one; run-now on an
// ended task runs; a task removed during its run gets no history back.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CronService, type LaunchSpec, type ScheduledRunResult } from '../../scheduler/service.js';
import { CronStore } from '../../scheduler/store.js';
import type { RunRecord, ScheduledTask } from '../../scheduler/types.js';

let ws: string;
let home: string;
let now: number;

beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'murmur-cron-faults-')));
  home = mkdtempSync(join(tmpdir(), 'murmur-cron-faults-home-'));
  now = Date.parse('2026-06-01T08:00:00Z');
});

afterEach(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

/** A clock whose timers run when the test advances it. */
function fakeClock() {
  let timers: { at: number; fn: () => void; id: number }[] = [];
  let next = 0;
  return {
    now: () => now,
    setTimeout: (fn: () => void, ms: number) => {
      timers.push({ at: now + ms, fn, id: ++next });
      return next;
    },
    clearTimeout: (id: unknown) => {
      timers = timers.filter((t) => t.id !== id);
    },
    advance(ms: number) {
      now += ms;
      const due = timers.filter((t) => t.at <= now);
      timers = timers.filter((t) => t.at > now);
      for (const t of due) t.fn();
    },
  };
}

function store(dir = ws): CronStore {
  return CronStore.forWorkspace(dir, { env: { HOME: home }, now: () => now });
}

function add(input: Partial<Parameters<CronStore['create']>[0]> = {}): ScheduledTask {
  const created = store().create(
    { cron: '0 * * * *', prompt: 'p', timezone: 'UTC', ...input },
    { createdBy: 'person' },
  );
  if (!created.ok) throw new Error('create');
  return created.value;
}

/** A launcher whose runs the test finishes by hand; stubborn runs ignore stop() ('stop') or both ('both'). */
function launcher(options: { stubborn?: 'stop' | 'both' } = {}) {
  const launched: (LaunchSpec & { finish: (r: ScheduledRunResult) => void; stops: number; kills: number })[] = [];
  return {
    launched,
    launch: (spec: LaunchSpec) => {
      let finish!: (r: ScheduledRunResult) => void;
      const done = new Promise<ScheduledRunResult>((resolve) => (finish = resolve));
      const entry = { ...spec, finish, stops: 0, kills: 0 };
      launched.push(entry);
      return {
        done,
        stop: () => {
          entry.stops++;
          if (!options.stubborn) finish({ state: 'interrupted', summary: 'stopped' });
        },
        kill: () => {
          entry.kills++;
          if (options.stubborn !== 'both') finish({ state: 'interrupted', summary: 'killed' });
        },
      };
    },
  };
}

const ticks = async (n = 4) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('CronService faults', () => {
  it('serves the other workspaces when one cannot be claimed, and logs it once', () => {
    add();
    const other = realpathSync(mkdtempSync(join(tmpdir(), 'murmur-cron-faults-bad-')));
    try {
      const bad = store(other);
      // Its state folder cannot hold the cron folder (a file is in the way): every lock attempt throws.
      mkdirSync(bad.home, { recursive: true });
      writeFileSync(bad.dir, 'not a folder');
      const lines: string[] = [];
      const good = store();
      const svc = new CronService({
        stores: () => [bad, good],
        clock: fakeClock(),
        launch: launcher().launch,
        log: (l) => lines.push(l),
      });
      expect(() => svc.claim()).not.toThrow();
      expect(() => svc.check()).not.toThrow();
      expect(svc.serving).toEqual([good.home]);
      expect(lines.filter((l) => l.includes(`workspace ${other}: cannot be served now`))).toHaveLength(1);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('loses no fire when the files cannot be written: nothing is counted, and the next check fires', async () => {
    const task = add();
    let failures = 1;
    class FullDisk extends CronStore {
      override mutate<T>(fn: (tasks: ScheduledTask[]) => T): T {
        if (failures-- > 0) throw new Error('ENOSPC: no space left on device');
        return super.mutate(fn);
      }
      override mutateTaskAndHistory<T>(id: string, fn: (tasks: ScheduledTask[], runs: RunRecord[]) => T): T {
        if (failures-- > 0) throw new Error('ENOSPC: no space left on device');
        return super.mutateTaskAndHistory(id, fn);
      }
    }
    const s = new FullDisk(ws, store().home, { env: { HOME: home }, now: () => now });
    const l = launcher();
    const lines: string[] = [];
    const svc = new CronService({ stores: () => [s], clock: fakeClock(), launch: l.launch, log: (x) => lines.push(x) });
    svc.claim();
    now = Date.parse('2026-06-01T09:10:00Z');
    expect(svc.check()).toEqual([]);
    expect(lines.some((x) => x.includes(`task ${task.id}: cannot fire now: ENOSPC`))).toBe(true);
    expect(store().get(task.id)).toMatchObject({ fires: 0 });
    expect(store().history(task.id)).toEqual([]);
    expect(svc.check()).toHaveLength(1);
    expect(store().get(task.id)).toMatchObject({ fires: 1 });
    expect(store().history(task.id)).toHaveLength(1);
    await svc.stop();
  });

  it('kills runs that do not stop within the grace period and records them interrupted', async () => {
    add();
    const clock = fakeClock();
    const l = launcher({ stubborn: 'both' });
    const svc = new CronService({ stores: () => [store()], clock, launch: l.launch, stopGraceMs: 10_000 });
    svc.claim();
    now = Date.parse('2026-06-01T09:10:00Z');
    const [run] = svc.check();
    let stopped = false;
    const stopping = svc.stop().then(() => (stopped = true));
    await ticks();
    expect(l.launched[0]).toMatchObject({ stops: 1, kills: 0 });
    expect(stopped).toBe(false);
    clock.advance(10_000);
    await ticks();
    expect(l.launched[0]!.kills).toBe(1);
    // The killed run does not even report its end: it is recorded as interrupted after a short wait.
    clock.advance(5_000);
    await stopping;
    expect(svc.killedRuns).toBe(true);
    expect(store().history(run!.taskId)[0]).toMatchObject({
      state: 'interrupted',
      summary: expect.stringContaining(`murmur resume ${run!.sessionId}`),
    });
  });

  it('kills at once on a second request (a second Ctrl-C)', async () => {
    add();
    const clock = fakeClock();
    // This run does not stop when asked: stop() alone would wait the whole grace period.
    const l = launcher({ stubborn: 'stop' });
    const svc = new CronService({ stores: () => [store()], clock, launch: l.launch });
    svc.claim();
    now = Date.parse('2026-06-01T09:10:00Z');
    const [run] = svc.check();
    const stopping = svc.stop();
    await ticks();
    expect(l.launched[0]!.kills).toBe(0);
    svc.kill();
    await stopping;
    expect(l.launched[0]!.kills).toBe(1);
    expect(svc.killedRuns).toBe(true);
    expect(store().history(run!.taskId)[0]).toMatchObject({ state: 'interrupted', summary: 'killed' });
  });

  it('runs every one of max_fires when fires pile up behind a long run', async () => {
    const task = add({ cron: '* * * * *', maxFires: 3 });
    const l = launcher();
    const svc = new CronService({ stores: () => [store()], clock: fakeClock(), launch: l.launch });
    svc.claim();
    const at = (hhmmss: string) => (now = Date.parse(`2026-06-01T${hhmmss}Z`));
    at('08:01:30');
    svc.check(); // run 1
    at('08:02:30');
    svc.check(); // a fire waits behind it
    at('08:03:30');
    svc.check(); // merged into the waiting one: no new run
    at('08:03:45');
    l.launched[0]!.finish({ state: 'succeeded', summary: 'ok' });
    await ticks(); // run 2 (queued) starts
    at('08:05:30');
    l.launched[1]!.finish({ state: 'succeeded', summary: 'ok' });
    await ticks(); // run 3
    at('08:09:30');
    l.launched[2]?.finish({ state: 'succeeded', summary: 'ok' });
    await ticks();
    svc.check();
    expect(l.launched.map((x) => x.run.trigger)).toEqual(['scheduled', 'queued', 'scheduled']);
    expect(store().get(task.id)).toMatchObject({ fires: 3, ended: { reason: 'max-fires' } });
    await svc.stop();
  });

  it('runs a run-now request on an ended task once, and settles the request', async () => {
    const task = add({ cron: '0 * * * *', maxFires: 1 });
    store().mutate((tasks) => {
      tasks[0]!.fires = 1;
      tasks[0]!.ended = { at: now, reason: 'max-fires' };
    });
    store().runNow(task.id);
    const l = launcher();
    const svc = new CronService({ stores: () => [store()], clock: fakeClock(), launch: l.launch });
    svc.claim();
    expect(svc.check()).toHaveLength(1);
    expect(l.launched[0]!.run.trigger).toBe('run-now');
    expect(store().get(task.id)!.runNowAt).toBeUndefined();
    expect(store().get(task.id)!.ended).toMatchObject({ reason: 'max-fires' });
    await svc.stop();
  });

  it('takes its lock again when the lock file went away, without marking its own runs interrupted', async () => {
    const task = add();
    const l = launcher();
    const lines: string[] = [];
    const svc = new CronService({
      stores: () => [store()],
      clock: fakeClock(),
      launch: l.launch,
      log: (x) => lines.push(x),
    });
    svc.claim();
    now = Date.parse('2026-06-01T09:10:00Z');
    svc.check();
    rmSync(store().serviceLockFile);
    svc.check();
    expect(lines.some((x) => x.includes('no longer served here'))).toBe(true);
    expect(svc.serving).toEqual([store().home]);
    expect(store().history(task.id)[0]).toMatchObject({ state: 'running' });
    await svc.stop();
  });

  it('does not re-create the history of a task removed during its run', async () => {
    const task = add();
    const l = launcher();
    const svc = new CronService({ stores: () => [store()], clock: fakeClock(), launch: l.launch });
    svc.claim();
    now = Date.parse('2026-06-01T09:10:00Z');
    svc.check();
    expect(store().remove(task.id)).toBe(true);
    l.launched[0]!.finish({ state: 'succeeded', summary: 'ok' });
    await ticks();
    expect(existsSync(store().historyFile(task.id))).toBe(false);
    await svc.stop();
  });
});
