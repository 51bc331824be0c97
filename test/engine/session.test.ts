// Sessions on disk: state.json (atomic, kept current), one transcript per agent appended as messages happen,
// task logs, spilled tool outputs; and restoring a session a killed process left behind.
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionState } from '../../orchestrator/engine.js';
import { SAVED_STATE_VERSION } from '../../orchestrator/saved-state.js';
import { SessionStore, stateHome } from '../../orchestrator/session.js';
import { INTERRUPTED_TASK_RESULT } from '../../orchestrator/tasks.js';
import { INTERRUPTED_RESULT } from '../../orchestrator/transcript-repair.js';
import type { Message } from '../../orchestrator/types.js';
import { TranscriptWriter } from '../../orchestrator/transcript-writer.js';
import { createResultBudget } from '../../tools/budget.js';
import {
  readJson,
  readJsonLines,
  removeDir,
  scriptedEngine,
  tempDir,
  textOf,
  toolResults,
  waitFor,
  type Script,
} from './helpers.js';

let cwd: string;
beforeEach(async () => {
  cwd = await tempDir();
});
afterEach(async () => {
  await removeDir(cwd);
});

describe('a session on disk', () => {
  it('keeps state.json atomic and current, a transcript per agent, task logs and spilled tool outputs', async () => {
    const env = { HOME: path.join(cwd, '.home'), MURMUR_HOME: 'state' };
    const home = stateHome(cwd, env);
    expect(home).toBe(path.join(cwd, 'state'));
    const session = SessionStore.create(home, 'test-session');
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                {
                  name: 'bash',
                  arguments: { command: 'echo hello from the task', description: 'say hello', run_in_background: true },
                },
                { name: 'agent', arguments: { prompt: 'Write notes', description: 'write notes' } },
              ],
            },
            // The background command ended while the worker ran: its notification is in the conversation by now.
            { text: 'done' },
          ],
        },
        {
          match: { role: 'worker' },
          turns: [
            { toolCalls: [{ name: 'write', arguments: { path: 'notes.txt', content: 'notes' } }] },
            { latencyMs: 500, toolCalls: [{ name: 'bash', arguments: { command: 'seq 1 200' } }] },
            { text: 'notes written' },
          ],
        },
      ],
    };
    const { engine } = scriptedEngine(cwd, script, {
      env,
      session,
      resultBudget: (_record, hasRead) =>
        createResultBudget({ agentHasRead: hasRead, toolOutputsDir: session.toolOutputsDir, spillChars: 200 }),
    });
    const statePath = path.join(session.dir, 'state.json');
    const mainTranscript = session.transcriptPath('main');

    const run = engine.runTask('take notes');
    // Every read of state.json during the run parses: it is replaced whole, never written in place.
    let reads = 0;
    let done = false;
    const reader = (async () => {
      while (!done) {
        try {
          readJson<SessionState>(statePath);
          reads++;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    // While the worker still runs, the state shows it running and main's transcript already has its call.
    await waitFor('state.json to show the worker running', () => {
      try {
        const state = readJson<SessionState>(statePath);
        return state.agents.find((a) => a.id === 'a-1' && a.status === 'running');
      } catch {
        return undefined;
      }
    });
    await waitFor('main transcript to have the agent call', () =>
      readJsonLines<Message>(mainTranscript).some(
        (m) => m.role === 'assistant' && m.toolCalls.some((c) => c.name === 'agent'),
      ),
    );
    const outcome = await run;
    done = true;
    await reader;
    await engine.close();
    expect(outcome).toMatchObject({ status: 'completed', result: 'done', sessionId: 'test-session' });
    expect(engine.agentTree.get('main')!.agent.state.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
      'assistant',
    ]);
    expect(reads).toBeGreaterThan(0);

    const state = readJson<SessionState>(statePath);
    expect(state).toMatchObject({
      version: SAVED_STATE_VERSION,
      id: 'test-session',
      kind: 'run',
      task: 'take notes',
      status: 'completed',
      cwd,
      model: 'scripted',
    });
    expect(state.agents.map((a) => [a.id, a.parentId, a.profile, a.depth, a.status])).toEqual([
      ['main', undefined, 'main', 0, 'completed'],
      ['a-1', 'main', 'worker', 1, 'completed'],
    ]);
    expect(state.tasks.map((t) => [t.taskId, t.kind, t.status, t.ownerAgentId])).toEqual([
      ['t-1', 'bash', 'completed', 'main'],
    ]);
    // Only the expected entries: no temp files left from the atomic writes.
    expect(readdirSync(session.dir).sort()).toEqual(['agents', 'events.jsonl', 'state.json', 'tasks', 'tool-outputs']);

    for (const id of ['main', 'a-1']) {
      expect(readJsonLines<Message>(session.transcriptPath(id))).toEqual(
        JSON.parse(JSON.stringify(engine.agentTree.get(id)!.agent.state.messages)),
      );
    }
    expect(readdirSync(path.join(session.dir, 'agents')).sort()).toEqual(['a-1', 'main']);
    expect(readFileSync(path.join(session.dir, 'tasks', 't-1', 'output.log'), 'utf8')).toBe('hello from the task\n');

    // Long results went to tool-outputs/, one file per agent and call (call ids repeat across agents), and each
    // agent got a receipt pointing there.
    expect(readdirSync(session.toolOutputsDir).sort()).toEqual(['a-1-call_2_1.txt', 'main-call_1_1.txt']);
    const spilled = path.join(session.toolOutputsDir, 'a-1-call_2_1.txt');
    expect(readFileSync(spilled, 'utf8')).toContain('\n200\n');
    expect(textOf(toolResults(engine.agentTree.get('a-1')!.agent.state.messages)[1]!)).toContain(
      `saved in full to ${spilled}`,
    );
    expect(readFileSync(path.join(session.toolOutputsDir, 'main-call_1_1.txt'), 'utf8')).toMatch(
      /^Started background task t-1/,
    );
  });
});

describe('a session made for a run refused before it started', () => {
  it("is removed when it holds only its setup: the events log and a planned swarm's queued items", () => {
    const home = path.join(cwd, '.murmur');
    const unused = SessionStore.create(home, 'unused');
    writeFileSync(path.join(unused.dir, 'events.jsonl'), '{"type":"run.start"}\n');
    writeFileSync(path.join(unused.dir, 'queued-s-1.jsonl'), '{"item":"a","prompt":"Do a","rounds":0}\n');
    unused.discardIfUnused();
    expect(existsSync(unused.dir)).toBe(false);
    const used = SessionStore.create(home, 'used');
    writeFileSync(path.join(used.dir, 'queued-s-1.jsonl'), '{"item":"a","prompt":"Do a","rounds":0}\n');
    writeFileSync(path.join(used.dir, 'transcripts-1.jsonl'), '{"agent":"a-1","message":{}}\n');
    used.discardIfUnused();
    expect(existsSync(used.dir)).toBe(true);
  });
});

describe('snapshot spacing', () => {
  it("waits ten times what the last snapshot's text cost to make, not what its write waited for", async () => {
    let now = 0;
    const delays: number[] = [];
    const timers: (() => void)[] = [];
    const clock = {
      now: () => now,
      setTimeout: (fn: () => void, ms: number) => {
        delays.push(ms);
        timers.push(fn);
        return timers.length;
      },
      clearTimeout: () => undefined,
    };
    const session = SessionStore.create(path.join(cwd, '.murmur'), 'spacing', clock);
    session.saveState(() => ({ version: 1, n: 1 }));
    // Making this snapshot's text takes 30 ms of the clock; the write then ends 5 s later (a busy event loop).
    session.saveState(() => {
      now += 30;
      return { version: 1, n: 2 };
    });
    timers.at(-1)!();
    now += 5000;
    const file = path.join(session.dir, 'state.json');
    await waitFor('the second snapshot', () => (readJson(file) as { n: number }).n === 2);
    await new Promise((resolve) => setImmediate(resolve));
    session.saveState(() => ({ version: 1, n: 3 }));
    expect(delays).toEqual([200, 300]);
    await session.flush();
    expect((readJson(file) as { n: number }).n).toBe(3);
  });
});

describe('restoring a session left by a killed process', () => {
  it('opens only a session id, never a path out of the state folder', async () => {
    const elsewhere = SessionStore.create(path.join(cwd, 'other'), 'kept');
    elsewhere.saveState(() => ({ version: 1 }));
    await elsewhere.flush();
    // Another state folder's session is exactly what a "../" id would reach.
    expect(() => SessionStore.open(path.join(cwd, '.murmur'), '../../other/sessions/kept')).toThrow(
      /is not a session id/,
    );
    expect(() => SessionStore.open(path.join(cwd, '.murmur'), '..')).toThrow(/is not a session id/);
    expect(SessionStore.open(path.join(cwd, 'other'), 'kept').id).toBe('kept');
  });

  it('keeps finished agents finished, marks running ones interrupted, repairs their transcripts, and continues', async () => {
    const home = path.join(cwd, '.murmur');
    const crashed = SessionStore.create(home, 'crashed');
    const call = (id: string, name: string, args: object) => ({ id, name, arguments: JSON.stringify(args) });
    const mainMessages: Message[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        text: '',
        stopReason: 'tool_calls',
        toolCalls: [
          call('call_1_1', 'agent', { prompt: 'Quick job', description: 'quick' }),
          call('call_1_2', 'agent', { prompt: 'Slow job', description: 'slow' }),
        ],
      },
    ];
    const quickMessages: Message[] = [
      { role: 'user', content: 'Quick job' },
      {
        role: 'assistant',
        text: 'quick done',
        toolCalls: [],
        stopReason: 'end',
        usage: { input: 5, output: 1, cacheRead: 0, cacheWrite: 0 },
      },
    ];
    const slowMessages: Message[] = [
      { role: 'user', content: 'Slow job' },
      {
        role: 'assistant',
        text: '',
        stopReason: 'tool_calls',
        toolCalls: [call('call_1_1', 'write', { path: 'slow.txt', content: 's' })],
      },
    ];
    const writer = new TranscriptWriter((id) => crashed.transcriptPath(id));
    for (const m of mainMessages) writer.append('main', m);
    for (const m of quickMessages) writer.append('a-1', m);
    for (const m of slowMessages) writer.append('a-2', m);
    const agent = (id: string, status: string, extra: object) => ({
      id,
      role: 'worker',
      profile: 'worker',
      status,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      turns: 1,
      toolCalls: 0,
      depth: 1,
      parentId: 'main',
      ...extra,
    });
    const task = (taskId: string, status: string) => ({
      taskId,
      kind: 'bash',
      description: taskId,
      status,
      ownerAgentId: 'main',
      startedAt: 1,
      outputPath: path.join(crashed.dir, 'tasks', taskId, 'output.log'),
    });
    crashed.saveState(() => ({
      version: 1,
      id: 'crashed',
      kind: 'run',
      createdAt: 1,
      updatedAt: 2,
      cwd,
      model: 'scripted',
      task: 'go',
      status: 'running',
      agents: [
        agent('main', 'running', { role: 'main', profile: 'main', depth: 0, parentId: undefined }),
        agent('a-1', 'completed', { description: 'quick' }),
        agent('a-2', 'running', { description: 'slow' }),
      ],
      tasks: [task('t-1', 'completed'), task('t-2', 'running')],
      usage: { input: 5, output: 1, cacheRead: 0, cacheWrite: 0 },
    }));
    await Promise.all([crashed.flush(), writer.flush()]);
    // The kill cut the last line of a-2's transcript in half.
    appendFileSync(crashed.transcriptPath('a-2'), '{"role":"tool","toolCallId":"call_1_1","toolN');

    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            { text: 'unused' },
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'Finish the slow job', description: 'finish', resume: 'a-2' } },
              ],
            },
            { text: 'all done' },
          ],
        },
        { match: { prompt: 'Slow job' }, turns: [{ text: 'unused' }, { text: 'slow done after the interruption' }] },
      ],
    };
    const session = SessionStore.open(home, 'crashed');
    const { engine, recorder } = scriptedEngine(cwd, script, { session });
    const state = session.loadState<SessionState>();
    const { interrupted } = engine.restore(state);
    expect(interrupted.map((r) => r.id)).toEqual(['main', 'a-2']);
    expect(engine.agentTree.get('a-1')!.agent.status).toBe('completed');
    expect(engine.agentTree.get('a-1')!.agent.state.lastText).toBe('quick done');

    // Calls that never got a result get one saying so; the file now holds exactly that conversation.
    const slow = engine.agentTree.get('a-2')!.agent.state.messages;
    expect(slow.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(textOf(slow[2]!)).toBe(INTERRUPTED_RESULT);
    expect(readJsonLines<Message>(session.transcriptPath('a-2'))).toEqual(slow);
    // main was waiting for both: the quick one had finished, so its handoff is not lost; the slow one was cut.
    const mainRepaired = engine.agentTree.get('main')!.agent.state.messages;
    expect(toolResults(mainRepaired).map((r) => [r.toolCallId, textOf(r), r.isError])).toEqual([
      ['call_1_1', '[subagent a-1 (worker) completed]\nquick done', false],
      ['call_1_2', INTERRUPTED_RESULT, true],
    ]);
    expect(readJsonLines<Message>(session.transcriptPath('main'))).toEqual(mainRepaired);

    // Earlier tasks stay listed; the one that was running is marked as interrupted; numbering continues.
    expect(engine.tasks.get('t-1')!.status).toBe('completed');
    expect(engine.tasks.get('t-2')).toMatchObject({ status: 'aborted', result: INTERRUPTED_TASK_RESULT });
    expect(engine.tasks.activeCount()).toBe(0);

    const outcome = await engine.continueMain();
    await engine.close();
    expect(outcome.status).toBe('completed');
    expect(outcome.result).toBe('all done');
    expect(textOf(toolResults(engine.agentTree.get('main')!.agent.state.messages)[2]!)).toBe(
      '[subagent a-2 (worker) completed]\nslow done after the interruption',
    );
    expect(recorder.of('agent.start').map((e) => [e.agentId, e.resumed])).toEqual([
      ['main', true],
      ['a-2', true],
    ]);
    const saved = session.loadState<SessionState>();
    expect(saved.agents.map((a) => [a.id, a.status])).toEqual([
      ['main', 'completed'],
      ['a-1', 'completed'],
      ['a-2', 'completed'],
    ]);
    expect(saved.tasks.map((t) => [t.taskId, t.status])).toEqual([
      ['t-1', 'completed'],
      ['t-2', 'aborted'],
    ]);
    // New agents continue the numbering.
    const next = engine.agentTree.spawn({ profile: engine.agentTree.get('a-2')!.profile, parentId: 'main' });
    expect(next.ok && next.record.id).toBe('a-3');
  });
});
