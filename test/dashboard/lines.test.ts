// Plain progress lines: what CI logs and pipes show. A manual clock drives the summary timer.
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../orchestrator/clock.js';
import { EventBus, type EventInput } from '../../orchestrator/events.js';
import { colorAllowed, startLineReporter } from '../../dashboards/lines.js';
import { replayEvents } from '../fixtures/replay-dashboard.js';

/** A clock whose time moves only when the test says so. */
class ManualClock implements Clock {
  private time = 0;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 0;

  constructor(start: number) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.nextId;
    this.timers.push({ at: this.time + ms, fn, id });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.fn();
    }
    this.time = end;
  }

  get pending(): number {
    return this.timers.length;
  }
}

function setup(options: { color?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  const clock = new ManualClock(100_000);
  const bus = new EventBus(() => clock.now());
  let out = '';
  const reporter = startLineReporter({
    bus,
    out: { write: (text: string) => (out += text) },
    color: options.color ?? false,
    summaryEveryMs: 5000,
    clock,
    env: options.env ?? {},
  });
  const lines = () => out.split('\n').filter(Boolean);
  return { clock, bus, reporter, lines, raw: () => out };
}

const usage = { input: 1200, output: 300, cacheRead: 0, cacheWrite: 0 };

describe('plain progress lines', () => {
  it('prints a line when an agent starts and when it ends, with status and duration', () => {
    const { bus, clock, lines } = setup();
    bus.emit({ type: 'run.start', mode: 'run', task: 'T', model: 'scripted' });
    bus.emit({ type: 'agent.start', agentId: 'a-1', role: 'worker', prompt: 'Migrate src/a.js', item: 'src/a.js' });
    clock.advance(3200);
    bus.emit({
      type: 'agent.end',
      agentId: 'a-1',
      role: 'worker',
      status: 'completed',
      usage,
      turns: 3,
      toolCalls: 4,
      durationMs: 3200,
    });
    bus.emit({ type: 'agent.start', agentId: 'a-2', role: 'explore', prompt: 'Find the callers\nof foo' });
    bus.emit({ type: 'model.retry', agentId: 'a-2', status: 429, attempt: 1, delayMs: 500, reason: 'rate limited' });
    bus.emit({
      type: 'agent.end',
      agentId: 'a-2',
      role: 'explore',
      status: 'failed',
      reason: 'HTTP 500: boom',
      usage,
      turns: 1,
      toolCalls: 0,
      durationMs: 61_000,
    });
    expect(lines()).toEqual([
      '[0:00] ▶ a-1 (worker) src/a.js started',
      '[0:03] ✓ a-1 (worker) src/a.js completed in 3.2s · 3 turns · 4 tool calls · 1.5k tokens',
      '[0:03] ▶ a-2 (explore) Find the callers of foo started',
      '[0:03] ↻ a-2 retry 1 after 429 in 500ms: rate limited',
      '[0:03] ✗ a-2 (explore) Find the callers of foo failed in 1m01s · 1 turn · 0 tool calls · 1.5k tokens: HTTP 500: boom',
    ]);
  });

  it('prints a summary every few seconds while work runs, stays quiet when idle, and a final report', () => {
    const { bus, clock, lines, reporter } = setup();
    clock.advance(5000);
    expect(lines()).toEqual([]); // nothing started: nothing to summarise
    const { events } = replayEvents(20, clock.now());
    for (const event of events) bus.emit(event as EventInput);
    const before = lines().length;
    clock.advance(5000);
    const summary = lines().slice(before);
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatch(
      /^\[\d+:\d\d\] 10\/20 done · 5 running · 1 queued · 1 rate-limited · 2 failed · 1 aborted · tokens 2\dk in \/ 1\.\dk out · RATE LIMITED$/,
    );
    clock.advance(10_000);
    expect(lines().length).toBe(before + 3); // still running: a heartbeat every interval

    bus.emit({ type: 'run.end', status: 'aborted', usage });
    expect(lines().at(-1)).toMatch(/^\[\d+:\d\d\] run aborted in \d+(\.\d)?s · 10\/20 done/);
    reporter.stop();
    clock.advance(20_000);
    expect(lines().length).toBe(before + 4);
  });

  it('is quiet between summaries when nothing changed and nothing runs', () => {
    const { bus, clock, lines } = setup();
    bus.emit({ type: 'agent.start', agentId: 'a', role: 'worker', prompt: 'p' });
    bus.emit({
      type: 'agent.end',
      agentId: 'a',
      role: 'worker',
      status: 'completed',
      usage,
      turns: 1,
      toolCalls: 0,
      durationMs: 10,
    });
    clock.advance(5000);
    expect(lines().at(-1)).toBe('[0:05] 1/1 done · tokens 1.2k in / 300 out');
    const count = lines().length;
    clock.advance(30_000);
    expect(lines().length).toBe(count);
  });

  it("keeps a thousand of a swarm's ended agents, not every one, and still prints each line and the counts", () => {
    const { bus, lines, reporter } = setup();
    const count = 2500;
    const items = Array.from({ length: count }, (_, i) => `f${i}`);
    bus.emit({ type: 'swarm.start', swarmId: 's-1', description: 'Touch', role: 'worker', items });
    for (const [index, item] of items.entries()) {
      const agentId = `a-${index + 1}`;
      bus.emit({ type: 'agent.start', agentId, role: 'worker', prompt: `Touch ${item}`, item, swarmId: 's-1' });
      bus.emit({
        type: 'agent.end',
        agentId,
        role: 'worker',
        status: 'completed',
        usage,
        turns: 1,
        toolCalls: 0,
        durationMs: 5,
      });
      bus.emit({ type: 'swarm.item', swarmId: 's-1', item, index, state: 'completed', agentId });
    }
    expect(reporter.snapshot.agents.size).toBeLessThanOrEqual(1000);
    expect(reporter.snapshot.agents.has(`a-${count}`)).toBe(true);
    expect(lines().filter((l) => / completed in /.test(l))).toHaveLength(count);
    expect(lines().at(-1)).toMatch(/a-2500 \(worker\) f2499 completed/);
    expect(reporter.summary()).toMatch(/^2500\/2500 done/);
  });

  it('prints swarm milestones: start, rate limits, verdicts, conflicts and the end', () => {
    const { bus, lines } = setup();
    bus.emit({ type: 'swarm.start', swarmId: 's-1', description: 'Convert to ESM', role: 'worker', items: ['a', 'b'] });
    bus.emit({
      type: 'swarm.item',
      swarmId: 's-1',
      item: 'a',
      index: 0,
      state: 'rate_limited',
      agentId: 'w-1',
      capacity: 3,
      reason: 'HTTP 429',
    });
    // As the runner says it: the verdict as it comes in, then the item's end repeating it for the row.
    bus.emit({
      type: 'swarm.item',
      swarmId: 's-1',
      item: 'a',
      index: 0,
      state: 'verifying',
      agentId: 'w-1',
      rounds: 1,
    });
    bus.emit({
      type: 'swarm.item',
      swarmId: 's-1',
      item: 'a',
      index: 0,
      state: 'verifying',
      agentId: 'w-1',
      verifierId: 'v-1',
      verdict: 'pass',
      rounds: 1,
    });
    bus.emit({
      type: 'swarm.item',
      swarmId: 's-1',
      item: 'a',
      index: 0,
      state: 'completed',
      agentId: 'w-1',
      verdict: 'pass',
      rounds: 1,
    });
    bus.emit({
      type: 'swarm.item',
      swarmId: 's-1',
      item: 'b',
      index: 1,
      state: 'conflict',
      agentId: 'w-2',
      reason: 'merge conflict',
    });
    bus.emit({ type: 'swarm.end', swarmId: 's-1', counts: { completed: 1, conflict: 1, failed: 0 }, durationMs: 4000 });
    bus.emit({ type: 'log', level: 'warn', message: 'MURMUR_SWARM_MAX_ITEMS=abc is not a positive integer; ignored' });
    expect(lines()).toEqual([
      '[0:00] swarm s-1 started: 2 items (worker) — Convert to ESM',
      '[0:00] ⏸ w-1 a rate limited; capacity now 3: HTTP 429',
      '[0:00] ✓ w-1 a verdict pass (round 1)',
      '[0:00] ✗ w-2 b conflict: merge conflict',
      '[0:00] swarm s-1 ended in 4.0s: completed 1, conflict 1',
      '[0:00] warn MURMUR_SWARM_MAX_ITEMS=abc is not a positive integer; ignored',
    ]);
  });

  it('colours only when asked and NO_COLOR is not set', () => {
    const emit = (bus: EventBus) => {
      bus.emit({ type: 'agent.start', agentId: 'a', role: 'worker', prompt: 'p' });
      bus.emit({
        type: 'agent.end',
        agentId: 'a',
        role: 'worker',
        status: 'failed',
        reason: 'x',
        usage,
        turns: 1,
        toolCalls: 0,
        durationMs: 10,
      });
    };
    const colored = setup({ color: true, env: {} });
    emit(colored.bus);
    expect(colored.raw()).toContain('\x1b[31m✗\x1b[0m');

    const noColor = setup({ color: true, env: { NO_COLOR: '1' } });
    emit(noColor.bus);
    expect(noColor.raw()).not.toContain('\x1b[');
    expect(noColor.lines()[1]).toBe('[0:00] ✗ a (worker) p failed in 10ms · 1 turn · 0 tool calls · 1.5k tokens: x');

    const notAsked = setup({ color: false, env: {} });
    emit(notAsked.bus);
    expect(notAsked.raw()).not.toContain('\x1b[');

    expect(colorAllowed(true, { NO_COLOR: '' })).toBe(true); // an empty NO_COLOR does not count (no-color.org)
    expect(colorAllowed(true, { NO_COLOR: '0' })).toBe(false);
  });

  it('keeps agent text from driving the terminal, and survives a closed output', () => {
    const { bus, lines } = setup();
    bus.emit({ type: 'agent.start', agentId: 'a', role: 'worker', prompt: 'evil \x1b[2J\x1b]0;pwned\x07prompt' });
    expect(lines()).toEqual(['[0:00] ▶ a (worker) evil prompt started']);

    const clock = new ManualClock(0);
    const closed = new EventBus(() => clock.now());
    const reporter = startLineReporter({
      bus: closed,
      out: {
        write: () => {
          throw new Error('EPIPE');
        },
      },
      clock,
      env: {},
    });
    expect(() => closed.emit({ type: 'agent.start', agentId: 'a', role: 'worker', prompt: 'p' })).not.toThrow();
    reporter.stop();
    expect(clock.pending).toBe(0);
    expect(() => startLineReporter({ bus: closed, out: { write: () => true }, summaryEveryMs: 0 })).toThrow(
      /summaryEveryMs must be a positive number of milliseconds, got 0/,
    );
  });
});
