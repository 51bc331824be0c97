// The view model from recorded event sequences: one recorded from a real agent on the scripted model,
// one generated swarm (the same the terminal test replays), and hand-written swarm episodes.
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../orchestrator/agent.js';
import { EventBus, type EventInput, type MurmurEvent } from '../../orchestrator/events.js';
import { withRetries } from '../../orchestrator/models/retry.js';
import { ScriptedModel } from '../../orchestrator/models/scripted.js';
import { defineRuntimeTool } from '../../tools/contract.js';
import { toLoopTools } from '../../tools/loop-tools.js';
import {
  activity,
  agentCounts,
  agentElapsedMs,
  concurrency,
  elapsedMs,
  initialSnapshot,
  isRateLimited,
  progress,
  rates,
  reduce,
  sortedAgents,
  transcriptTail,
  type Snapshot,
} from '../../dashboards/view-model.js';
import { renderHeader } from '../../dashboards/tui-render.js';
import { replayEvents } from '../fixtures/replay-dashboard.js';

/** Runs one real agent on the scripted model and returns every event it emitted. */
async function recordAgentRun(): Promise<MurmurEvent[]> {
  const bus = new EventBus();
  const events: MurmurEvent[] = [];
  bus.on('*', (event) => events.push(event));
  const readFile = defineRuntimeTool({
    def: {
      name: 'read',
      description: 'read a file',
      parameters: Type.Object({ path: Type.String() }),
      executionMode: 'parallel',
    },
    execute: (_ctx, input) => ({
      content: [{ type: 'text', text: `export const name = '${input.path}';\nsecond line` }],
    }),
  });
  const model = new ScriptedModel({
    agents: [
      {
        match: { prompt: 'Migrate (\\S+)' },
        turns: [
          {
            text: 'Reading $1 first.\nThen editing.',
            toolCalls: [{ name: 'read', arguments: { path: '$1' } }],
            usage: { input: 1000, output: 50, cost: 0.01 },
          },
          {
            failFirst: { status: 429, times: 1, retryAfterMs: 1 },
            text: 'Migrated $1',
            usage: { input: 1500, output: 20, cost: 0.02 },
          },
        ],
      },
    ],
  });
  const callModel = withRetries(model, { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 }, (notice) => {
    const retry: EventInput = {
      type: 'model.retry',
      agentId: notice.agentId,
      attempt: notice.attempt,
      delayMs: notice.delayMs,
      reason: notice.error.message,
    };
    if (notice.error.status !== undefined) retry.status = notice.error.status;
    bus.emit(retry);
  });
  const tools = toLoopTools([readFile], { fallback: false });
  const agent = new Agent(
    { id: 'w-1', role: 'worker', item: 'src/a.js' },
    {
      system: '',
      maxTurns: 5,
      callModel: (r, s) => callModel.complete(r, s),
      toolsForTurn: () => tools,
      context: { agentId: 'w-1', role: 'worker', cwd: '/tmp' },
    },
    bus,
  );
  const result = await agent.run('Migrate src/a.js to ESM');
  expect(result.status).toBe('completed');
  return events;
}

function fold(events: readonly (MurmurEvent | EventInput)[], snapshot = initialSnapshot({ now: 0 })): Snapshot {
  for (const event of events) reduce(snapshot, { ts: 0, ...event } as MurmurEvent);
  return snapshot;
}

describe('the view model', () => {
  it('folds a recorded agent run into its row: turns, tool calls, tokens, cost, retries and transcript', async () => {
    const events = await recordAgentRun();
    const s = fold(events, initialSnapshot({ now: events[0]!.ts, title: 'demo', model: 'scripted' }));
    const agent = s.agents.get('w-1')!;
    expect(agent).toMatchObject({
      role: 'worker',
      item: 'src/a.js',
      state: 'completed',
      turns: 2,
      toolCalls: 1,
      lastLine: 'Migrated src/a.js',
    });
    expect(agent.usage).toMatchObject({ input: 2500, output: 70 });
    expect(agent.usage.cost).toBeCloseTo(0.03);
    expect(s.usage).toMatchObject({ input: 2500, output: 70 });
    expect(s.costKnown).toBe(true);
    expect(s.retries).toBe(1);
    expect(agent.transcript.tail()).toEqual([
      '▶ started (worker): Migrate src/a.js to ESM',
      '› Migrate src/a.js to ESM',
      'Reading src/a.js first.',
      'Then editing.',
      '⚙ read {"path":"src/a.js"}',
      "  ✓ export const name = 'src/a.js';",
      '    second line',
      '↻ retry 1 after 429 in 1ms: scripted failure: HTTP 429',
      'Migrated src/a.js',
      expect.stringMatching(/^■ completed in \d+ms$/),
    ]);
    expect(s.log.tail().map((e) => e.text)).toEqual(['w-1 retry 1 after 429 in 1ms: scripted failure: HTTP 429']);
    expect(progress(s)).toMatchObject({ completed: 1, total: 1 });
  });

  it('counts a generated swarm by state and sorts running agents first', () => {
    const { events, plan } = replayEvents(40, 1_000);
    const s = fold(events);
    expect(progress(s)).toEqual({
      completed: 20,
      running: 5,
      queued: 11,
      rateLimited: 1,
      failed: 2,
      aborted: 1,
      waiting: 0,
      total: 40,
    });
    expect(agentCounts(s)).toMatchObject({ completed: 20, running: 5, rate_limited: 1, failed: 2, aborted: 1 });
    const order = sortedAgents(s).map((a) => a.id);
    expect(order.slice(0, 5)).toEqual(plan.running);
    expect(order.slice(5, 9)).toEqual(['a-23', 'a-22', 'a-21', 'a-24']);
    expect(order.slice(9)).toEqual([...plan.completed].reverse());
    expect(isRateLimited(s)).toBe(true);
    expect(s.title).toBe('Migrate the fixtures to ESM');
    expect(s.model).toBe('scripted:replay');
    const running = s.agents.get(plan.running[0]!)!;
    expect(activity(running, 0)).toBe('⚙ bash 24 passing');
    expect(transcriptTail(running, 3)).toEqual([
      '⚙ bash {"command":"npm test"}',
      'Step 2 of 3 for src/file-25.js',
      '  ⋯ bash: 24 passing',
    ]);
    expect(s.agents.get('a-01')).toMatchObject({ verdict: 'pass', rounds: 1, state: 'completed' });
    expect(activity(s.agents.get('a-21')!, 0)).toBe('old_string not found');
  });

  it('holds RATE LIMITED from a rate-limited item until capacity is back', () => {
    const s = initialSnapshot({ now: 0 });
    const item = (index: number, state: string, capacity: number, running: number, agentId?: string): EventInput =>
      ({
        type: 'swarm.item',
        swarmId: 's',
        item: `i${index}`,
        index,
        state,
        capacity,
        running,
        ...(agentId ? { agentId } : {}),
      }) as EventInput;
    fold(
      [
        {
          type: 'swarm.start',
          swarmId: 's',
          description: 'd',
          role: 'worker',
          items: ['i0', 'i1', 'i2', 'i3', 'i4', 'i5', 'i6', 'i7'],
          maxConcurrency: 6,
        },
      ],
      s,
    );
    fold(
      [item(0, 'launched', 5, 1), item(1, 'launched', 5, 2), item(2, 'launched', 5, 3), item(3, 'launched', 6, 4)],
      s,
    );
    expect(isRateLimited(s)).toBe(false);
    expect(concurrency(s)).toEqual({ running: 4, capacity: 6, max: 6 });

    fold([item(3, 'rate_limited', 3, 3)], s);
    expect(isRateLimited(s)).toBe(true);
    expect(progress(s)).toMatchObject({ rateLimited: 1, running: 3, queued: 4 });
    fold([item(3, 'launched', 3, 4), item(0, 'completed', 4, 3)], s);
    expect(isRateLimited(s)).toBe(true); // relaunched, but capacity is still below where it was
    fold([item(4, 'launched', 5, 4)], s);
    expect(isRateLimited(s)).toBe(true);
    fold([item(5, 'launched', 6, 5)], s);
    expect(isRateLimited(s)).toBe(false);

    // A second episode ends when nothing is left in the queue to hold back.
    fold([item(6, 'rate_limited', 4, 4)], s);
    expect(isRateLimited(s)).toBe(true);
    fold([item(6, 'launched', 4, 5), item(7, 'launched', 4, 6)], s);
    expect(isRateLimited(s)).toBe(false);
    expect(
      s.log
        .tail()
        .filter((e) => e.level === 'warn')
        .map((e) => e.text),
    ).toEqual(['item 4 i3 rate limited; capacity now 3', 'item 7 i6 rate limited; capacity now 4']);
  });

  it('shows verdicts, conflicts and verification on the worker rows, and logs them', () => {
    const s = fold([
      { type: 'swarm.start', swarmId: 's', description: 'd', role: 'worker', items: ['a', 'b'] },
      { type: 'agent.start', agentId: 'w1', role: 'worker', prompt: 'do a', swarmId: 's', item: 'a' },
      { type: 'agent.start', agentId: 'w2', role: 'worker', prompt: 'do b', swarmId: 's', item: 'b' },
      {
        type: 'agent.end',
        agentId: 'w1',
        role: 'worker',
        status: 'completed',
        usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        turns: 1,
        toolCalls: 0,
        durationMs: 5,
      },
      {
        type: 'agent.end',
        agentId: 'w2',
        role: 'worker',
        status: 'completed',
        usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        turns: 1,
        toolCalls: 0,
        durationMs: 5,
      },
      { type: 'swarm.item', swarmId: 's', item: 'a', index: 0, state: 'verifying', agentId: 'w1', rounds: 2 },
    ]);
    expect(s.agents.get('w1')!.state).toBe('verifying');
    expect(progress(s)).toMatchObject({ running: 1, queued: 1 });
    fold(
      [
        {
          type: 'swarm.item',
          swarmId: 's',
          item: 'a',
          index: 0,
          state: 'verifying',
          agentId: 'w1',
          verifierId: 'v1',
          verdict: 'fail',
          rounds: 2,
          reason: 'tests still fail',
        },
        {
          type: 'swarm.item',
          swarmId: 's',
          item: 'a',
          index: 0,
          state: 'failed',
          agentId: 'w1',
          verdict: 'fail',
          rounds: 2,
          reason: 'tests still fail',
        },
        {
          type: 'swarm.item',
          swarmId: 's',
          item: 'b',
          index: 1,
          state: 'conflict',
          agentId: 'w2',
          reason: 'merge conflict in b',
        },
        { type: 'swarm.end', swarmId: 's', counts: { failed: 1, conflict: 1 }, durationMs: 2000 },
      ],
      s,
    );
    expect(s.agents.get('w1')).toMatchObject({
      state: 'failed',
      verdict: 'fail',
      rounds: 2,
      reason: 'tests still fail',
    });
    expect(s.agents.get('w2')).toMatchObject({ state: 'conflict', reason: 'merge conflict in b' });
    expect(progress(s)).toMatchObject({ failed: 2, total: 2 });
    expect(s.log.tail().map((e) => e.text)).toEqual([
      'swarm s started: 2 items (worker) — d',
      'w1 a verdict fail (round 2, by v1): tests still fail',
      'w1 a failed: tests still fail',
      'w2 b conflict: merge conflict in b',
      'swarm s ended after 2.0s (failed: 1, conflict: 1)',
    ]);
  });

  it('counts running swarm items from their states, so the header follows every start and end', () => {
    const item = (index: number, state: string): EventInput =>
      ({ type: 'swarm.item', swarmId: 's', item: `i${index}`, index, state, agentId: `w${index}` }) as EventInput;
    const s = fold([
      {
        type: 'swarm.start',
        swarmId: 's',
        description: 'd',
        role: 'worker',
        items: ['i0', 'i1', 'i2', 'i3'],
        maxConcurrency: 3,
      },
      { type: 'swarm.capacity', swarmId: 's', capacity: 3, running: 3, limited: false },
      item(0, 'launched'),
      item(1, 'launched'),
      item(2, 'launched'),
    ]);
    expect(concurrency(s)).toEqual({ running: 3, capacity: 3, max: 3 });
    // No capacity event after these: the count still follows the items.
    fold([item(0, 'completed'), item(1, 'verifying'), item(2, 'failed'), item(3, 'launched')], s);
    expect(concurrency(s)).toEqual({ running: 2, capacity: 3, max: 3 });
    fold([item(1, 'completed'), item(3, 'completed')], s);
    expect(concurrency(s)).toEqual({ running: 0, capacity: 3, max: 3 });
    expect(renderHeader(s, 0, 120, { aborting: false })[1]).toContain('running 0 / capacity 3 (max 3)');
  });

  it('keeps memory bounded: fixed transcript and log caps, capped line lengths', () => {
    const s = initialSnapshot({ now: 0, limits: { transcriptLines: 50, lineChars: 80, logEntries: 10 } });
    fold([{ type: 'agent.start', agentId: 'x', role: 'worker', prompt: 'p' }], s);
    for (let i = 0; i < 5000; i++)
      reduce(s, { type: 'message.delta', agentId: 'x', text: `line ${i} ${'y'.repeat(200)}\n`, ts: i });
    for (let i = 0; i < 100; i++) reduce(s, { type: 'log', level: 'warn', message: `warning ${i}`, ts: i });
    const agent = s.agents.get('x')!;
    expect(agent.transcript.size).toBe(50);
    expect(agent.transcript.tail(1)[0]).toMatch(/^line 4999 y+…$/);
    expect(agent.transcript.tail().every((line) => line.length <= 80)).toBe(true);
    // A line that never ends keeps its newest text for the table.
    for (let i = 0; i < 100; i++) reduce(s, { type: 'message.delta', agentId: 'x', text: `word${i} `, ts: i });
    expect(agent.lastLine).toMatch(/^….*word99$/);
    expect(agent.lastLine.length).toBeLessThanOrEqual(80);
    expect(s.log.size).toBe(10);
    expect(s.log.tail()[0]!.text).toBe('warning 90');
    expect(() => initialSnapshot({ now: 0, limits: { transcriptLines: 0 } })).toThrow(
      /transcriptLines must be a positive integer, got 0/,
    );
  });

  it('strips terminal escapes from streamed text and keeps the latest line for the table', () => {
    const s = fold([
      { type: 'agent.start', agentId: 'x', role: 'explore', prompt: 'look\x1b[31m red\x1b[0m' },
      { type: 'message.delta', agentId: 'x', text: 'first \x1b]0;title\x07line\nsecond ' },
      { type: 'message.delta', agentId: 'x', text: 'li\x07ne' },
    ]);
    const agent = s.agents.get('x')!;
    expect(agent.prompt).toBe('look red');
    expect(agent.transcript.tail()).toEqual(['▶ started (explore): look red', 'first line']);
    expect(agent.lastLine).toBe('second line');
    expect(transcriptTail(agent, 10).at(-1)).toBe('second line');
  });

  it('measures elapsed time on the injected clock; a resumed agent restarts its clock and keeps its totals', () => {
    const usage = (input: number) => ({ input, output: 10, cacheRead: 0, cacheWrite: 0 });
    const s = fold([
      { type: 'run.start', mode: 'run', task: 'T', model: 'm', ts: 1_000 },
      { type: 'agent.start', agentId: 'a', role: 'worker', prompt: 'p', ts: 2_000 },
      { type: 'turn.start', agentId: 'a', turn: 1, ts: 2_000 },
      { type: 'turn.end', agentId: 'a', turn: 1, toolCalls: 0, usage: usage(100), ts: 3_000 },
      // agent.end carries the run's usage: 150, though the turn events said 100.
      {
        type: 'agent.end',
        agentId: 'a',
        role: 'worker',
        status: 'completed',
        usage: usage(150),
        turns: 1,
        toolCalls: 0,
        durationMs: 2000,
        ts: 4_000,
      },
    ]);
    const agent = s.agents.get('a')!;
    expect(elapsedMs(s, 11_000)).toBe(10_000);
    expect(agentElapsedMs(agent, 11_000)).toBe(2_000);
    expect(agent.usage.input).toBe(150);
    expect(s.usage.input).toBe(150);
    expect(rates(s, 11_000)).toEqual({ tokensPerSecond: 16, agentsPerMinute: 6 });

    fold(
      [
        { type: 'agent.start', agentId: 'a', role: 'worker', prompt: 'p', resumed: true, ts: 20_000 },
        { type: 'turn.start', agentId: 'a', turn: 2, ts: 20_000 },
        { type: 'turn.end', agentId: 'a', turn: 2, toolCalls: 0, usage: usage(50), ts: 21_000 },
      ],
      s,
    );
    expect(agent.state).toBe('running');
    expect(agentElapsedMs(agent, 25_000)).toBe(5_000);
    expect(agent.turns).toBe(2);
    expect(agent.usage.input).toBe(200);
    fold(
      [
        {
          type: 'agent.end',
          agentId: 'a',
          role: 'worker',
          status: 'failed',
          reason: 'boom',
          usage: usage(50),
          turns: 1,
          toolCalls: 0,
          durationMs: 1000,
          ts: 21_000,
        },
      ],
      s,
    );
    expect(agent.usage.input).toBe(200);
    expect(s.usage.input).toBe(200);
    expect(s.log.tail().at(-1)!.text).toBe('a p failed in 1.0s: boom');
    fold([{ type: 'run.end', status: 'failed', usage: usage(200), ts: 30_000 }], s);
    expect(elapsedMs(s, 99_000)).toBe(29_000);
  });

  it('counts agents when there is no swarm, and ignores event types it does not know', () => {
    const s = fold([
      { type: 'agent.start', agentId: 'm', role: 'main', prompt: 'p' },
      { type: 'agent.start', agentId: 'c', role: 'explore', prompt: 'q', parentId: 'm' },
      { type: 'tool.start', agentId: 'c', tool: 'grep', callId: '1', args: '{}' },
      { type: 'model.retry', agentId: 'm', status: 503, attempt: 2, delayMs: 4000, reason: 'overloaded', ts: 1000 },
    ]);
    const version = s.version;
    reduce(s, { type: 'something.new', ts: 0 } as unknown as MurmurEvent);
    expect(s.version).toBe(version);
    expect(progress(s)).toMatchObject({ running: 2, total: 2 });
    expect(concurrency(s)).toEqual({ running: 2 });
    expect(activity(s.agents.get('c')!, 0)).toBe('⚙ grep {}');
    expect(activity(s.agents.get('m')!, 2000)).toBe('↻ retry 2 (503) in 3.0s');
  });
});
