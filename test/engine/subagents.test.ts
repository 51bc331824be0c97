// The agent tool end to end through the Engine and the scripted model: parallel foreground subagents, limits
// (timeout, depth, spawn cap, model requests in flight), budgets, usage roll-up, resume and subagent types.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentProfile } from '../../roles/profile.js';
import { removeDir, scriptedEngine, tempDir, textOf, toolResults, type Script } from './helpers.js';

let cwd: string;
beforeEach(async () => {
  cwd = await tempDir();
});
afterEach(async () => {
  await removeDir(cwd);
});

const lead = (extra: Partial<AgentProfile> = {}): AgentProfile => ({
  name: 'lead',
  description: 'delegates',
  role: 'custom',
  prompt: 'You lead.',
  builtin: false,
  subagents: ['lead', 'worker'],
  ...extra,
});

describe('foreground subagents', () => {
  it('runs two agent calls of one message at the same time and returns each last message', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'Task A', description: 'do task A' } },
                { name: 'agent', arguments: { prompt: 'Task B', description: 'do task B', subagent_type: 'explore' } },
              ],
            },
            { text: 'both done' },
          ],
        },
        { match: { prompt: 'Task (\\w)' }, turns: [{ latencyMs: 150, text: 'did $1' }] },
      ],
    };
    const { engine, recorder } = scriptedEngine(cwd, script);
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    expect(outcome.result).toBe('both done');

    // Overlap: both subagents started before either ended.
    const starts = recorder.of('agent.start').filter((e) => e.parentId === 'main');
    const firstEnd = recorder.indexOf((e) => e.type === 'agent.end' && e.agentId !== 'main');
    expect(starts.map((e) => [e.agentId, e.role])).toEqual([
      ['a-1', 'worker'],
      ['a-2', 'explore'],
    ]);
    for (const start of starts) expect(recorder.events.indexOf(start)).toBeLessThan(firstEnd);

    const main = engine.agentTree.get('main')!;
    const results = toolResults(main.agent.state.messages).map(textOf);
    expect(results).toEqual(['[subagent a-1 (worker) completed]\ndid A', '[subagent a-2 (explore) completed]\ndid B']);
  });

  it('ends only the agent that timed out, with status timeout (global default and per definition)', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'Hang forever', description: 'hangs' } },
                {
                  name: 'agent',
                  arguments: { prompt: 'Hang briefly', description: 'hangs less', subagent_type: 'quick' },
                },
                { name: 'agent', arguments: { prompt: 'Quick one', description: 'is quick' } },
              ],
            },
            { text: 'main carried on' },
          ],
        },
        { match: { prompt: 'Hang forever' }, turns: [{ latencyMs: 10_000, text: 'never' }] },
        { match: { prompt: 'Hang briefly' }, turns: [{ latencyMs: 10_000, text: 'never' }] },
        { match: { prompt: 'Quick' }, turns: [{ latencyMs: 50, text: 'quick done' }] },
      ],
    };
    const quick: AgentProfile = {
      name: 'quick',
      description: '',
      role: 'custom',
      prompt: 'Be quick.',
      builtin: false,
      timeoutMs: 100,
    };
    const { engine, recorder } = scriptedEngine(cwd, script, {
      limits: { agentTimeoutMs: 400 },
      definitions: new Map([['quick', quick]]),
    });
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    expect(outcome.result).toBe('main carried on');
    const ends = Object.fromEntries(recorder.of('agent.end').map((e) => [e.agentId, e]));
    expect(ends['a-1']).toMatchObject({ status: 'timeout', reason: 'timed out after 400 ms' });
    expect(ends['a-2']).toMatchObject({ status: 'timeout', reason: 'timed out after 100 ms' });
    expect(ends['a-3']!.status).toBe('completed');
    // The per-definition timeout fired well before the global one.
    expect(ends['a-2']!.ts).toBeLessThan(ends['a-1']!.ts);
    const results = toolResults(engine.agentTree.get('main')!.agent.state.messages);
    expect(results.map((r) => r.isError)).toEqual([true, true, false]);
    expect(textOf(results[0]!)).toContain('[subagent a-1 (worker) timeout: timed out after 400 ms]');
  });

  it('aborting a parent (here: its timeout) aborts its running children', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'Lead it', description: 'lead', subagent_type: 'lead' } },
              ],
            },
            { text: 'ok' },
          ],
        },
        {
          match: { role: 'lead' },
          turns: [
            { toolCalls: [{ name: 'agent', arguments: { prompt: 'Dig deep', description: 'digs' } }] },
            { text: 'never' },
          ],
        },
        { match: { role: 'worker' }, turns: [{ latencyMs: 10_000, text: 'never' }] },
      ],
    };
    const { engine, recorder } = scriptedEngine(cwd, script, {
      definitions: new Map([['lead', lead({ timeoutMs: 200 })]]),
    });
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    const ends = Object.fromEntries(recorder.of('agent.end').map((e) => [e.agentId, e.status]));
    expect(ends).toEqual({ 'a-1': 'timeout', 'a-2': 'aborted', main: 'completed' });
    expect(recorder.of('agent.end', 'a-2')[0]!.reason).toBe('its parent a-1 timed out');
  });
});

describe('limits', () => {
  it('allows exactly maxDepth levels below main: the scheduler refuses the next level with a clear error', async () => {
    const { engine } = scriptedEngine(cwd, { agents: [] }, { limits: { maxDepth: 2 } });
    const scheduler = engine.agentTree;
    const main = scheduler.spawn({ profile: lead(), description: 'main' });
    expect(main.ok && main.record.depth).toBe(0);
    const one = scheduler.spawn({ profile: lead(), parentId: 'main' });
    const two = scheduler.spawn({ profile: lead(), parentId: 'a-1' });
    expect(one.ok && one.record.depth).toBe(1);
    expect(two.ok && two.record.depth).toBe(2);
    const three = scheduler.spawn({ profile: lead(), parentId: 'a-2' });
    expect(three).toEqual({
      ok: false,
      error:
        'nesting limit reached: a-2 is already 2 level(s) below main, and at most 2 level(s) of subagents are allowed; do the work yourself',
    });
    expect(scheduler.all().map((r) => r.id)).toEqual(['main', 'a-1', 'a-2']);
    expect(scheduler.spawnedCount).toBe(2);
  });

  it('through the agent tool: depth maxDepth is reached, the agent there cannot delegate, nothing more is spawned', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'Level 1', description: 'level one', subagent_type: 'lead' } },
              ],
            },
            { text: 'main done' },
          ],
        },
        {
          match: { role: 'lead', prompt: 'Level (\\d)' },
          turns: [
            {
              toolCalls: [
                {
                  name: 'agent',
                  arguments: { prompt: 'Level deeper than $1', description: 'go deeper', subagent_type: 'lead' },
                },
              ],
            },
            { text: 'level $1 done' },
          ],
        },
        {
          match: { role: 'lead', prompt: 'deeper than 1' },
          turns: [
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'Level 3', description: 'too deep', subagent_type: 'lead' } },
              ],
            },
            { text: 'level 2 done' },
          ],
        },
      ],
    };
    const { engine } = scriptedEngine(cwd, script, {
      limits: { maxDepth: 2 },
      definitions: new Map([['lead', lead()]]),
    });
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    expect(engine.agentTree.all().map((r) => [r.id, r.depth])).toEqual([
      ['main', 0],
      ['a-1', 1],
      ['a-2', 2],
    ]);
    const deepest = toolResults(engine.agentTree.get('a-2')!.agent.state.messages);
    expect(deepest).toHaveLength(1);
    expect(deepest[0]!.isError).toBe(true);
    expect(textOf(deepest[0]!)).toMatch(/^Tool "agent" is not available to the lead agent\./);
  });

  it('caps the agents spawned per run: the call over the cap gets an error and nothing starts', async () => {
    const call = (n: number) => ({ name: 'agent', arguments: { prompt: `Job ${n}`, description: `job ${n}` } });
    const script: Script = {
      agents: [
        { match: { role: 'main' }, turns: [{ toolCalls: [call(1), call(2), call(3)] }, { text: 'capped' }] },
        { match: { prompt: 'Job (\\d)' }, turns: [{ text: 'job $1 done' }] },
      ],
    };
    const { engine, recorder } = scriptedEngine(cwd, script, { limits: { maxAgents: 2 } });
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    const results = toolResults(engine.agentTree.get('main')!.agent.state.messages);
    expect(results.map((r) => r.isError)).toEqual([false, false, true]);
    expect(textOf(results[2]!)).toBe(
      'No subagent started: spawn cap reached: this run has already started 2 subagents (limit 2).',
    );
    expect(engine.agentTree.all()).toHaveLength(3);
    expect(recorder.of('agent.start').filter((e) => e.agentId !== 'main')).toHaveLength(2);
  });

  it('starts no new subagent once the run budget is spent', async () => {
    const script: Script = {
      agents: [{ match: { role: 'main' }, turns: [{ usage: { input: 150, output: 0 }, text: 'spent it all' }] }],
    };
    const { engine } = scriptedEngine(cwd, script, { limits: { runBudgetTokens: 100 } });
    const outcome = await engine.runTask('start');
    expect(outcome).toMatchObject({ status: 'budget', result: 'spent it all' });
    const spawned = engine.agentTree.spawn({ profile: lead(), parentId: 'main' });
    expect(spawned).toEqual({ ok: false, error: "the run's token budget is spent (150 of 100 tokens)" });
    expect(engine.agentTree.all()).toHaveLength(1);
  });

  it('queues model requests beyond the global limit instead of flooding the provider', async () => {
    const calls = [1, 2, 3, 4, 5].map((n) => ({
      name: 'agent',
      arguments: { prompt: `Job ${n}`, description: `job ${n}` },
    }));
    const script: Script = {
      // The scripted provider answers 429 to a third request in flight: the gate must never let one through.
      rateLimit: { maxConcurrent: 2, retryAfterMs: 10 },
      agents: [
        { match: { role: 'main' }, turns: [{ toolCalls: calls }, { text: 'all done' }] },
        { match: { prompt: 'Job (\\d)' }, turns: [{ latencyMs: 60, text: 'job $1 done' }] },
      ],
    };
    const { engine, recorder } = scriptedEngine(cwd, script, { limits: { maxModelRequests: 2 } });
    let maxQueued = 0;
    let maxInFlight = 0;
    engine.bus.on('turn.end', () => {
      maxQueued = Math.max(maxQueued, engine.agentTree.modelLoad.queued);
      maxInFlight = Math.max(maxInFlight, engine.agentTree.modelLoad.inFlight);
    });
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    expect(recorder.of('model.retry')).toEqual([]);
    expect(recorder.of('agent.end').filter((e) => e.status === 'completed')).toHaveLength(6);
    expect(maxQueued).toBeGreaterThan(0);
    expect(maxInFlight).toBeLessThanOrEqual(2);
  });
});

describe('budgets and usage', () => {
  it('stops an agent that spent its own budget with status budget, keeping its partial work and last message', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            { toolCalls: [{ name: 'agent', arguments: { prompt: 'Write two files', description: 'write files' } }] },
            { text: 'main done' },
          ],
        },
        {
          match: { role: 'worker' },
          turns: [
            {
              usage: { input: 500, output: 100 },
              toolCalls: [{ name: 'write', arguments: { path: 'a.txt', content: 'a' } }],
            },
            {
              usage: { input: 400, output: 50 },
              text: 'wrote a.txt, b.txt next',
              toolCalls: [{ name: 'write', arguments: { path: 'b.txt', content: 'b' } }],
            },
            { text: 'never reached' },
          ],
        },
      ],
    };
    const { engine, recorder } = scriptedEngine(cwd, script, { limits: { agentBudgetTokens: 1000 } });
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    expect(existsSync(path.join(cwd, 'a.txt'))).toBe(true);
    expect(existsSync(path.join(cwd, 'b.txt'))).toBe(false);
    const worker = engine.agentTree.get('a-1')!;
    expect(worker.agent.status).toBe('budget');
    expect(worker.agent.state.lastText).toBe('wrote a.txt, b.txt next');
    expect(recorder.of('agent.end', 'a-1')[0]).toMatchObject({ status: 'budget', reason: 'token budget spent' });
    // The transcript stays whole: the call that did not run has a result saying why.
    const last = worker.agent.state.messages.at(-1)!;
    expect(last).toMatchObject({ role: 'tool', toolName: 'write', isError: true });
    const handoff = toolResults(engine.agentTree.get('main')!.agent.state.messages)[0]!;
    expect(handoff.isError).toBe(true);
    expect(textOf(handoff)).toBe('[subagent a-1 (worker) budget: token budget spent]\nwrote a.txt, b.txt next');
  });

  it('stops every agent once the run budget is spent', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              usage: { input: 300, output: 0 },
              text: 'delegating',
              toolCalls: [{ name: 'agent', arguments: { prompt: 'Write two files', description: 'write files' } }],
            },
            {
              usage: { input: 10, output: 5 },
              text: 'summary after the worker',
              toolCalls: [{ name: 'write', arguments: { path: 'main.txt', content: 'm' } }],
            },
            { text: 'never reached' },
          ],
        },
        {
          match: { role: 'worker' },
          turns: [
            {
              usage: { input: 400, output: 100 },
              toolCalls: [{ name: 'write', arguments: { path: 'a.txt', content: 'a' } }],
            },
            {
              usage: { input: 200, output: 50 },
              text: 'half done',
              toolCalls: [{ name: 'write', arguments: { path: 'b.txt', content: 'b' } }],
            },
          ],
        },
      ],
    };
    const { engine } = scriptedEngine(cwd, script, { limits: { runBudgetTokens: 1000 } });
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('budget');
    // Once the run's budget is spent nobody calls the model again: main keeps its last message.
    expect(outcome.result).toBe('delegating');
    expect(engine.agentTree.get('a-1')!.agent.status).toBe('budget');
    expect(['a.txt', 'b.txt', 'main.txt'].map((f) => existsSync(path.join(cwd, f)))).toEqual([true, false, false]);
    expect(outcome.usage).toMatchObject({ input: 900, output: 150 });
  });

  it('rolls usage (tokens and cost) up to every ancestor and the run, live', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              usage: { input: 10, output: 1, cost: 0.001 },
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'Lead it', description: 'lead', subagent_type: 'lead' } },
              ],
            },
            { usage: { input: 20, output: 2 }, text: 'done' },
          ],
        },
        {
          match: { role: 'lead' },
          turns: [
            {
              usage: { input: 100, output: 10, cacheRead: 5 },
              toolCalls: [{ name: 'agent', arguments: { prompt: 'Work', description: 'work' } }],
            },
            { usage: { input: 200, output: 20 }, text: 'led' },
          ],
        },
        {
          match: { role: 'worker' },
          turns: [
            {
              usage: { input: 1000, output: 100, cacheWrite: 7, cost: 0.5 },
              toolCalls: [{ name: 'glob', arguments: { pattern: '*' } }],
            },
            { usage: { input: 2000, output: 200 }, text: 'worked' },
          ],
        },
      ],
    };
    const { engine } = scriptedEngine(cwd, script, { definitions: new Map([['lead', lead()]]) });
    const seen: Record<string, number>[] = [];
    // At the end of the worker's first turn, before it finishes, its usage is already in every total.
    engine.bus.on('turn.end', (event) => {
      if (event.agentId !== 'a-2' || event.turn !== 1) return;
      const s = engine.agentTree;
      seen.push({
        main: s.get('main')!.totalUsage.input,
        lead: s.get('a-1')!.totalUsage.input,
        worker: s.get('a-2')!.totalUsage.input,
        run: s.runUsage.input,
      });
    });
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    expect(seen).toEqual([{ main: 1110, lead: 1100, worker: 1000, run: 1110 }]);

    const s = engine.agentTree;
    expect(s.get('a-2')!.totalUsage).toEqual({ input: 3000, output: 300, cacheRead: 0, cacheWrite: 7, cost: 0.5 });
    expect(s.get('a-1')!.totalUsage).toEqual({ input: 3300, output: 330, cacheRead: 5, cacheWrite: 7, cost: 0.5 });
    expect(s.get('main')!.totalUsage).toEqual({ input: 3330, output: 333, cacheRead: 5, cacheWrite: 7, cost: 0.501 });
    expect(outcome.usage).toEqual(s.get('main')!.totalUsage);
    // Each agent's own usage stays its own.
    expect(outcome.agents.find((a) => a.id === 'a-1')!.usage).toMatchObject({ input: 300, output: 30 });
  });
});

describe('resume and subagent types', () => {
  it('resumes a finished subagent with its whole context and a new prompt', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'Remember the word kiwi', description: 'remember a word' } },
              ],
            },
            {
              toolCalls: [
                {
                  name: 'agent',
                  arguments: { prompt: 'Which word was it?', description: 'recall the word', resume: 'a-1' },
                },
              ],
            },
            { text: 'main done' },
          ],
        },
        { match: { prompt: 'Remember the word (\\w+)' }, turns: [{ text: 'noted $1' }, { text: 'the word was $1' }] },
      ],
    };
    const { engine, recorder } = scriptedEngine(cwd, script);
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    const results = toolResults(engine.agentTree.get('main')!.agent.state.messages).map(textOf);
    expect(results).toEqual([
      '[subagent a-1 (worker) completed]\nnoted kiwi',
      '[subagent a-1 (worker) completed]\nthe word was kiwi',
    ]);
    const worker = engine.agentTree.get('a-1')!;
    expect(worker.agent.state.messages.map((m) => [m.role, textOf(m)])).toEqual([
      ['user', 'Remember the word kiwi'],
      ['assistant', 'noted kiwi'],
      ['user', 'Which word was it?'],
      ['assistant', 'the word was kiwi'],
    ]);
    expect(recorder.of('agent.start', 'a-1').map((e) => e.resumed)).toEqual([false, true]);
    expect(engine.agentTree.all()).toHaveLength(2);
  });

  it("refuses to resume a running subagent or another parent's, and to combine resume with subagent_type", async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'Slow job', description: 'slow job', run_in_background: true } },
                { name: 'agent', arguments: { prompt: 'Lead it', description: 'lead', subagent_type: 'lead' } },
              ],
            },
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'go on', description: 'continue slow job', resume: 'a-1' } },
                { name: 'agent', arguments: { prompt: 'go on', description: 'continue other', resume: 'a-3' } },
                {
                  name: 'agent',
                  arguments: {
                    prompt: 'go on',
                    description: 'continue typed',
                    resume: 'a-2',
                    subagent_type: 'explore',
                  },
                },
                { name: 'agent', arguments: { prompt: 'go on', description: 'continue nobody', resume: 'a-99' } },
              ],
            },
            { toolCalls: [{ name: 'task_stop', arguments: { task_id: 't-1' } }] },
            { text: 'main done' },
          ],
        },
        { match: { prompt: 'Slow job' }, turns: [{ latencyMs: 10_000, text: 'never' }] },
        {
          match: { role: 'lead' },
          turns: [
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'Sub job', description: 'sub job', subagent_type: 'worker' } },
              ],
            },
            { text: 'led' },
          ],
        },
        { match: { prompt: 'Sub job' }, turns: [{ text: 'sub done' }] },
      ],
    };
    const { engine } = scriptedEngine(cwd, script, { definitions: new Map([['lead', lead()]]) });
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    const results = toolResults(engine.agentTree.get('main')!.agent.state.messages);
    const refusals = results.slice(2, 6);
    expect(refusals.every((r) => r.isError)).toBe(true);
    expect(refusals.map(textOf)).toEqual([
      'Subagent "a-1" is still running; wait for it (task_output) or stop it first.',
      'Subagent "a-3" belongs to another parent (a-2); you can only resume your own subagents.',
      '"resume" and "subagent_type" cannot be combined: a resumed subagent keeps its own type. Drop subagent_type.',
      'No subagent "a-99" to resume. Your subagents: a-1, a-2.',
    ]);
    expect(engine.agentTree.get('a-3')!.agent.state.turns).toBe(1);
    expect(engine.agentTree.get('a-1')!.agent.status).toBe('aborted');
  });

  it('lists the allowed types for an unknown type, and a defined agent may only start the types it lists', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'x', description: 'wizardry', subagent_type: 'wizard' } },
                { name: 'agent', arguments: { prompt: 'Scout', description: 'scout', subagent_type: 'scout' } },
                { name: 'agent', arguments: { prompt: 'Coder job', description: 'alias', subagent_type: ' Coder ' } },
              ],
            },
            { text: 'main done' },
          ],
        },
        {
          match: { role: 'scout' },
          turns: [
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'y', description: 'not allowed', subagent_type: 'worker' } },
              ],
            },
            { text: 'scouted' },
          ],
        },
        { match: { prompt: 'Coder job' }, turns: [{ text: 'coded' }] },
      ],
    };
    const scout = lead({ name: 'scout', subagents: ['explore'] });
    const { engine } = scriptedEngine(cwd, script, { definitions: new Map([['scout', scout]]) });
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    const results = toolResults(engine.agentTree.get('main')!.agent.state.messages);
    expect(results[0]!.isError).toBe(true);
    expect(textOf(results[0]!)).toBe(
      'Unknown or disallowed subagent type "wizard". Allowed types: explore, worker, coder, verifier, scout.',
    );
    expect(textOf(results[2]!)).toBe('[subagent a-2 (worker) completed]\ncoded');
    const scoutResults = toolResults(engine.agentTree.get('a-1')!.agent.state.messages);
    expect(textOf(scoutResults[0]!)).toBe('Unknown or disallowed subagent type "worker". Allowed types: explore.');
    expect(engine.agentTree.all().map((r) => r.id)).toEqual(['main', 'a-1', 'a-2']);
  });
});
