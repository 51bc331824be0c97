import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { defineRuntimeTool } from '../../tools/contract.js';
import { deferred, scriptedAgent } from './helpers.js';

/** A tool that records when each call starts and waits for the test to release it. */
function gatedTool(
  name: string,
  mode: 'parallel' | 'sequential' | undefined,
  log: string[],
  gates: Map<string, Promise<void>>,
) {
  return defineRuntimeTool({
    def: {
      name,
      description: name,
      parameters: Type.Object({ id: Type.String() }),
      ...(mode ? { executionMode: mode } : {}),
    },
    async execute(_ctx, input) {
      log.push(`start ${input.id}`);
      await (gates.get(input.id) ?? Promise.resolve());
      log.push(`end ${input.id}`);
      return { content: [{ type: 'text', text: `done ${input.id}` }] };
    },
  });
}

const twoCalls = (tool: string) => ({
  agents: [
    {
      turns: [
        {
          toolCalls: [
            { name: tool, arguments: { id: 'a' } },
            { name: tool, arguments: { id: 'b' } },
          ],
        },
        { text: 'finished' },
      ],
    },
  ],
});

describe('the agent loop', () => {
  it('runs parallel tools at once and returns results in call order', async () => {
    const log: string[] = [];
    const gateA = deferred();
    const tool = gatedTool('p', 'parallel', log, new Map([['a', gateA.promise]]));
    const { agent } = scriptedAgent(twoCalls('p'), [tool]);
    const running = agent.run('go');
    // b finishes while a still waits: they overlap.
    await new Promise((r) => setTimeout(r, 20));
    expect(log).toEqual(['start a', 'start b', 'end b']);
    gateA.resolve();
    const result = await running;
    expect(result.status).toBe('completed');
    const results = agent.state.messages.filter((m) => m.role === 'tool');
    expect(results.map((m) => (m.role === 'tool' ? m.toolCallId : ''))).toEqual(['call_1_1', 'call_1_2']);
  });

  it('runs the whole batch in sequence when any tool is sequential (absent mode = sequential)', async () => {
    const log: string[] = [];
    const par = gatedTool('p', 'parallel', log, new Map());
    const seq = gatedTool('s', undefined, log, new Map());
    const script = {
      agents: [
        {
          turns: [
            {
              toolCalls: [
                { name: 'p', arguments: { id: 'a' } },
                { name: 's', arguments: { id: 'b' } },
                { name: 'p', arguments: { id: 'c' } },
              ],
            },
            { text: 'ok' },
          ],
        },
      ],
    };
    const { agent } = scriptedAgent(script, [par, seq]);
    await agent.run('go');
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('turns unknown tools, bad JSON, bad arguments and throwing tools into error results and carries on', async () => {
    const thrower = defineRuntimeTool({
      def: {
        name: 'boom',
        description: '',
        parameters: Type.Object({ n: Type.Integer({ minimum: 1 }) }),
        executionMode: 'parallel',
      },
      execute: () => {
        throw new Error('kaboom');
      },
    });
    const script = {
      agents: [
        {
          turns: [
            {
              toolCalls: [
                { name: 'nope', arguments: {} },
                { name: 'boom', arguments: '{"n": 1' },
                { name: 'boom', arguments: { n: 0 } },
                { name: 'boom', arguments: { n: 1 } },
              ],
            },
            { text: 'survived' },
          ],
        },
      ],
    };
    const { agent, events } = scriptedAgent(script, [thrower], {}, 'explore');
    const result = await agent.run('go');
    expect(result.status).toBe('completed');
    expect(result.text).toBe('survived');
    const texts = agent.state.messages.flatMap((m) =>
      m.role === 'tool' ? [(m.content[0] as { text: string }).text] : [],
    );
    expect(texts[0]).toBe('Tool "nope" is not available to the explore agent. Available tools: boom.');
    expect(texts[1]).toMatch(/^Invalid arguments for tool "boom": not valid JSON/);
    expect(texts[2]).toMatch(/^Invalid arguments for tool "boom": \/n: Expected integer to be greater or equal to 1/);
    expect(texts[3]).toBe('Tool "boom" failed: kaboom');
    expect(events.filter((e) => e.type === 'tool.end' && e.isError)).toHaveLength(4);
  });

  it('fails the run with the reason when the model fails, without crashing', async () => {
    const script = { agents: [{ turns: [{ failFirst: { status: 401, times: 1 }, text: 'never' }] }] };
    const { agent, events } = scriptedAgent(script, []);
    const result = await agent.run('go');
    expect(result.status).toBe('failed');
    expect(result.reason).toContain('HTTP 401');
    expect(events.find((e) => e.type === 'agent.end')).toMatchObject({ status: 'failed' });
  });

  it('lets queued messages join after the current tool batch and before the next model call', async () => {
    const gate = deferred();
    const log: string[] = [];
    const tool = gatedTool('p', 'parallel', log, new Map([['a', gate.promise]]));
    const script = { agents: [{ turns: [{ toolCalls: [{ name: 'p', arguments: { id: 'a' } }] }, { text: 'seen' }] }] };
    const { agent, events } = scriptedAgent(script, [tool]);
    const running = agent.run('go');
    await new Promise((r) => setTimeout(r, 10));
    agent.enqueue({
      role: 'user',
      content: 'background done',
      synthetic: { kind: 'task-notification', taskId: 't-1' },
    });
    gate.resolve();
    await running;
    const roles = agent.state.messages.map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(events.find((e) => e.type === 'message.synthetic')).toMatchObject({
      kind: 'task-notification',
      taskId: 't-1',
    });
  });

  it('tells the owner about a message that arrives while idle', async () => {
    const woken: string[] = [];
    const { agent } = scriptedAgent({ agents: [{ turns: [{ text: 'one' }, { text: 'two' }] }] }, [], {}, 'main', {
      onIdleMessage: (a) => woken.push(a.id),
    });
    await agent.run('go');
    woken.length = 0;
    agent.enqueue({ role: 'user', content: 'wake up', synthetic: { kind: 'timer' } });
    expect(woken).toEqual(['a1']);
    const second = await agent.run();
    expect(second.text).toBe('two');
  });

  it('aborts the model and running tools through the signal, ending `aborted`', async () => {
    let sawAbort = false;
    const slow = defineRuntimeTool({
      def: { name: 'slow', description: '', parameters: Type.Object({}), executionMode: 'parallel' },
      execute: (_ctx, _input, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            sawAbort = true;
            resolve({ content: [{ type: 'text', text: 'stopped' }], isError: true });
          });
        }),
    });
    const { agent } = scriptedAgent(
      { agents: [{ turns: [{ toolCalls: [{ name: 'slow', arguments: {} }] }, { text: 'never' }] }] },
      [slow],
    );
    const running = agent.run('go');
    await new Promise((r) => setTimeout(r, 10));
    agent.abort();
    const result = await running;
    expect(sawAbort).toBe(true);
    expect(result.status).toBe('aborted');
    // The transcript stays whole: the call has its result.
    expect(agent.state.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'call_1_1' });
  });

  it('ends `timeout` when the run outlives its timeout', async () => {
    const { agent } = scriptedAgent({ agents: [{ turns: [{ latencyMs: 5000, text: 'late' }] }] }, []);
    const result = await agent.run('go', { timeoutMs: 30 });
    expect(result.status).toBe('timeout');
  });

  it('stops at maxTurns with a reason', async () => {
    const echo = defineRuntimeTool({
      def: { name: 'e', description: '', parameters: Type.Object({}), executionMode: 'parallel' },
      execute: () => ({ content: [] }),
    });
    const loopTurn = { toolCalls: [{ name: 'e', arguments: {} }] };
    const { agent } = scriptedAgent({ agents: [{ turns: [loopTurn, loopTurn, loopTurn, loopTurn] }] }, [echo], {
      maxTurns: 2,
    });
    const result = await agent.run('go');
    expect(result.status).toBe('failed');
    expect(result.reason).toBe('reached maxTurns (2) before finishing');
  });

  it('stops with `budget` once the budget is spent, keeping the partial work and giving every call a result', async () => {
    const echo = defineRuntimeTool({
      def: { name: 'e', description: '', parameters: Type.Object({}), executionMode: 'parallel' },
      execute: () => ({ content: [{ type: 'text', text: 'ran' }] }),
    });
    const turn = (n: number) => ({
      text: `step ${n}`,
      toolCalls: [{ name: 'e', arguments: {} }],
      usage: { input: 100, output: 10 },
    });
    let spent = 0;
    const { agent } = scriptedAgent({ agents: [{ turns: [turn(1), turn(2), turn(3)] }] }, [echo], {
      onUsage: (u) => (spent += u.input + u.output),
      budgetSpent: () => spent >= 200,
    });
    const result = await agent.run('go');
    expect(result.status).toBe('budget');
    expect(result.text).toBe('step 2');
    const last = agent.state.messages.at(-1)!;
    expect(last).toMatchObject({ role: 'tool', isError: true });
    expect(agent.state.usage.input).toBe(200);
  });

  it("streams a tool's partial output to events", async () => {
    const streaming = defineRuntimeTool({
      def: { name: 'sh', description: '', parameters: Type.Object({}), executionMode: 'parallel' },
      execute: (_ctx, _input, _signal, onUpdate) => {
        onUpdate({ text: 'line 1\n' });
        onUpdate({ text: 'line 2\n' });
        return { content: [{ type: 'text', text: 'ok' }] };
      },
    });
    const { agent, events } = scriptedAgent(
      { agents: [{ turns: [{ toolCalls: [{ name: 'sh', arguments: {} }] }, { text: 'ok' }] }] },
      [streaming],
    );
    await agent.run('go');
    expect(events.filter((e) => e.type === 'tool.update').map((e) => (e.type === 'tool.update' ? e.text : ''))).toEqual(
      ['line 1\n', 'line 2\n'],
    );
  });

  it('keeps running when a subscriber throws or is slow', async () => {
    const { agent, bus } = scriptedAgent({ agents: [{ turns: [{ text: 'fine' }] }] }, []);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    bus.on('turn.start', () => {
      throw new Error('bad subscriber');
    });
    let slowSeen = 0;
    bus.on('*', () => {
      slowSeen++;
      void new Promise((r) => setTimeout(r, 1000));
    });
    const result = await agent.run('go');
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(result.status).toBe('completed');
    expect(slowSeen).toBeGreaterThan(3);
    expect(warnings.some((w) => w.includes('bad subscriber'))).toBe(true);
  });

  it('builds no event nobody listens to, and only the ones somebody does', async () => {
    const echo = defineRuntimeTool({
      def: { name: 'e', description: '', parameters: Type.Object({}), executionMode: 'parallel' },
      execute: () => ({ content: [{ type: 'text', text: 'ran' }] }),
    });
    const calls = {
      toolCalls: [
        { name: 'e', arguments: {} },
        { name: 'e', arguments: {} },
      ],
    };
    const script = { agents: [{ turns: [calls, { text: 'done' }, calls, { text: 'done again' }] }] };
    const quiet = scriptedAgent(script, [echo], {}, 'worker', { subscribe: false });
    const emitted: string[] = [];
    const emit = quiet.bus.emit.bind(quiet.bus);
    quiet.bus.emit = (event) => {
      emitted.push(event.type);
      emit(event);
    };
    expect((await quiet.agent.run('go')).status).toBe('completed');
    expect(emitted).toEqual([]);

    quiet.bus.on('tool.end', () => undefined);
    expect((await quiet.agent.run('again')).status).toBe('completed');
    expect(emitted).toEqual(['tool.end', 'tool.end']);
  });

  it('emits the contract events with agentId and ts', async () => {
    const { agent, events } = scriptedAgent(
      { agents: [{ turns: [{ text: 'hi', usage: { input: 3, output: 2 } }] }] },
      [],
    );
    await agent.run('go');
    const types = events.map((e) => e.type).filter((t) => t !== 'message' && t !== 'message.delta');
    expect(types).toEqual(['agent.start', 'turn.start', 'turn.end', 'agent.end']);
    for (const e of events) {
      expect(typeof e.ts).toBe('number');
      expect((e as { agentId?: string }).agentId).toBe('a1');
    }
    expect(events.find((e) => e.type === 'agent.end')).toMatchObject({
      status: 'completed',
      usage: { input: 3, output: 2 },
      turns: 1,
    });
  });
});
