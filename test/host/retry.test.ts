// Planning a retry (host/retry.ts) on a saved swarm: which items run again and how their records start the next
// attempt, and the refusals a person gets in words (the bin tests in test/swarm/retry.test.ts run it for real).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../orchestrator/session.js';
import type { Resumable } from '../../host/resume.js';
import { planRetry, retryCandidates } from '../../host/retry.js';
import type { SavedSwarm, SwarmItemRecord } from '../../swarm/saved-swarm.js';
import { restoredItem } from '../../swarm/saved-swarm.js';

const done = (item: string, outcome: 'completed' | 'failed' | 'aborted' | 'conflict', extra = {}): SwarmItemRecord => ({
  item,
  prompt: `Do ${item}`,
  agentId: `a-${item}`,
  rounds: 1,
  result: { index: 0, item, outcome, rounds: 1, text: '', agentId: `a-${item}`, ...extra },
});

function resumableOf(items: SwarmItemRecord[], extra: Partial<SavedSwarm> = {}): Resumable {
  const session = SessionStore.create(mkdtempSync(join(tmpdir(), 'murmur-retry-plan-')));
  const swarm: SavedSwarm = {
    swarmId: 's-1',
    description: 'd',
    role: 'worker',
    verify: true,
    maxRounds: 2,
    isolation: 'none',
    items,
    ...extra,
  };
  return {
    session,
    state: {} as Resumable['state'],
    swarm,
    title: 't',
    settings: {},
    model: undefined,
    interruptions: [],
  };
}

describe('planning a retry', () => {
  const items = [
    done('ok', 'completed', { verdict: 'pass' }),
    done('judged', 'completed', { verdict: 'fail', reason: 'tests fail' }),
    done('broke', 'failed', { reason: 'boom' }),
    done('clash', 'conflict'),
    { item: 'unfinished', prompt: 'Do unfinished', rounds: 0 },
  ];

  it('offers failed, conflicted, aborted and verdict-fail items; --retry-failed reopens exactly those', () => {
    const resumable = resumableOf(items);
    expect(retryCandidates(resumable.swarm!).map((c) => [c.item, c.outcome, c.verdict, c.attempt])).toEqual([
      ['judged', 'completed', 'fail', 1],
      ['broke', 'failed', undefined, 1],
      ['clash', 'conflict', undefined, 1],
    ]);
    const planned = planRetry(resumable, { failed: true });
    if (!planned.ok) throw new Error(planned.error);
    expect(planned.labels).toEqual(['judged', 'broke', 'clash']);
    const records = planned.resumable.swarm!.items;
    // A fresh start: no agent, no verdict, rounds 0, the next attempt, the past kept.
    expect(records[1]).toEqual({
      item: 'judged',
      prompt: 'Do judged',
      rounds: 0,
      attempt: 2,
      attempts: [{ attempt: 1, outcome: 'completed', verdict: 'fail', reason: 'tests fail', agentId: 'a-judged' }],
    });
    expect(records[0]).toBe(items[0]);
    expect(records[4]).toBe(items[4]);
    expect(planned.resumable.retrying).toEqual(['judged', 'broke', 'clash']);
    // On disk nothing changed: the plan is a new value.
    expect(resumable.swarm!.items[1]).toBe(items[1]);
  });

  it('keeps every ended item as it ended in a retry; the reopened ones and unfinished ones run', () => {
    const planned = planRetry(resumableOf(items), { items: ['broke'] });
    if (!planned.ok) throw new Error(planned.error);
    const states = planned.resumable.swarm!.items.map((r) => restoredItem(r, true, 2, true).status);
    expect(states).toEqual(['done', 'done', 'queued', 'done', 'queued']);
    // A plain resume would have run the failed item again too (and never the judged one, which completed).
    expect(items.map((r) => restoredItem(r, true, 2).status)).toEqual(['done', 'done', 'queued', 'done', 'queued']);
  });

  it('refuses in words: an unknown label, a completed or unfinished item, an item without a prompt, a queue swarm, a run', () => {
    const resumable = resumableOf(items);
    const id = resumable.session.id;
    const error = (r: ReturnType<typeof planRetry>) => (r.ok ? 'planned' : r.error);
    expect(error(planRetry(resumable, { items: ['nope'] }))).toBe(
      `session ${id} has no item "nope"; items that can be retried: "judged", "broke", "clash"`,
    );
    expect(error(planRetry(resumable, { items: ['ok'] }))).toContain('item "ok" of session');
    expect(error(planRetry(resumable, { items: ['unfinished'] }))).toContain(
      `has not ended (it never finished): a plain murmur resume ${id} finishes it`,
    );
    const { prompt: _prompt, ...unprompted } = done('resumed', 'failed');
    expect(error(planRetry(resumableOf([unprompted]), { failed: true }))).toBe(
      'item "resumed" continued an earlier subagent and has no prompt of its own to start a fresh agent with',
    );
    const queued = resumableOf(items, { queue: { name: 'q', base: 'abc', subdir: '', model: 'm' } });
    expect(error(planRetry(queued, { failed: true }))).toContain('ran its items on a Redis queue');
    const run = { ...resumable };
    delete run.swarm;
    expect(error(planRetry(run, { failed: true }))).toBe(
      `session ${id} ran a task, not a swarm: only a swarm's items can be retried`,
    );
    expect(error(planRetry(resumableOf([done('ok', 'completed')]), { failed: true }))).toContain('nothing to retry');
  });
});
