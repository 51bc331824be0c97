// Swarm items as states: the one mutator moves an item through a local attempt, a queue attempt and a rate limit
// exactly as the runner records them, the events they show as, and the saved form (which every saved session
// since format v1 holds) maps onto the states and back.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  advanceItem,
  itemEvent,
  queuedItem,
  savedAfter,
  type ItemChange,
  type SwarmItem,
} from '../../swarm/item-state.js';
import { itemRecord, restoredItem, type SavedSwarm } from '../../swarm/saved-swarm.js';
import { reworkPrompt } from '../../swarm/verify.js';

function through(start: SwarmItem, changes: readonly ItemChange[]): SwarmItem[] {
  const states: SwarmItem[] = [];
  let s = start;
  for (const change of changes) states.push((s = advanceItem(s, change)));
  return states;
}

describe('swarm item states', () => {
  it('a local item with verification: launched, a failed round, a passed round, done — saved whenever a resume needs it', () => {
    const changes: ItemChange[] = [
      { kind: 'launched', agentId: 'a-1' },
      { kind: 'verifying', round: 1 },
      { kind: 'verifier', verifierId: 'a-2' },
      { kind: 'verdict', round: 1, verdict: 'fail', reasons: 'want v2', verifierId: 'a-2' },
      { kind: 'verifying', round: 2 },
      { kind: 'verifier', verifierId: 'a-3' },
      { kind: 'verdict', round: 2, verdict: 'pass', reasons: '', verifierId: 'a-3' },
      {
        kind: 'done',
        result: {
          index: 0,
          item: 'f',
          outcome: 'completed',
          rounds: 2,
          verdict: 'pass',
          text: 'v2 done',
          agentId: 'a-1',
        },
      },
    ];
    const states = through(queuedItem('f', { prompt: 'Bump f' }), changes);
    expect(states.map((s) => s.status)).toEqual([
      'launched',
      'verifying',
      'verifying',
      'verifying',
      'verifying',
      'verifying',
      'verifying',
      'done',
    ]);
    expect(states[2]).toMatchObject({ round: 1, verifierId: 'a-2', rounds: 0 });
    // A verdict counts the round, keeps a fail's reasons and lets the round's verifier go.
    expect(states[3]).toMatchObject({ rounds: 1, verdict: 'fail', reasons: 'want v2', verifierId: undefined });
    expect(states[6]).toMatchObject({ rounds: 2, verdict: 'pass', reasons: undefined });
    expect(itemRecord(states[7]!)).toEqual({
      item: 'f',
      prompt: 'Bump f',
      rounds: 2,
      agentId: 'a-1',
      verdict: 'pass',
      result: changes[7]!.kind === 'done' ? changes[7]!.result : undefined,
    });
    expect(changes.map((c) => itemEvent(c)?.state)).toEqual([
      'launched',
      'verifying',
      undefined,
      'verifying',
      'verifying',
      undefined,
      'verifying',
      'completed',
    ]);
    expect(itemEvent(changes[3]!)!.extra).toEqual({ verdict: 'fail', rounds: 1, verifierId: 'a-2', reason: 'want v2' });
    expect(changes.map(savedAfter)).toEqual([true, false, true, true, false, true, true, true]);
  });

  it("a rate limit keeps the agent and a cut-short round's verifier, but not a queue job; a done item never changes again", () => {
    const local = through(queuedItem('a', { prompt: 'Do a' }), [
      { kind: 'launched', agentId: 'a-1' },
      { kind: 'verifier', verifierId: 'a-2' },
      { kind: 'rate_limited' },
    ]);
    expect(local.at(-1)).toMatchObject({ status: 'rate_limited', agentId: 'a-1', verifierId: 'a-2' });
    const queued = through(queuedItem('b', { prompt: 'Do b' }), [
      { kind: 'job', jobId: 'item-2-1', jobAttempts: 1 },
      { kind: 'rate_limited' },
    ]);
    expect(itemRecord(queued.at(-1)!)).toEqual({ item: 'b', prompt: 'Do b', rounds: 0, jobAttempts: 1 });
    const done = advanceItem(queued.at(-1)!, {
      kind: 'done',
      result: { index: 1, item: 'b', outcome: 'aborted', rounds: 0, text: '' },
      jobId: 'item-2-2',
    });
    expect(itemRecord(done)).toMatchObject({ jobId: 'item-2-2', jobAttempts: 1 });
    expect(advanceItem(done, { kind: 'launched', agentId: 'a-9' })).toBe(done);
  });

  it("a worker's progress on a queue shows with its host, and moves the item without losing its job", () => {
    const [launched, verifying] = through({ ...queuedItem('c', { prompt: 'Do c' }), jobId: 'item-3-1' }, [
      { kind: 'remote', state: 'launched', extra: { host: 'w1', model: 'm' } },
      { kind: 'remote', state: 'verifying', extra: { rounds: 1, host: 'w1', model: 'm' } },
    ]);
    expect(launched).toMatchObject({ status: 'launched', jobId: 'item-3-1' });
    expect(verifying).toMatchObject({ status: 'verifying', round: 1, jobId: 'item-3-1' });
    expect(itemEvent({ kind: 'remote', state: 'launched', extra: { host: 'w1', model: 'm' } })).toEqual({
      state: 'launched',
      extra: { host: 'w1', model: 'm' },
    });
  });

  it('a retried item carries its attempt and earlier attempts through every state, into its result, event and record', () => {
    const attempts = [{ attempt: 1, outcome: 'failed' as const, reason: 'boom', agentId: 'a-1' }];
    const start: SwarmItem = { ...queuedItem('x', { prompt: 'Do x' }), attempt: 2, attempts };
    const result = { index: 0, item: 'x', outcome: 'completed' as const, rounds: 0, text: 'ok', agentId: 'a-5' };
    const states = through(start, [
      { kind: 'launched', agentId: 'a-5' },
      { kind: 'rate_limited' },
      { kind: 'done', result },
    ]);
    expect(states.map((s) => [s.status, s.attempt, s.attempts])).toEqual([
      ['launched', 2, attempts],
      ['rate_limited', 2, attempts],
      ['done', 2, attempts],
    ]);
    const done = states[2]!;
    if (done.status !== 'done') throw new Error('not done');
    expect(done.result).toEqual({ ...result, attempt: 2, attempts });
    expect(itemEvent({ kind: 'done', result: done.result })?.extra).toEqual({ rounds: 0, attempts });
    expect(itemRecord(done)).toMatchObject({ attempt: 2, attempts, result: done.result });
    expect(restoredItem(itemRecord(done), false, 1)).toMatchObject({ status: 'done', attempt: 2, attempts });
    // An item that ran once is saved and reported as before: no attempt fields.
    const once = advanceItem(queuedItem('y', { prompt: 'Do y' }), { kind: 'done', result: { ...result, item: 'y' } });
    expect(once.status === 'done' && once.result).toEqual({ ...result, item: 'y' });
    expect(Object.keys(itemRecord(once))).not.toContain('attempt');
  });

  it('restores the v1 fixture: completed items stay done, the others are queued with their agents', () => {
    const state = JSON.parse(
      readFileSync(path.join(import.meta.dirname, '../fixtures/saved-state/v1-swarm/session/state.json'), 'utf8'),
    ) as { swarm: SavedSwarm };
    const { swarm } = state;
    const items = swarm.items.map((record) => restoredItem(record, swarm.verify, swarm.maxRounds));
    expect(items.map((s) => [s.status, s.agentId])).toEqual([
      ['done', 'a-1'],
      ['done', 'a-2'],
      ['queued', 'a-3'],
      ['queued', undefined],
    ]);
    // Saved again, each item has the shape it was read from (less an unfinished item's result).
    expect(items.map(itemRecord)).toEqual(swarm.items);
  });

  it('restores an item that used up its verify rounds on fails as rework with the last reasons, then fresh rounds', () => {
    const failed = {
      item: 'f',
      prompt: 'Bump f',
      agentId: 'a-1',
      rounds: 1,
      verdict: 'fail' as const,
      reasons: 'must say v2',
      result: { index: 0, item: 'f', outcome: 'failed' as const, rounds: 1, verdict: 'fail' as const, text: '' },
    };
    expect(restoredItem(failed, true, 1)).toEqual({
      status: 'queued',
      item: 'f',
      prompt: 'Bump f',
      agentId: 'a-1',
      rounds: 0,
      resumePrompt: reworkPrompt('must say v2', 1),
    });
    // A round cut short (a stop) goes on with its verifier; a job left out is collected.
    const stopped = {
      item: 'g',
      prompt: 'Bump g',
      agentId: 'a-2',
      rounds: 1,
      verdict: 'fail' as const,
      reasons: 'r',
      verifierId: 'a-4',
      jobId: 'item-2-1',
      result: { index: 1, item: 'g', outcome: 'aborted' as const, rounds: 1, text: '' },
    };
    expect(restoredItem(stopped, true, 2)).toMatchObject({
      status: 'queued',
      rounds: 1,
      verdict: 'fail',
      verifierId: 'a-4',
      jobId: 'item-2-1',
    });
  });
});
