// What the console's fold keeps to explain failures: each item's reason (bounded, cleared by a new attempt, not
// overwritten by a resume's restatement) and each agent's last tool error while it has not completed.
import { describe, expect, it } from 'vitest';
import { foldEvents, sessionFold } from '../../dashboards/web/session-model.js';
import { REASON_CHARS } from '../../dashboards/web/fold-errors.js';
import { agentFailure } from '../../dashboards/web/agent-failure.js';
import type { MurmurEvent } from '../../orchestrator/events.js';

const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 };
const e = (ts: number, rest: Record<string, unknown>) => ({ ts, ...rest }) as unknown as MurmurEvent;
const ITEMS = ['a', 'b', 'c', 'd'];
const swarm = (ts: number) =>
  e(ts, { type: 'swarm.start', swarmId: 's-1', description: 'd', role: 'worker', items: ITEMS });
const item = (ts: number, index: number, state: string, extra: Record<string, unknown> = {}) =>
  e(ts, { type: 'swarm.item', swarmId: 's-1', item: ITEMS[index], index, state, ...extra });
const start = (ts: number, agentId: string, index: number) =>
  e(ts, {
    type: 'agent.start',
    agentId,
    role: 'worker',
    prompt: `Check ${ITEMS[index]}`,
    swarmId: 's-1',
    item: ITEMS[index],
  });
const toolEnd = (ts: number, agentId: string, tool: string, error?: string) =>
  e(ts, {
    type: 'tool.end',
    agentId,
    tool,
    callId: `c${ts}`,
    isError: error !== undefined,
    durationMs: 1,
    ...(error !== undefined ? { error } : {}),
  });
const end = (ts: number, agentId: string, index: number, status: string, reason?: string) =>
  e(ts, {
    type: 'agent.end',
    agentId,
    role: 'worker',
    status,
    usage,
    turns: 1,
    toolCalls: 1,
    durationMs: 5,
    swarmId: 's-1',
    item: ITEMS[index],
    ...(reason ? { reason } : {}),
  });

const LONG = `x`.repeat(REASON_CHARS + 200);
const events = [
  e(0, { type: 'run.start', mode: 'swarm', task: 't', model: 'scripted:x' }),
  swarm(1),
  ...ITEMS.map((_, i) => item(2, i, 'queued')),
  ...ITEMS.map((_, i) => start(3, `a-${i + 1}`, i)),
  ...ITEMS.map((_, i) => item(3, i, 'launched', { agentId: `a-${i + 1}` })),
  // a: a tool error, then a later one (the last counts), then a call that works (the error stays); it fails.
  toolEnd(4, 'a-1', 'read', 'no such file'),
  toolEnd(5, 'a-1', 'edit', 'old_string not found'),
  toolEnd(6, 'a-1', 'read'),
  end(7, 'a-1', 0, 'failed', 'the model gave up'),
  item(8, 0, 'failed', { agentId: 'a-1', reason: 'the model gave up' }),
  // b: a tool error, but it completes: nothing to explain, nothing kept.
  toolEnd(4, 'a-2', 'bash', 'exit 1'),
  end(7, 'a-2', 1, 'completed'),
  item(8, 1, 'completed', { agentId: 'a-2' }),
  // c: a long tool error and a long reason, both cut.
  toolEnd(4, 'a-3', 'grep', LONG),
  end(7, 'a-3', 2, 'timeout', LONG),
  item(8, 2, 'failed', { agentId: 'a-3', reason: LONG }),
  // d: verdict fail in round 1 (a reason), then a rate limit (not a reason of its own).
  item(6, 3, 'verifying', { agentId: 'a-4', verifierId: 'v-1', verdict: 'fail', rounds: 1, reason: 'tests fail' }),
  item(7, 3, 'rate_limited', { agentId: 'a-4', reason: 'rate limited; back in the queue in 1 s' }),
];

describe('the fold explains failures', () => {
  it('keeps each item’s reason, cut to a bounded length', () => {
    const model = foldEvents('s', events);
    const [timeline] = model.swarms;
    expect(timeline!.reasons[0]).toBe('the model gave up');
    expect(timeline!.reasons[1]).toBe('');
    expect(timeline!.reasons[2]).toHaveLength(REASON_CHARS);
    expect(timeline!.reasons[2]!.endsWith('…')).toBe(true);
    expect(timeline!.reasons[3]).toBe('tests fail');
  });

  it('keeps the last tool error of an agent that did not complete, and none for one that did', () => {
    const model = foldEvents('s', events);
    const row = (id: string) => model.agents.find((a) => a.id === id)!;
    expect(row('a-1').lastToolError).toEqual({ tool: 'edit', error: 'old_string not found' });
    expect(row('a-1').reason).toBe('the model gave up');
    expect(row('a-2').lastToolError).toBeUndefined();
    expect(row('a-3').lastToolError!.tool).toBe('grep');
    expect(row('a-3').lastToolError!.error).toHaveLength(REASON_CHARS);
    // (A swarm worker's row takes its item's end: timeout, then the item failed.)
    expect(agentFailure(model, 'a-3')).toMatchObject({ state: 'failed', item: { label: 'c', state: 'failed' } });
    expect(agentFailure(model, 'a-2')).toBeUndefined();
    // A worker that completed but whose item's verdict failed: the item says why.
    expect(agentFailure(model, 'a-4')).toMatchObject({
      item: { label: 'd', state: 'verdict fail', reason: 'tests fail' },
    });
  });

  it('forgets a reason when the item runs again, keeps it across a resume’s restatement, and counts what it keeps', () => {
    const fold = sessionFold('s');
    for (const event of events) fold.add(event);
    const before = fold.approxBytes();
    fold.add(toolEnd(9, 'a-4', 'write', 'y'.repeat(200)));
    expect(fold.approxBytes()).toBeGreaterThan(before + 200);
    // A resume restates b (done before); a relaunches.
    fold.add(swarm(20));
    fold.add(item(21, 1, 'completed', { reason: 'finished before the resume' }));
    fold.add(item(21, 2, 'failed', { reason: 'finished before the resume' }));
    fold.add(item(22, 0, 'launched', { agentId: 'a-1' }));
    const [timeline] = fold.model().swarms;
    expect(timeline!.reasons[0]).toBe('');
    expect(timeline!.reasons[1]).toBe('');
    expect(timeline!.reasons[2]!.startsWith('xxx')).toBe(true);
    // An item that never started says so in words.
    fold.add(item(23, 3, 'aborted', { reason: 'not_started' }));
    expect(fold.model().swarms[0]!.reasons[3]).toBe('not started');
  });
});
