// `murmur resume ID --retry ITEM… | --retry-failed` through the built bin: items scripted to fail on their first
// attempt only complete when retried in a new process, the others never run again, and `murmur report` keeps both
// attempts of a retried item. Bad input is refused with exit 2 and a message naming the bad value.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SwarmReport } from '../../protocol/reports.js';
import { myIdentity } from '../../host/process-identity.js';
import { murmurIn, removeDir, tempDir, waitFor } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir('murmur-retry-');
  writeFileSync(
    path.join(dir, 'script.json'),
    JSON.stringify({
      agents: [
        {
          match: { prompt: 'Do (flaky\\d+)' },
          turns: [{ fail: '$1 broke on its first try', attempts: 1, text: 'fixed $1' }],
        },
        { match: { prompt: 'Do (broken)' }, turns: [{ fail: '$1 always breaks', text: 'never' }] },
        { match: { prompt: 'Do (\\S+)' }, turns: [{ text: 'did $1' }] },
      ],
    }),
  );
});
afterEach(async () => {
  await removeDir(dir);
});

async function swarm(items: string[], extra: string[] = []): Promise<SwarmReport> {
  const ran = await murmurIn(dir, [
    'swarm',
    '--template',
    'Do {{item}}',
    '--items',
    ...items,
    '--model',
    'scripted:script.json',
    '--json',
    ...extra,
  ]);
  return JSON.parse(ran.stdout) as SwarmReport;
}

async function report(id: string): Promise<SwarmReport> {
  return JSON.parse((await murmurIn(dir, ['report', id, '--json'])).stdout) as SwarmReport;
}

describe('murmur resume --retry', () => {
  it('runs the failed items again with a fresh agent on attempt 2; the report keeps both attempts', async () => {
    const first = await swarm(['a', 'flaky1', 'b', 'flaky2'], ['--output-jsonl', 'lines.jsonl']);
    expect(first.summary).toEqual({ completed: 2, failed: 2 });
    const id = first.sessionId!;
    const failedAgents = first.items.filter((r) => r.outcome === 'failed').map((r) => r.agentId);

    const retried = await murmurIn(dir, ['resume', id, '--retry-failed', '--json']);
    expect(retried.exitCode).toBe(0);
    expect(retried.stderr).toContain('retrying flaky1, flaky2');
    const after = JSON.parse(retried.stdout) as SwarmReport;
    expect(after.summary).toEqual({ completed: 4 });

    const saved = await report(id);
    const flaky = saved.items.filter((r) => r.item.startsWith('flaky'));
    expect(flaky.map((r) => [r.outcome, r.attempt, r.text])).toEqual([
      ['completed', 2, 'fixed flaky1'],
      ['completed', 2, 'fixed flaky2'],
    ]);
    expect(flaky.map((r) => r.attempts)).toEqual([
      [{ attempt: 1, outcome: 'failed', reason: 'flaky1 broke on its first try', agentId: failedAgents[0] }],
      [{ attempt: 1, outcome: 'failed', reason: 'flaky2 broke on its first try', agentId: failedAgents[1] }],
    ]);
    // Fresh agents; the items that completed kept theirs and never ran again.
    expect(flaky.map((r) => r.agentId)).not.toContain(failedAgents[0]);
    expect(saved.items.filter((r) => !r.item.startsWith('flaky'))).toEqual(
      first.items
        .filter((r) => !r.item.startsWith('flaky'))
        .map((r) => expect.objectContaining({ agentId: r.agentId, text: r.text })),
    );

    // The lines file gains a line for each retried item's new attempt.
    const lines = readFileSync(path.join(dir, 'lines.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.item, l.outcome, l.attempt])).toEqual([
      ['a', 'completed', undefined],
      ['flaky1', 'failed', undefined],
      ['b', 'completed', undefined],
      ['flaky2', 'failed', undefined],
      ['flaky1', 'completed', 2],
      ['flaky2', 'completed', 2],
    ]);

    const text = (await murmurIn(dir, ['report', id])).stdout;
    expect(text).toMatch(
      /<subagent agent_id="a-\d+" item="flaky1" outcome="completed" rounds="0" attempt="2">fixed flaky1/,
    );
    expect(text).toContain(
      `<earlier_attempt item="flaky1" attempt="1" outcome="failed" agent_id="${failedAgents[0]}" reason="flaky1 broke on its first try"/>`,
    );
  });

  it('retries only the items named; the other failed ones stay as they ended', async () => {
    const first = await swarm(['flaky1', 'flaky2', 'broken']);
    const id = first.sessionId!;
    const retried = await murmurIn(dir, ['resume', id, '--retry', 'flaky2', 'broken', '--json']);
    // broken fails again (on every attempt), so the session did not complete.
    expect(retried.exitCode).toBe(1);
    const saved = await report(id);
    expect(saved.items.map((r) => [r.item, r.outcome, r.attempt])).toEqual([
      ['flaky1', 'failed', undefined],
      ['flaky2', 'completed', 2],
      ['broken', 'failed', 2],
    ]);
    expect(saved.items[0]).toEqual(first.items[0]);

    // Retried again: its third attempt keeps both earlier ones.
    await murmurIn(dir, ['resume', id, '--retry', 'broken']);
    const third = (await report(id)).items[2]!;
    expect(third.attempt).toBe(3);
    expect(third.attempts?.map((a) => [a.attempt, a.outcome, a.reason])).toEqual([
      [1, 'failed', 'broken always breaks'],
      [2, 'failed', 'broken always breaks'],
    ]);
  });

  it('a retry killed mid-attempt goes on with the same attempt under a plain murmur resume', async () => {
    // The retried attempt thinks for a minute: it is killed while it runs.
    const slow = (latencyMs: number) => ({
      agents: [
        {
          match: { prompt: 'Do (flaky\\d+)' },
          turns: [{ fail: '$1 broke', attempts: 1, latencyMs, text: 'fixed $1' }],
        },
        { match: { prompt: 'Do (\\S+)' }, turns: [{ text: 'did $1' }] },
      ],
    });
    writeFileSync(path.join(dir, 'slow.json'), JSON.stringify(slow(60_000)));
    writeFileSync(path.join(dir, 'fast.json'), JSON.stringify(slow(0)));
    const first = await swarm(['a', 'flaky1']);
    const id = first.sessionId!;
    const events = path.join(dir, '.murmur', 'sessions', id, 'events.jsonl');
    const retry = murmurIn(dir, ['resume', id, '--retry', 'flaky1', '--model', 'scripted:slow.json']);
    await waitFor(
      () =>
        readFileSync(events, 'utf8').includes(`"item":"flaky1","index":1,"state":"launched","agentId":"a-3"`) ||
        undefined,
      15_000,
      'the retried item launched with a fresh agent',
    );
    retry.kill('SIGKILL');
    expect((await retry).signal).toBe('SIGKILL');
    // A plain resume: the item goes on with attempt 2, so the script's failure of attempt 1 does not apply.
    const resumed = await murmurIn(dir, ['resume', id, '--model', 'scripted:fast.json', '--json']);
    expect(resumed.exitCode).toBe(0);
    const row = (await report(id)).items[1]!;
    // (Killed before the agents' snapshot named it, a-3 may be started afresh: on the same attempt either way.)
    expect([row.outcome, row.text, row.attempt]).toEqual(['completed', 'fixed flaky1', 2]);
    expect(row.attempts).toEqual([
      { attempt: 1, outcome: 'failed', reason: 'flaky1 broke on its first try', agentId: 'a-2' },
    ]);
  });

  it('refuses bad input with exit 2, naming the bad value and what is accepted', async () => {
    const first = await swarm(['a', 'flaky1']);
    const id = first.sessionId!;
    const unknown = await murmurIn(dir, ['resume', id, '--retry', 'nope']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain(`session ${id} has no item "nope"; items that can be retried: "flaky1"`);
    const completed = await murmurIn(dir, ['resume', id, '--retry', 'a']);
    expect(completed.exitCode).toBe(2);
    expect(completed.stderr).toContain('item "a" of session');
    expect(completed.stderr).toContain('completed (attempt 1)');
    const both = await murmurIn(dir, ['resume', id, '--retry', 'flaky1', '--retry-failed']);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('give --retry ITEM… or --retry-failed, not both');
    const empty = await murmurIn(dir, ['resume', id, '--retry']);
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain('--retry needs at least one value');

    // A live process holds the session (this one stands in for it): a retry waits until it has ended.
    const lock = path.join(dir, '.murmur', 'sessions', id, 'owner.lock');
    writeFileSync(lock, JSON.stringify({ ...myIdentity(), startedAt: Date.now() }));
    const running = await murmurIn(dir, ['resume', id, '--retry-failed']);
    expect(running.exitCode).toBe(2);
    expect(running.stderr).toContain(`session ${id} is still running (`);
    rmSync(lock);

    expect((await murmurIn(dir, ['resume', id, '--retry-failed'])).exitCode).toBe(0);
    const nothing = await murmurIn(dir, ['resume', id, '--retry-failed']);
    expect(nothing.exitCode).toBe(2);
    expect(nothing.stderr).toContain(`session ${id} has no item that failed`);
    expect(nothing.stderr).toContain('nothing to retry');
  });
});
