// A big swarm's timeline file, written from the run's events and read back as the console reads it: each item's
// times, state, worker, tokens, retries and verdicts; why items failed; a resume that goes on in the same file; a
// small swarm that gets none; a file that cannot be written; the buckets and drill-down slices made from it; and the
// labels read back by index.
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../../orchestrator/events.js';
import { recordSwarmTimelines } from '../../orchestrator/timeline-recorder.js';
import {
  HEADER_BYTES,
  readReasons,
  readRecord,
  RECORD_BYTES,
  TIMELINE_FROM_ITEMS,
  TimelineReader,
  type TimelineRecord,
} from '../../orchestrator/timeline-file.js';
import { bucketSize, bucketTimeline, itemSlice } from '../../dashboards/web/bucket-model.js';
import { readItemLabels, writeItemLabels } from '../../orchestrator/timeline-labels.js';
import { bigSessionModel } from '../../dashboards/web/big-session.js';

const COUNT = TIMELINE_FROM_ITEMS + 1000;
const T0 = 1_800_000_000_000;
const usage = (input: number, output: number) => ({ input, output, cacheRead: 0, cacheWrite: 0 });
let dir: string;

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A bus with a timeline recorder on `dir` (a new temp folder unless one is given). */
function recording(into?: string) {
  dir = into ?? mkdtempSync(join(tmpdir(), 'murmur-timeline-'));
  const bus = new EventBus();
  return { bus, recorder: recordSwarmTimelines(bus, dir) };
}

function start(bus: EventBus, count = COUNT, ts = T0) {
  const items = Array.from({ length: count }, (_, i) => `file-${i}.ts`);
  bus.emit({ type: 'swarm.start', swarmId: 's-1', description: 'refactor', role: 'worker', items, ts });
  for (let i = 0; i < count; i++)
    bus.emit({ type: 'swarm.item', swarmId: 's-1', item: items[i]!, index: i, state: 'queued', ts });
}

function item(bus: EventBus, index: number, state: string, at: number, extra: Record<string, unknown> = {}) {
  bus.emit({
    type: 'swarm.item',
    swarmId: 's-1',
    item: `file-${index}.ts`,
    index,
    state,
    ts: T0 + at,
    ...extra,
  } as never);
}

function records(from: number, to: number): TimelineRecord[] {
  const reader = TimelineReader.open(dir, 's-1');
  if (typeof reader === 'string') throw new Error(reader);
  const out: TimelineRecord[] = [];
  reader.forEach(from, to, (_i, bytes, at) => out.push(readRecord(bytes, at)));
  reader.close();
  return out;
}

describe('the swarm timeline file', () => {
  it('holds every item of a big swarm at a fixed place, and why the failed ones failed', () => {
    const { bus, recorder } = recording();
    start(bus);
    item(bus, 0, 'launched', 10, { agentId: 'a-1' });
    bus.emit({
      type: 'model.retry',
      agentId: 'a-1',
      attempt: 1,
      delayMs: 5,
      reason: '429',
      status: 429,
      swarmId: 's-1',
      ts: T0 + 12,
    });
    bus.emit({
      type: 'agent.end',
      agentId: 'a-1',
      role: 'worker',
      status: 'completed',
      usage: usage(100, 20),
      turns: 1,
      toolCalls: 0,
      durationMs: 5,
      swarmId: 's-1',
      item: 'file-0.ts',
      ts: T0 + 15,
    });
    item(bus, 0, 'verifying', 16, { agentId: 'a-1', verifierId: 'a-9' });
    bus.emit({
      type: 'agent.end',
      agentId: 'a-9',
      role: 'verifier',
      status: 'completed',
      usage: usage(7, 3),
      turns: 1,
      toolCalls: 0,
      durationMs: 5,
      swarmId: 's-1',
      item: 'file-0.ts',
      ts: T0 + 19,
    });
    item(bus, 0, 'completed', 20, { agentId: 'a-1', verdict: 'pass', rounds: 1 });
    item(bus, COUNT - 1, 'launched', 30, { agentId: 'a-2' });
    item(bus, COUNT - 1, 'failed', 45, { agentId: 'a-2', reason: 'the model refused' });
    item(bus, 7, 'launched', 40, { agentId: 'a-3' });
    recorder.close();

    const file = join(dir, 'timeline-s-1.bin');
    expect(statSync(file).size).toBe(HEADER_BYTES + COUNT * RECORD_BYTES);
    const [first] = records(0, 1);
    expect(first).toEqual({ start: 10, end: 20, tokens: 130, agent: 1, state: 4, verdict: 1, rounds: 1, retries: 1 });
    expect(records(7, 8)[0]).toMatchObject({ start: 40, end: 40, agent: 3, state: 1 });
    expect(records(COUNT - 1, COUNT)[0]).toMatchObject({ start: 30, end: 45, agent: 2, state: 5 });
    // An item that never moved reads as queued, with no times.
    expect(records(3, 4)[0]).toMatchObject({ start: -1, end: -1, agent: 0, state: 0 });
    expect(readReasons(dir, 's-1', 0, COUNT)).toEqual(new Map([[COUNT - 1, 'the model refused']]));
  });

  it('goes on in the same file when the swarm is resumed, keeping what ended before', () => {
    const { bus: first, recorder: killed } = recording();
    start(first);
    item(first, 0, 'launched', 10, { agentId: 'a-1' });
    item(first, 0, 'completed', 20, { agentId: 'a-1' });
    item(first, 1, 'launched', 12, { agentId: 'a-2' });
    item(first, 2, 'launched', 13, { agentId: 'a-3' });
    item(first, 2, 'completed', 14, { agentId: 'a-3' });
    killed.close(); // killed here: item 1 was running
    // ...and item 2's end was in the second the killed process had not written yet.
    const fd = openSync(join(dir, 'timeline-s-1.bin'), 'r+');
    writeSync(fd, Buffer.alloc(RECORD_BYTES), 0, RECORD_BYTES, HEADER_BYTES + 2 * RECORD_BYTES);
    closeSync(fd);

    const { bus: second, recorder } = recording(dir);
    const items = Array.from({ length: COUNT }, (_, i) => `file-${i}.ts`);
    second.emit({ type: 'swarm.start', swarmId: 's-1', description: 'refactor', role: 'worker', items, ts: T0 + 5000 });
    item(second, 0, 'completed', 5001, { reason: 'finished before the resume' });
    item(second, 2, 'completed', 5001, { reason: 'finished before the resume' });
    item(second, 1, 'queued', 5001);
    item(second, 1, 'launched', 5100, { agentId: 'a-7' });
    item(second, 1, 'completed', 5200, { agentId: 'a-7' });
    second.emit({ type: 'swarm.end', swarmId: 's-1', counts: {}, durationMs: 1, ts: T0 + 5300 });
    recorder.close();

    const [done, resumed, lost] = records(0, 3);
    // t0 stays the first start's: the item that ended before keeps its times.
    expect(done).toMatchObject({ start: 10, end: 20, state: 4, agent: 1 });
    expect(resumed).toMatchObject({ start: 12, end: 5200, state: 4, agent: 7 });
    // Its outcome comes back with the resume's restatement (its times were lost with the process).
    expect(lost).toMatchObject({ start: -1, end: -1, state: 4 });
    const reader = TimelineReader.open(dir, 's-1') as TimelineReader;
    expect(reader.header).toMatchObject({ t0: T0, count: COUNT, endedAt: T0 + 5300 });
    reader.close();
  });

  it('that cannot be written costs a warning, never the run', () => {
    dir = mkdtempSync(join(tmpdir(), 'murmur-timeline-'));
    // The reasons file's place is taken by a folder: the file cannot be made.
    mkdirSync(join(dir, 'timeline-s-1.reasons.jsonl'));
    const { bus, recorder } = recording(dir);
    const logs: string[] = [];
    bus.on('log', (e) => logs.push(`${e.level}: ${e.message}`));
    start(bus);
    item(bus, 0, 'launched', 10, { agentId: 'a-1' });
    item(bus, 0, 'completed', 20, { agentId: 'a-1' });
    recorder.close();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(
      /^warn: the swarm timeline in .* could not be written \(EISDIR.*the console will show less of this swarm$/,
    );
  });

  it('is not written for a small swarm', () => {
    const { bus, recorder } = recording();
    start(bus, TIMELINE_FROM_ITEMS - 1);
    recorder.close();
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('buckets of a big swarm', () => {
  it('keep at most 1,000 rows of 1, 2 or 5 × a power of ten items', () => {
    expect([1, 999, 1000, 1001, 6000, 20_000, 1_000_000, 1_000_001].map(bucketSize)).toEqual([
      1, 1, 1, 2, 10, 20, 1000, 2000,
    ]);
  });

  it('say each row’s state mix and span, and a drill-down gives its items one by one', () => {
    const { bus, recorder } = recording();
    start(bus);
    for (let i = 0; i < 10; i++) {
      item(bus, i, 'launched', 100 + i, { agentId: `a-${i + 1}` });
      item(bus, i, i === 4 ? 'failed' : 'completed', 200 + i, {
        agentId: `a-${i + 1}`,
        ...(i === 4 ? { reason: 'tests failed' } : {}),
      });
    }
    item(bus, 10, 'launched', 150, { agentId: 'a-11' });
    recorder.close();
    writeFileSync(
      join(dir, 'state.json'),
      JSON.stringify({
        version: 4,
        id: 'x',
        kind: 'swarm',
        createdAt: T0 - 50,
        updatedAt: T0 + 300,
        cwd: dir,
        model: 'm',
        status: 'running',
        agents: [],
        tasks: [],
        usage: usage(0, 0),
        swarm: { swarmId: 's-1' },
      }),
    );

    const reader = TimelineReader.open(dir, 's-1') as TimelineReader;
    const view = bucketTimeline(reader, T0 - 50);
    expect(view.buckets).toMatchObject({ size: 10, count: COUNT });
    expect(view.buckets.verdictFails.every((n) => n === 0)).toBe(true);
    expect(view.items).toHaveLength(COUNT / 10);
    expect(view.items.slice(0, 2)).toEqual(['items 1–10', 'items 11–20']);
    // Row 0 ended with a failure (its worst state), drawn so from its first launch to its last end, on the page's clock.
    expect(view.changes.slice(0, 6)).toEqual([0, 150, 5, 0, 259, 5]);
    expect(view.reasons[0]).toBe('9 completed · 1 failed');
    // Row 1 runs: a bar that starts and goes on.
    expect(view.changes.slice(6, 9)).toEqual([1, 200, 1]);
    expect(view.counts).toEqual({ completed: 9, failed: 1, launched: 1, queued: COUNT - 11 });

    const slice = itemSlice(dir, reader, 0, 12, T0 - 50);
    reader.close();
    expect(slice.offset).toBe(0);
    expect(slice.items.slice(3, 6)).toEqual(['file-3.ts', 'file-4.ts', 'file-5.ts']);
    expect(slice.agentIds.slice(0, 2)).toEqual(['a-1', 'a-2']);
    expect(slice.reasons[4]).toBe('tests failed');
    expect(slice.counts).toEqual({ completed: 9, failed: 1, launched: 1, queued: 1 });

    const model = bigSessionModel(dir, 'x', ['s-1']);
    expect(model.swarms).toHaveLength(1);
    expect(model.status).toBe('running');
    // Counted from the timeline: a worker for each of the 11 items that started.
    expect(model.agentCount).toBe(11);
    expect(JSON.stringify(model).length).toBeLessThan(100_000);
  });
});

describe('a big swarm’s labels by index', () => {
  it('reads a range, or chosen items, across the reader’s megabyte blocks', () => {
    dir = mkdtempSync(join(tmpdir(), 'murmur-timeline-'));
    // 10,000 labels of about 300 characters: 3 MB, so lines run across the 1 MB blocks.
    const labels = Array.from({ length: 10_000 }, (_, i) => `${i}:${'x'.repeat(290 + (i % 17))}`);
    writeItemLabels(dir, 's-9', labels);
    expect(readItemLabels(dir, 's-9', 3490, 3510)).toEqual(labels.slice(3490, 3510));
    expect(readItemLabels(dir, 's-9', 0, 0, [3, 3495, 6990, 9999])).toEqual(
      [3, 3495, 6990, 9999].map((i) => labels[i]),
    );
    // Past the end: only what exists.
    expect(readItemLabels(dir, 's-9', 9998, 10_005)).toEqual(labels.slice(9998));
  });
});
