// set_timer through the Engine with a fake clock: whole minutes (less than 1 counts as 1), checked every 30 s,
// delivered after the current turn or as a new turn of an idle agent, missed firings collapsed into one.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TIMER_CHECK_INTERVAL_MS } from '../../orchestrator/timers.js';
import { FakeClock } from '../fakes/clock.js';
import {
  removeDir,
  scriptedEngine,
  syntheticMessages,
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

const timer = (delay: number, message: string) => ({ name: 'set_timer', arguments: { delay_minutes: delay, message } });

describe('set_timer', () => {
  it('counts less than a minute as one, and wakes an idle agent for a new turn once it is due', async () => {
    const clock = new FakeClock();
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [{ toolCalls: [timer(0.2, 'check the build')] }, { text: 'waiting' }, { text: 'checked the build' }],
        },
      ],
    };
    const { engine, recorder } = scriptedEngine(cwd, script, { clock });
    const started = clock.now();
    const run = engine.runTask('start');
    await waitFor('main to go idle', () => recorder.of('agent.end', 'main').length === 1);

    const main = engine.agentTree.get('main')!;
    const set = toolResults(main.agent.state.messages)[0]!;
    expect(textOf(set)).toBe(
      `Timer timer-1 set: the message arrives in about 1 minute (at ${new Date(started + 60_000).toISOString()}).`,
    );
    expect(clock.scheduled).toContain(TIMER_CHECK_INTERVAL_MS);

    // The first check, 30 s in, finds nothing due; the run keeps waiting for the timer.
    clock.advance(30_000);
    expect(syntheticMessages(main.agent.state.messages)).toEqual([]);
    expect(engine.timers.count()).toBe(1);

    clock.advance(30_000);
    const outcome = await run;
    expect(outcome.status).toBe('completed');
    expect(outcome.result).toBe('checked the build');
    const fired = syntheticMessages(main.agent.state.messages);
    expect(fired).toHaveLength(1);
    expect(fired[0]!.synthetic).toEqual({ kind: 'timer' });
    expect(textOf(fired[0]!)).toBe('<timer-fired>\n<timer id="timer-1">check the build</timer>\n</timer-fired>');
    expect(recorder.of('agent.start', 'main')).toHaveLength(2);
    expect(engine.timers.count()).toBe(0);
    expect(clock.scheduled).toEqual([]);
  });

  it('delivers to a busy agent after its current tool batch', async () => {
    const clock = new FakeClock();
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            { toolCalls: [timer(2, 'look again')] },
            { toolCalls: [{ name: 'glob', arguments: { pattern: '*' } }] },
            { text: 'done' },
          ],
        },
      ],
    };
    const { engine } = scriptedEngine(cwd, script, { clock });
    // The timer comes due while the glob call of the second turn runs.
    engine.bus.on('tool.start', (event) => {
      if (event.tool === 'glob') clock.advance(2 * 60_000);
    });
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    const messages = engine.agentTree.get('main')!.agent.state.messages;
    expect(messages.map((m) => (m.role === 'user' && m.synthetic ? 'timer' : m.role))).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'timer',
      'assistant',
    ]);
  });

  it('collapses timers that came due while the process was not checking into one message', async () => {
    const clock = new FakeClock();
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            { toolCalls: [timer(1, 'first'), timer(3, 'second <b>')] },
            { text: 'waiting' },
            { text: 'handled both' },
          ],
        },
      ],
    };
    const { engine, recorder } = scriptedEngine(cwd, script, { clock });
    const run = engine.runTask('start');
    await waitFor('main to go idle', () => recorder.of('agent.end', 'main').length === 1);
    // Ten minutes pass at once (a suspended laptop): both timers are overdue at the next check.
    clock.advance(10 * 60_000);
    const outcome = await run;
    expect(outcome.result).toBe('handled both');
    const fired = syntheticMessages(engine.agentTree.get('main')!.agent.state.messages);
    expect(fired.map(textOf)).toEqual([
      '<timer-fired>\n<timer id="timer-1">first</timer>\n<timer id="timer-2">second &lt;b></timer>\n</timer-fired>',
    ]);
    expect(recorder.of('agent.start', 'main')).toHaveLength(2);
    clock.advance(10 * 60_000);
    expect(recorder.of('message.synthetic')).toHaveLength(1);
  });

  it('refuses a negative delay with an error naming the argument', async () => {
    const clock = new FakeClock();
    const script: Script = {
      agents: [{ match: { role: 'main' }, turns: [{ toolCalls: [timer(-1, 'never')] }, { text: 'ok' }] }],
    };
    const { engine } = scriptedEngine(cwd, script, { clock });
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    const result = toolResults(engine.agentTree.get('main')!.agent.state.messages)[0]!;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('delay_minutes');
    expect(engine.timers.count()).toBe(0);
  });
});
