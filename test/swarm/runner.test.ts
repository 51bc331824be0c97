// The runner on its own: a fake launcher (items end when the test says so) and a fake clock, so the ramp, rate
// limits, aborts, resumes and launcher failures are checked exactly, with no agents and no real time.
import { describe, expect, it } from 'vitest';
import type { EventInput } from '../../orchestrator/events.js';
import { DEFAULT_CONTROLLER_OPTIONS } from '../../swarm/controller.js';
import { queuedItem, type AttemptProgress, type LaunchableItem, type SwarmItem } from '../../swarm/item-state.js';
import type { Attempt, ItemLauncher } from '../../swarm/item-launcher.js';
import type { ItemResult } from '../../swarm/report.js';
import { SwarmRun, type SwarmSink } from '../../swarm/runner.js';
import type { SavedSwarm } from '../../swarm/saved-swarm.js';
import { FakeClock } from '../fakes/clock.js';

/** Where the runner's events and saved states go, recorded. */
class RecordingSink implements SwarmSink {
  readonly events: EventInput[] = [];
  readonly saves: SavedSwarm[] = [];
  writeRoom?: () => Promise<void> | undefined;
  emit(event: EventInput): void {
    this.events.push(event);
  }
  persist(state: SavedSwarm): void {
    this.saves.push(structuredClone(state));
  }
}

/** Items run until the test ends them; everything the runner asks is recorded. */
class FakeLauncher implements ItemLauncher {
  readonly started: number[] = [];
  readonly stopped: number[] = [];
  readonly kept: number[] = [];
  readonly capacities: number[] = [];
  /** Items whose run throws, or whose attempt rejects. */
  readonly refuse = new Set<number>();
  readonly crash = new Set<number>();
  private readonly open = new Map<number, { end: (attempt: Attempt) => void }>();

  constructor(
    private readonly items: readonly SwarmItem[],
    readonly sink: RecordingSink,
  ) {}

  get events(): EventInput[] {
    return this.sink.events;
  }

  get saves(): SavedSwarm[] {
    return this.sink.saves;
  }

  run(
    index: number,
    _item: LaunchableItem,
    report: (report: AttemptProgress) => void,
    signal: AbortSignal,
  ): Promise<Attempt> {
    if (this.refuse.has(index)) throw new Error(`cannot start ${index}`);
    this.started.push(index);
    let end!: (attempt: Attempt) => void;
    const done = new Promise<Attempt>((resolve) => (end = resolve));
    this.open.set(index, { end });
    signal.addEventListener('abort', () => {
      this.stopped.push(index);
      this.end(index, 'aborted');
    });
    report({ kind: 'launched', agentId: `a-${index}` });
    if (this.crash.has(index)) return Promise.reject(new Error(`lost ${index}`));
    return done;
  }
  async keep(index: number, result: ItemResult): Promise<ItemResult> {
    this.kept.push(index);
    return result.outcome === 'completed' ? result : { ...result, branch: `kept-${index}` };
  }
  capacity(capacity: number): void {
    this.capacities.push(capacity);
  }

  get running(): number[] {
    return [...this.open.keys()].sort((a, b) => a - b);
  }
  end(index: number, outcome: ItemResult['outcome'] = 'completed', text = `done ${index}`): void {
    const open = this.open.get(index);
    if (!open) return;
    this.open.delete(index);
    open.end({
      kind: 'done',
      result: { index, item: this.items[index]!.item, agentId: `a-${index}`, outcome, rounds: 0, text },
    });
  }
  limit(index: number, retryAfterMs: number): void {
    const open = this.open.get(index)!;
    this.open.delete(index);
    open.end({ kind: 'rate_limited', retryAfterMs, text: 'half way' });
  }
  itemStates(index: number): string[] {
    return this.events
      .filter((e) => e.type === 'swarm.item' && e.index === index)
      .map((e) => (e as { state: string }).state);
  }
}

function swarm(count: number, options: { burst?: number; rampMs?: number; cap?: number; done?: number[] } = {}) {
  const items: SwarmItem[] = Array.from({ length: count }, (_, i) =>
    queuedItem(`item-${i}`, { prompt: `Do item-${i}` }),
  );
  for (const i of options.done ?? [])
    items[i] = {
      ...items[i]!,
      status: 'done',
      result: { index: i, item: `item-${i}`, outcome: 'completed', rounds: 0, text: 'before' },
    };
  const clock = new FakeClock();
  const sink = new RecordingSink();
  const launcher = new FakeLauncher(items, sink);
  const controller = {
    ...DEFAULT_CONTROLLER_OPTIONS,
    initialBurst: options.burst ?? 2,
    rampIntervalMs: options.rampMs ?? 100,
    quietWindowMs: 1_000,
    ...(options.cap ? { maxConcurrency: options.cap } : {}),
  };
  const run = new SwarmRun(
    {
      swarmId: 's-1',
      description: 'test',
      template: 'Do {{item}}',
      items,
      role: 'worker',
      verify: false,
      maxRounds: 2,
      isolation: 'none',
      settings: { controller, itemTimeoutMs: 60_000, maxRounds: 2 },
    },
    launcher,
    sink,
    clock,
  );
  return { run, launcher, clock, items };
}

/** Lets the runner's promise chains run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('the swarm runner with a fake launcher and a fake clock', () => {
  it("launches nothing while the run's files have no room (writeRoom), and goes on once they do", async () => {
    const { run, launcher } = swarm(3, { burst: 3 });
    let give: () => void = () => undefined;
    let room: Promise<void> | undefined = new Promise<void>((resolve) => (give = resolve));
    launcher.sink.writeRoom = () => room;
    const done = run.run(new AbortController().signal);
    await flush();
    expect(launcher.started).toEqual([]);
    room = undefined;
    give();
    await flush();
    expect(launcher.started).toEqual([0, 1, 2]);
    for (const i of [0, 1, 2]) launcher.end(i);
    expect([...(await done)].map((r) => r.outcome)).toEqual(['completed', 'completed', 'completed']);
  });

  it('ramps on the clock: the burst at once, one more slot per interval, never past the cap', async () => {
    const { run, launcher, clock } = swarm(6, { burst: 2, rampMs: 100, cap: 3 });
    const done = run.run(new AbortController().signal);
    await flush();
    expect(launcher.started).toEqual([0, 1]);
    clock.advance(99);
    expect(launcher.started).toEqual([0, 1]);
    clock.advance(1);
    expect(launcher.started).toEqual([0, 1, 2]);
    clock.advance(500);
    expect(launcher.running).toEqual([0, 1, 2]);
    launcher.end(1);
    await flush();
    expect(launcher.started).toEqual([0, 1, 2, 3]);
    for (const i of [0, 2, 3]) launcher.end(i);
    await flush();
    for (const i of [4, 5]) launcher.end(i);
    const results = await done;
    expect([...results].map((r) => [r.index, r.outcome, r.text])).toEqual(
      [0, 1, 2, 3, 4, 5].map((i) => [i, 'completed', `done ${i}`]),
    );
    expect(launcher.itemStates(3)).toEqual(['queued', 'launched', 'completed']);
    const end = launcher.events.at(-1) as { type: string; counts: unknown; durationMs: number };
    expect(end).toMatchObject({ type: 'swarm.end', counts: { completed: 6 }, durationMs: 600 });
    // Saved as each item ended: the last state has every result.
    expect(launcher.saves.at(-1)!.items.every((i) => i.result?.outcome === 'completed')).toBe(true);
    // The launcher hears every capacity the swarm announces (a queue's workers follow it).
    const announced = launcher.events.flatMap((e) => (e.type === 'swarm.capacity' ? [e.capacity] : []));
    expect(announced.length).toBeGreaterThan(0);
    expect(launcher.capacities).toEqual(announced);
  });

  it('a rate limit puts the item back after its backoff and lowers the capacity; it launches again on the clock', async () => {
    const { run, launcher, clock } = swarm(3, { burst: 3, rampMs: 10_000 });
    const done = run.run(new AbortController().signal);
    await flush();
    expect(launcher.started).toEqual([0, 1, 2]);
    launcher.limit(1, 500);
    await flush();
    const limited = launcher.events.find((e) => e.type === 'swarm.item' && e.state === 'rate_limited') as {
      index: number;
      capacity: number;
      reason: string;
    };
    expect(limited).toMatchObject({ index: 1, capacity: 2 });
    expect(limited.reason).toMatch(/back in the queue in 0.5 s/);
    clock.advance(499);
    await flush();
    expect(launcher.started).toEqual([0, 1, 2]);
    launcher.end(0);
    clock.advance(1);
    await flush();
    expect(launcher.started).toEqual([0, 1, 2, 1]);
    launcher.end(1);
    launcher.end(2);
    const results = await done;
    expect([...results].map((r) => r.outcome)).toEqual(['completed', 'completed', 'completed']);
    expect(launcher.itemStates(1)).toEqual(['queued', 'launched', 'rate_limited', 'launched', 'completed']);
  });

  it('an abort stops running items, keeps the work of started ones, and marks the rest not started', async () => {
    const { run, launcher, clock } = swarm(4, { burst: 2, rampMs: 10_000 });
    const startedAt = clock.now();
    const stop = new AbortController();
    const done = run.run(stop.signal);
    await flush();
    launcher.limit(1, 5_000);
    await flush();
    stop.abort();
    const results = await done;
    expect(launcher.stopped).toEqual([0]);
    expect([...results].map((r) => [r.outcome, r.notStarted ?? false, r.branch])).toEqual([
      ['aborted', false, 'kept-0'],
      ['aborted', false, 'kept-1'],
      ['aborted', true, undefined],
      ['aborted', true, undefined],
    ]);
    // Nothing waited on the clock: the stop is immediate.
    expect(clock.now()).toBe(startedAt);
  });

  it('a resumed swarm launches only the unfinished items; finished ones are reported as before', async () => {
    const { run, launcher } = swarm(3, { burst: 5, done: [0, 2] });
    const done = run.run(new AbortController().signal);
    await flush();
    expect(launcher.started).toEqual([1]);
    launcher.end(1);
    const results = await done;
    expect([...results].map((r) => r.text)).toEqual(['before', 'done 1', 'before']);
    expect(launcher.itemStates(0)).toEqual(['completed']);
  });

  it('a launcher that cannot start or loses an item fails that item with the reason; the others go on', async () => {
    const { run, launcher } = swarm(3, { burst: 5 });
    launcher.refuse.add(0);
    launcher.crash.add(2);
    const done = run.run(new AbortController().signal);
    await flush();
    launcher.end(1);
    const results = await done;
    // Failed items keep their work like any unfinished item.
    expect([...results].map((r) => [r.outcome, r.reason, r.branch])).toEqual([
      ['failed', 'internal error: cannot start 0', 'kept-0'],
      ['completed', undefined, undefined],
      ['failed', 'internal error: lost 2', 'kept-2'],
    ]);
  });
});

/** A launcher with a commit step (as the queue launcher applies diffs there): records the order of commits and ends. */
class CommittingLauncher extends FakeLauncher {
  readonly commits: number[] = [];
  async commit(index: number, result: ItemResult): Promise<ItemResult> {
    this.commits.push(index);
    return { ...result, text: `${result.text} (committed)` };
  }
  /** Items in the order their results were recorded (their ended events). */
  get ends(): number[] {
    const outcomes = new Set(['completed', 'failed', 'aborted', 'conflict']);
    return this.events.flatMap((e) => (e.type === 'swarm.item' && outcomes.has(e.state) ? [e.index] : []));
  }
}

/** `count` items on a committing launcher, `slots` of them at once, on a fake clock. */
function committingSwarm(count: number, slots: number) {
  const items: SwarmItem[] = Array.from({ length: count }, (_, i) =>
    queuedItem(`item-${i}`, { prompt: `Do item-${i}` }),
  );
  const sink = new RecordingSink();
  const launcher = new CommittingLauncher(items, sink);
  const controller = {
    ...DEFAULT_CONTROLLER_OPTIONS,
    initialBurst: slots,
    rampIntervalMs: 100_000,
    quietWindowMs: 1_000,
    maxConcurrency: slots,
  };
  const settings = { controller, itemTimeoutMs: 60_000, maxRounds: 2 };
  const run = new SwarmRun(
    {
      swarmId: 's-1',
      description: 'test',
      items,
      role: 'worker',
      verify: false,
      maxRounds: 2,
      isolation: 'none',
      settings,
    },
    launcher,
    sink,
    new FakeClock(),
  );
  return { run, launcher, items };
}

describe('the swarm runner with a launcher that commits', () => {
  it('commits in item order: a later item waits only for earlier ones to end, and frees its capacity meanwhile', async () => {
    const { run, launcher } = committingSwarm(4, 3);
    const done = run.run(new AbortController().signal);
    await flush();
    expect(launcher.started).toEqual([0, 1, 2]);
    launcher.end(2);
    launcher.end(1);
    await flush();
    // Items 1 and 2 wait for item 0; their slots went to item 3.
    expect(launcher.commits).toEqual([]);
    expect(launcher.started).toEqual([0, 1, 2, 3]);
    expect(run.item(1).status).not.toBe('done');
    launcher.end(3);
    await flush();
    expect(launcher.commits).toEqual([]);
    launcher.end(0, 'failed');
    const results = await done;
    expect(launcher.commits).toEqual([0, 1, 2, 3]);
    expect(launcher.ends).toEqual([0, 1, 2, 3]);
    expect([...results].map((r) => r.text)).toEqual([0, 1, 2, 3].map((i) => `done ${i} (committed)`));
    expect(launcher.itemStates(2)).toEqual(['queued', 'launched', 'completed']);
  });

  it('an earlier item waiting out a rate limit holds later commits back until it ends, however it ends', async () => {
    const { run, launcher } = committingSwarm(2, 2);
    const stop = new AbortController();
    const done = run.run(stop.signal);
    await flush();
    launcher.limit(0, 60_000);
    launcher.end(1);
    await flush();
    expect(launcher.commits).toEqual([]);
    // Stopping ends item 0 where it waits (it never reaches the launcher again): item 1's commit goes.
    stop.abort();
    const results = await done;
    expect([...results].map((r) => r.outcome)).toEqual(['aborted', 'completed']);
    expect(launcher.commits).toEqual([1]);
  });
});
