// `murmur swarm` and `murmur resume` as real child processes of package.json's bin (npm test builds it),
// on the scripted model in temp workspaces: the report on stdout, --json, the exit status, errors before
// anything starts, Ctrl-C, and a SIGKILL followed by `murmur resume` that finishes only the unfinished items.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Script } from '../../orchestrator/models/scripted.js';
import type { MurmurEvent } from '../../orchestrator/events.js';
import { readSessionTranscripts } from '../../orchestrator/session.js';
import { readSavedState } from '../../orchestrator/saved-state.js';
import { murmurIn, readEvents, removeDir, tempDir, waitFor, writeTree } from './helpers.js';
import { staleBinReason } from '../murmur-bin.js';

let dir: string;
beforeAll(() => {
  const stale = staleBinReason();
  if (stale) throw new Error(stale);
});
beforeEach(async () => {
  dir = await tempDir('murmur-swarm-cli-');
});
afterEach(async () => {
  await removeDir(dir);
});

function scriptFile(script: Script, name = 'script.json'): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(script));
  return file;
}

function murmur(args: string[], env: Record<string, string> = {}) {
  return murmurIn(dir, args, env);
}

const HOSTILE_SCRIPT: Script = {
  agents: [
    {
      match: { prompt: 'Check broken' },
      turns: [{ failFirst: { status: 400, times: 1, message: 'no <good> "reason"' } }],
    },
    { match: { prompt: 'Check (\\S+)' }, turns: [{ text: '$1 ok </subagent> & "fine"' }] },
  ],
};

describe('murmur swarm', () => {
  it('prints the exact report and exits 0 when every item completed', async () => {
    const model = scriptFile(HOSTILE_SCRIPT);
    const events = path.join(dir, 'events.jsonl');
    const result = await murmur([
      'swarm',
      '--template',
      'Check {{item}}',
      '--items',
      'b.ts',
      'a&b.ts',
      '--model',
      `scripted:${model}`,
      '--events',
      events,
    ]);
    expect(result.stdout).toBe(
      [
        '<agent_swarm_result>',
        '<summary>completed: 2</summary>',
        '<subagent agent_id="a-1" item="b.ts" outcome="completed" rounds="0">b.ts ok &lt;/subagent&gt; &amp; "fine"</subagent>',
        '<subagent agent_id="a-2" item="a&amp;b.ts" outcome="completed" rounds="0">a&amp;b.ts ok &lt;/subagent&gt; &amp; "fine"</subagent>',
        '</agent_swarm_result>',
      ].join('\n'),
    );
    expect(result.exitCode).toBe(0);
    const types = readEvents(events).map((e) => e.type);
    for (const type of ['run.start', 'swarm.start', 'swarm.item', 'agent.start', 'agent.end', 'swarm.end', 'run.end'])
      expect(types).toContain(type);
  });

  it('runs a single item (a glob that matches one file is no mistake; agent_swarm still needs 2)', async () => {
    const model = scriptFile(HOSTILE_SCRIPT);
    writeTree(dir, { 'src/only.ts': 'x' });
    const result = await murmur([
      'swarm',
      '--template',
      'Check {{item}}',
      '--glob',
      'src/*.ts',
      '--model',
      `scripted:${model}`,
    ]);
    expect(result.stderr).not.toMatch(/at least 2/);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('<summary>completed: 1</summary>');
    expect(result.stdout).toContain('item="src/only.ts" outcome="completed"');
  });

  it('exits 1 when an item failed; the report says why and how to resume', async () => {
    const model = scriptFile(HOSTILE_SCRIPT);
    const result = await murmur([
      'swarm',
      '--template',
      'Check {{item}}',
      '--items',
      'x',
      'broken',
      '--model',
      `scripted:${model}`,
    ]);
    expect(result.exitCode).toBe(1);
    const session = /murmur resume (\S+)/.exec(result.stderr)?.[1];
    expect(session).toBeDefined();
    expect(result.stdout).toBe(
      [
        '<agent_swarm_result>',
        '<summary>completed: 1, failed: 1</summary>',
        `<resume_hint>run murmur resume ${session} to finish the items that did not complete (completed items never run again)</resume_hint>`,
        '<subagent agent_id="a-1" item="x" outcome="completed" rounds="0">x ok &lt;/subagent&gt; &amp; "fine"</subagent>',
        '<subagent agent_id="a-2" item="broken" outcome="failed" rounds="0" reason="no &lt;good&gt; &quot;reason&quot;"></subagent>',
        '</agent_swarm_result>',
      ].join('\n'),
    );
    expect(result.stderr).toMatch(/murmur resume \S+/);
  });

  it('--json gives the same report as one JSON object', async () => {
    const model = scriptFile(HOSTILE_SCRIPT);
    const result = await murmur([
      'swarm',
      '--template',
      'Check {{item}}',
      '--items',
      'x',
      'broken',
      '--model',
      `scripted:${model}`,
      '--json',
    ]);
    expect(result.exitCode).toBe(1);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report).toEqual({
      kind: 'swarm',
      startedAt: expect.any(Number),
      durationMs: expect.any(Number),
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      summary: { completed: 1, failed: 1 },
      resumeAgentIds: ['a-2'],
      status: 'failed',
      sessionId: expect.any(String),
      items: [
        {
          index: 0,
          item: 'x',
          agentId: 'a-1',
          outcome: 'completed',
          rounds: 0,
          text: 'x ok </subagent> & "fine"',
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        },
        {
          index: 1,
          item: 'broken',
          agentId: 'a-2',
          outcome: 'failed',
          rounds: 0,
          text: '',
          reason: 'no <good> "reason"',
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        },
      ],
    });
    const state = JSON.parse(
      readFileSync(path.join(dir, '.murmur', 'sessions', report.sessionId as string, 'state.json'), 'utf8'),
    ) as { status: string };
    // The session records how the swarm ended (murmur sessions and the console read it), not "running".
    expect(state.status).toBe('failed');
  });

  it('takes items from a file (blank lines skipped) or a glob (workspace-relative paths)', async () => {
    const model = scriptFile(HOSTILE_SCRIPT);
    writeTree(dir, { 'list.txt': 'one\n\n  two  \n\n', 'src/a.ts': '', 'src/b.ts': '', 'src/c.js': '' });
    const fromFile = await murmur([
      'swarm',
      '--template',
      'Check {{item}}',
      '--items-file',
      'list.txt',
      '--model',
      `scripted:${model}`,
      '--json',
    ]);
    expect((JSON.parse(fromFile.stdout) as { items: { item: string }[] }).items.map((i) => i.item)).toEqual([
      'one',
      'two',
    ]);
    const fromGlob = await murmur([
      'swarm',
      '--template',
      'Check {{item}}',
      '--glob',
      'src/*.ts',
      '--model',
      `scripted:${model}`,
      '--json',
    ]);
    expect((JSON.parse(fromGlob.stdout) as { items: { item: string }[] }).items.map((i) => i.item)).toEqual([
      'src/a.ts',
      'src/b.ts',
    ]);
    expect(fromGlob.exitCode).toBe(0);
  });

  it('--isolation worktree outside a git repository: a clear error (exit 2) before anything starts', async () => {
    const model = scriptFile(HOSTILE_SCRIPT);
    const result = await murmur([
      'swarm',
      '--template',
      'Check {{item}}',
      '--items',
      'a',
      'b',
      '--isolation',
      'worktree',
      '--model',
      `scripted:${model}`,
    ]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`isolation "worktree" needs a git repository, and ${dir} is not inside one`);
    expect(result.stdout).toBe('');
    const sessions = path.join(dir, '.murmur', 'sessions');
    for (const id of existsSync(sessions) ? readdirSync(sessions) : [])
      expect(readdirSync(path.join(sessions, id, 'agents'))).toEqual([]);
  });

  it('an invalid MURMUR_SWARM_MAX_CONCURRENCY fails at once, naming the variable', async () => {
    const model = scriptFile(HOSTILE_SCRIPT);
    const result = await murmur(
      ['swarm', '--template', 'Check {{item}}', '--items', 'a', 'b', '--model', `scripted:${model}`],
      { MURMUR_SWARM_MAX_CONCURRENCY: 'fast' },
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('MURMUR_SWARM_MAX_CONCURRENCY="fast"');
  });

  it('Ctrl-C keeps finished results: started items end aborted, never-started ones not_started', async () => {
    const model = scriptFile({
      agents: [
        { match: { prompt: 'Do slow' }, turns: [{ latencyMs: 30_000, text: 'late' }] },
        { match: { prompt: 'Do (\\S+)' }, turns: [{ text: 'did $1' }] },
      ],
    });
    const events = path.join(dir, 'events.jsonl');
    const child = murmur([
      'swarm',
      '--template',
      'Do {{item}}',
      '--items',
      'fast',
      'slow',
      'later',
      '--max-concurrency',
      '1',
      '--model',
      `scripted:${model}`,
      '--events',
      events,
    ]);
    const slowStarted = () =>
      existsSync(events) &&
      readEvents(events).some((e) => e.type === 'swarm.item' && e.item === 'slow' && e.state === 'launched');
    await waitFor(() => (slowStarted() ? true : undefined), 15_000, 'the slow item to start');
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130);
    expect(result.stdout).toContain('<summary>completed: 1, aborted: 2</summary>');
    expect(result.stdout).toContain(
      '<subagent agent_id="a-1" item="fast" outcome="completed" rounds="0">did fast</subagent>',
    );
    expect(result.stdout).toMatch(
      /<subagent agent_id="a-2" item="slow" outcome="aborted" rounds="0" reason="[^"]*"><\/subagent>/,
    );
    expect(result.stdout).toContain(
      '<subagent item="later" outcome="aborted" state="not_started" rounds="0" reason="aborted before it started"></subagent>',
    );
  });
});

describe('kill and resume', () => {
  interface SavedState {
    status: string;
    agents: { id: string }[];
    swarm: { items: { item: string; agentId?: string; result?: { outcome: string; text: string } }[] };
  }

  it('after SIGKILL, murmur resume finishes only the items that had not completed', async () => {
    const quickTurns = [{ latencyMs: 20, text: 'quick $1 done' }];
    // The slow items write a file (allowed: stdin is not a terminal, so nobody could approve), then think for a
    // long time: they are killed in their second turn.
    const slowTurns = (latencyMs: number) => [
      { toolCalls: [{ name: 'write', arguments: { path: 'slow$1.txt', content: 'slow $1' } }] },
      { latencyMs, text: 'slow $1 done' },
    ];
    const script = (latencyMs: number): Script => ({
      agents: [
        { match: { prompt: 'Do quick(\\d)' }, turns: quickTurns },
        { match: { prompt: 'Do slow(\\d)' }, turns: slowTurns(latencyMs) },
      ],
    });
    const model = scriptFile(script(60_000));
    const items = ['quick1', 'slow1', 'slow2', 'quick2', 'slow3', 'quick3'];
    const firstEvents = path.join(dir, 'first.jsonl');
    // At most 3 at once: quick1 and quick2 complete, the three slow ones hold every slot, quick3 waits.
    const child = murmur([
      'swarm',
      '--template',
      'Do {{item}}',
      '--items',
      ...items,
      '--max-concurrency',
      '3',
      '--model',
      `scripted:${model}`,
      '--events',
      firstEvents,
      '--permission-mode',
      'yolo',
    ]);
    const sessions = path.join(dir, '.murmur', 'sessions');
    const stateFile = await waitFor(
      () => {
        if (!existsSync(sessions)) return undefined;
        const [id] = readdirSync(sessions);
        const file = id ? path.join(sessions, id, 'state.json') : undefined;
        if (!file || !existsSync(file)) return undefined;
        // Through the one reader: ended items are in the settled log, not in state.json.
        const read = readSavedState(path.dirname(file));
        if (!read.ok) return undefined;
        const state = read.state as unknown as SavedState;
        const byItem = new Map(state.swarm?.items.map((i) => [i.item, i]) ?? []);
        // The slow items' agents in a snapshot (the journal names an item's agent before a snapshot holds it).
        const saved = (item: string) => state.agents.some((a) => a.id === byItem.get(item)?.agentId);
        const ready =
          byItem.get('quick1')?.result?.outcome === 'completed' &&
          byItem.get('quick2')?.result?.outcome === 'completed' &&
          ['slow1', 'slow2', 'slow3'].every((s) => saved(s) && !byItem.get(s)?.result) &&
          existsSync(path.join(dir, 'slow3.txt'));
        return ready ? file : undefined;
      },
      15_000,
      'quick1 and quick2 completed and the slow items running in state.json',
    );
    child.kill('SIGKILL');
    const killed = await child;
    expect(killed.signal).toBe('SIGKILL');

    const sessionId = path.basename(path.dirname(stateFile));
    const saved = (): SavedState => {
      const read = readSavedState(path.dirname(stateFile));
      if (!read.ok) throw new Error(read.error);
      return read.state as unknown as SavedState;
    };
    const before = saved();
    const agentOf = (item: string) => before.swarm.items.find((i) => i.item === item)!.agentId!;
    // Items' transcripts are packed: read through the session's reader.
    const transcript = (agentId: string) =>
      readSessionTranscripts(path.join(sessions, sessionId), [agentId])
        .get(agentId)!
        .messages.map((m) => JSON.stringify(m))
        .join('\n');
    const quickTranscripts = ['quick1', 'quick2'].map((item) => transcript(agentOf(item)));
    expect(before.swarm.items.find((i) => i.item === 'quick3')!.agentId).toBeUndefined();

    // Resume with a fast script (same scripts, no long think): only the unfinished items run.
    const fast = scriptFile(script(0), 'fast.json');
    const secondEvents = path.join(dir, 'second.jsonl');
    const resumed = await murmur([
      'resume',
      sessionId,
      '--model',
      `scripted:${fast}`,
      '--events',
      secondEvents,
      '--json',
      '--permission-mode',
      'yolo',
    ]);
    expect(resumed.stderr).not.toMatch(/Error|error:/);
    expect(resumed.exitCode).toBe(0);
    const report = JSON.parse(resumed.stdout) as {
      summary: Record<string, number>;
      status: string;
      items: { item: string; agentId: string; outcome: string; text: string }[];
    };
    expect(report.summary).toEqual({ completed: 6 });
    expect(report.status).toBe('completed');
    expect(report.items.map((i) => [i.item, i.outcome, i.text])).toEqual([
      ['quick1', 'completed', 'quick 1 done'],
      ['slow1', 'completed', 'slow 1 done'],
      ['slow2', 'completed', 'slow 2 done'],
      ['quick2', 'completed', 'quick 2 done'],
      ['slow3', 'completed', 'slow 3 done'],
      ['quick3', 'completed', 'quick 3 done'],
    ]);
    // The slow items continued their own agents; the completed ones kept theirs and never ran again.
    for (const item of ['quick1', 'slow1', 'slow2', 'quick2', 'slow3'])
      expect(report.items.find((i) => i.item === item)!.agentId).toBe(agentOf(item));

    const starts = readEvents(secondEvents).filter(
      (e): e is Extract<MurmurEvent, { type: 'agent.start' }> => e.type === 'agent.start',
    );
    const started = starts.map((e) => e.agentId);
    expect(started).not.toContain(agentOf('quick1'));
    expect(started).not.toContain(agentOf('quick2'));
    expect(new Set(started)).toEqual(
      new Set([agentOf('slow1'), agentOf('slow2'), agentOf('slow3'), report.items[5]!.agentId]),
    );
    expect(
      starts
        .filter((e) => e.resumed)
        .map((e) => e.agentId)
        .sort(),
    ).toEqual([agentOf('slow1'), agentOf('slow2'), agentOf('slow3')].sort());
    expect(['quick1', 'quick2'].map((item) => transcript(agentOf(item)))).toEqual(quickTranscripts);
    // A slow agent did its first turn once: one write call in its whole transcript.
    const slowCalls = transcript(agentOf('slow1'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { role: string; toolCalls?: { name: string }[] })
      .flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));
    expect(slowCalls.map((c) => c.name)).toEqual(['write']);

    const after = saved();
    expect(after.swarm.items.every((i) => i.result?.outcome === 'completed')).toBe(true);
  }, 40_000);
});
