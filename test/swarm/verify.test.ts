// Verify mode end to end: a verifier subagent checks each completed item; on a fail the same worker is
// resumed with the verifier's reasons, up to max_rounds. Real files in a temp workspace, the scripted model.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Script } from '../../orchestrator/models/scripted.js';
import type { UserMessage } from '../../orchestrator/types.js';
import { userText } from '../../orchestrator/types.js';
import { parseVerdict, reworkPrompt } from '../../swarm/verify.js';
import { eventsOf, gitRepo, makeEngine, removeDir, tempDir, writeTree, type TestEngine } from './helpers.js';

const SCRIPT: Script = {
  agents: [
    {
      match: { role: 'worker', prompt: 'Bump (\\S+)' },
      turns: [
        { toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'v0', new_string: 'v1' } }] },
        { text: 'bumped $1 to v1' },
        { toolCalls: [{ name: 'edit', arguments: { path: '$1', old_string: 'v1', new_string: 'v2' } }] },
        { text: 'bumped $1 to v2' },
      ],
    },
    {
      match: { role: 'verifier', prompt: '<item>hopeless.txt</item>' },
      turns: [{ text: 'VERDICT: fail\nhopeless.txt can never pass' }],
    },
    {
      match: { role: 'verifier', prompt: 'round 1\\)[\\s\\S]*<item>(\\S+)</item>' },
      turns: [{ text: 'VERDICT: fail\n$1 must say v2, not v1' }],
    },
    { match: { role: 'verifier', prompt: 'round 2\\)' }, turns: [{ text: 'VERDICT: pass\nlooks right' }] },
  ],
};

let dir: string;
let t: TestEngine | undefined;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  await removeDir(dir);
});

function userMessages(agentId: string): string[] {
  return t!.engine.agentTree
    .get(agentId)!
    .agent.state.messages.filter((m): m is UserMessage => m.role === 'user')
    .map((m) => userText(m));
}

describe('verify mode', () => {
  it("fail then pass: the worker gets the verifier's reasons, and the report shows the verdict and rounds", async () => {
    writeTree(dir, { 'good.txt': 'version v0\n' });
    t = makeEngine(dir, SCRIPT);
    const answer = await t.swarm({
      promptTemplate: 'Bump {{item}}',
      items: ['good.txt', 'hopeless.txt'],
      verify: true,
    });
    expect(answer.ok).toBe(true);
    // hopeless.txt does not exist: its worker's edit fails, it still hands off and is verified (and fails).
    expect(answer.ok && answer.report).toContain('<summary>completed: 1, failed: 1</summary>');
    expect(answer.ok && answer.report).toContain(
      '<subagent agent_id="a-1" item="good.txt" outcome="completed" verdict="pass" rounds="2">bumped good.txt to v2</subagent>',
    );
    expect(readFileSync(path.join(dir, 'good.txt'), 'utf8')).toBe('version v2\n');

    // The worker was resumed (same agent) with the verifier's reasons.
    const worker = userMessages('a-1');
    expect(worker).toHaveLength(2);
    expect(worker[0]).toBe('Bump good.txt');
    expect(worker[1]).toBe(reworkPrompt('good.txt must say v2, not v1', 1));

    // Each round had its own verifier, told the item, the task, the handoff and the change.
    const verifiers = eventsOf(t.events, 'agent.start').filter((e) => e.role === 'verifier' && e.item === 'good.txt');
    expect(verifiers).toHaveLength(2);
    const [firstCheck] = userMessages(verifiers[0]!.agentId);
    expect(firstCheck).toContain('verification round 1');
    expect(firstCheck).toContain('<item>good.txt</item>');
    expect(firstCheck).toContain('Bump good.txt');
    expect(firstCheck).toContain('bumped good.txt to v1');
    expect(firstCheck).toContain('Files changed: good.txt');
    expect(firstCheck).toMatch(/-\s+1\| version v0\n\+\s+1\| version v1/);

    const verifying = eventsOf(t.events, 'swarm.item').filter(
      (e) => e.index === 0 && e.state === 'verifying' && e.verdict !== undefined,
    );
    expect(verifying.map((e) => [e.verdict, e.rounds])).toEqual([
      ['fail', 1],
      ['pass', 2],
    ]);
  });

  it('fails the item after max_rounds, with the last reasons', async () => {
    writeTree(dir, { 'hopeless.txt': 'version v0\n', 'other.txt': 'version v0\n' });
    t = makeEngine(dir, SCRIPT);
    const answer = await t.swarm({
      promptTemplate: 'Bump {{item}}',
      items: ['hopeless.txt', 'other.txt'],
      verify: true,
      maxRounds: 1,
    });
    expect(answer.ok && answer.report).toBe(
      [
        '<agent_swarm_result>',
        '<summary>failed: 2</summary>',
        '<resume_hint>continue the unfinished subagents with their context: call agent_swarm with resume_agent_ids ["a-1","a-2"] (and an optional resume_prompt)</resume_hint>',
        '<subagent agent_id="a-1" item="hopeless.txt" outcome="failed" verdict="fail" rounds="1" reason="failed verification after 1 round(s): hopeless.txt can never pass">bumped hopeless.txt to v1</subagent>',
        // With one round, a fail on the only round is final: other.txt's first verifier fails it too.
        '<subagent agent_id="a-2" item="other.txt" outcome="failed" verdict="fail" rounds="1" reason="failed verification after 1 round(s): other.txt must say v2, not v1">bumped other.txt to v1</subagent>',
        '</agent_swarm_result>',
      ].join('\n'),
    );
    // No rework after the last round.
    expect(userMessages('a-1')).toEqual(['Bump hopeless.txt']);
  });

  it("keeps the verifier's text before its verdict line, in the item's reason and in the rework prompt", async () => {
    writeTree(dir, { 'p.txt': 'version v0\n', 'q.txt': 'version v0\n' });
    const checked = 'Ran the tests: 2 of 9 fail.\nVERDICT: fail\n$1 must say v2.';
    t = makeEngine(dir, {
      agents: [
        SCRIPT.agents[0]!,
        { match: { role: 'verifier', prompt: '<item>(\\S+)</item>' }, turns: [{ text: checked }] },
      ],
    });
    const answer = await t.swarm({ promptTemplate: 'Bump {{item}}', items: ['p.txt', 'q.txt'], verify: true });
    expect(answer.ok && answer.report).toContain(
      'reason="failed verification after 2 round(s): Ran the tests: 2 of 9 fail.&#10;p.txt must say v2."',
    );
    expect(userMessages('a-1')[1]).toBe(reworkPrompt('Ran the tests: 2 of 9 fail.\np.txt must say v2.', 1));
  });

  it('with the default 2 rounds a worker that keeps failing is reworked once, then fails', async () => {
    writeTree(dir, { 'hopeless.txt': 'version v0\n', 'x.txt': 'version v0\n' });
    t = makeEngine(dir, SCRIPT);
    const answer = await t.swarm({ promptTemplate: 'Bump {{item}}', items: ['hopeless.txt', 'x.txt'], verify: true });
    expect(answer.ok && answer.report).toContain(
      '<subagent agent_id="a-1" item="hopeless.txt" outcome="failed" verdict="fail" rounds="2" reason="failed verification after 2 round(s): hopeless.txt can never pass">bumped hopeless.txt to v2</subagent>',
    );
    expect(answer.ok && answer.report).toContain('item="x.txt" outcome="completed" verdict="pass" rounds="2"');
    expect(userMessages('a-1')).toHaveLength(2);
  });

  it('shows the verifier a git diff in a repository', async () => {
    gitRepo(dir, { 'good.txt': 'version v0\n', 'b.txt': 'version v0\n' });
    t = makeEngine(dir, SCRIPT);
    const answer = await t.swarm({ promptTemplate: 'Bump {{item}}', items: ['good.txt', 'b.txt'], verify: true });
    expect(answer.ok && answer.report).toContain('<summary>completed: 2</summary>');
    const verifier = eventsOf(t.events, 'agent.start').find((e) => e.role === 'verifier' && e.item === 'good.txt')!;
    const [prompt] = userMessages(verifier.agentId);
    expect(prompt).toContain('diff --git a/good.txt b/good.txt');
    expect(prompt).toContain('-version v0\n+version v1');
    // Only the files this worker changed, not its neighbour's.
    expect(prompt).not.toContain('b.txt');
  });
});

describe('verify mode under rate limits', () => {
  const worker = SCRIPT.agents[0]!;

  it('a 429 in the verifier puts the item back in the queue; the same verifier goes on and the worker does not run again', async () => {
    writeTree(dir, { 'a.txt': 'version v0\n', 'b.txt': 'version v0\n' });
    t = makeEngine(dir, {
      agents: [
        worker,
        {
          match: { role: 'verifier' },
          turns: [{ failFirst: { status: 429, times: 1, retryAfterMs: 5 }, text: 'VERDICT: pass\nfine' }],
        },
      ],
    });
    const answer = await t.swarm({ promptTemplate: 'Bump {{item}}', items: ['a.txt', 'b.txt'], verify: true });
    expect(answer.ok && answer.report).toContain('<summary>completed: 2</summary>');
    expect(answer.ok && answer.report).toContain(
      '<subagent agent_id="a-1" item="a.txt" outcome="completed" verdict="pass" rounds="1">bumped a.txt to v1</subagent>',
    );
    const states = eventsOf(t.events, 'swarm.item')
      .filter((e) => e.index === 0)
      .map((e) => e.state);
    expect(states).toEqual([
      'queued',
      'launched',
      'verifying',
      'rate_limited',
      'launched',
      'verifying',
      'verifying',
      'completed',
    ]);
    // Each worker ran once; each item had one verifier, started and then continued after the limit.
    const starts = eventsOf(t.events, 'agent.start');
    expect(
      starts
        .filter((e) => e.role === 'worker')
        .map((e) => e.agentId)
        .sort(),
    ).toEqual(['a-1', 'a-2']);
    const verifiers = starts.filter((e) => e.role === 'verifier');
    expect(new Set(verifiers.map((e) => e.agentId)).size).toBe(2);
    expect(verifiers.map((e) => e.resumed)).toEqual([false, false, true, true]);
    expect(userMessages('a-1')).toEqual(['Bump a.txt']);
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('version v1\n');
  });

  it('a 429 in the rework round goes back to the queue and continues that rework, then verifies again', async () => {
    writeTree(dir, { 'a.txt': 'version v0\n', 'b.txt': 'version v0\n' });
    const limitedRework = {
      ...worker,
      turns: worker.turns.map((turn, i) =>
        i === 2 ? { ...turn, failFirst: { status: 429, times: 1, retryAfterMs: 5 } } : turn,
      ),
    };
    t = makeEngine(dir, { agents: [limitedRework, ...SCRIPT.agents.slice(2)] });
    const answer = await t.swarm({ promptTemplate: 'Bump {{item}}', items: ['a.txt', 'b.txt'], verify: true });
    expect(answer.ok && answer.report).toContain(
      '<subagent agent_id="a-1" item="a.txt" outcome="completed" verdict="pass" rounds="2">bumped a.txt to v2</subagent>',
    );
    expect(eventsOf(t.events, 'swarm.item').filter((e) => e.index === 0 && e.state === 'rate_limited')).toHaveLength(1);
    // The rework prompt was given once: the second launch continued it.
    expect(userMessages('a-1')).toEqual(['Bump a.txt', reworkPrompt('a.txt must say v2, not v1', 1)]);
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('version v2\n');
  });
});

describe('parseVerdict', () => {
  it('reads pass and fail with their reasons, tolerating markdown', () => {
    expect(parseVerdict('VERDICT: pass')).toEqual({ verdict: 'pass', reasons: '' });
    expect(parseVerdict('**VERDICT: FAIL** — missing test\nadd one')).toEqual({
      verdict: 'fail',
      reasons: 'missing test\nadd one',
    });
  });
  it('keeps what the verifier wrote before the verdict line, in order', () => {
    expect(parseVerdict('Checked src/a.ts.\nRan the tests.\n\n**VERDICT: FAIL** — missing test\nadd one')).toEqual({
      verdict: 'fail',
      reasons: 'Checked src/a.ts.\nRan the tests.\nmissing test\nadd one',
    });
    expect(parseVerdict('All good.\nVERDICT: pass')).toEqual({ verdict: 'pass', reasons: 'All good.' });
  });
  it('counts an answer without a verdict line as a fail, quoting it', () => {
    const verdict = parseVerdict('I think it is fine');
    expect(verdict.verdict).toBe('fail');
    expect(verdict.reasons).toContain('I think it is fine');
  });
});
