// Background work through the Engine: background subagents and their <task-notification> (busy parent, idle
// parent, exactly once, none when stopped), and the task tools (task_list, task_output, task_stop) on real
// background bash commands.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NOTIFICATION_RESULT_CHARS } from '../../orchestrator/tasks.js';
import { removeDir, scriptedEngine, syntheticMessages, tempDir, textOf, toolResults, type Script } from './helpers.js';

let cwd: string;
beforeEach(async () => {
  cwd = await tempDir();
});
afterEach(async () => {
  await removeDir(cwd);
});

const background = (prompt: string, description = 'background job') => ({
  name: 'agent',
  arguments: { prompt, description, run_in_background: true },
});

describe('background subagents', () => {
  it('returns at once, and the notification joins a busy parent after its current tool batch, once', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            { toolCalls: [background('Slow job')] },
            // Still busy with this foreground subagent when the background one ends.
            { toolCalls: [{ name: 'agent', arguments: { prompt: 'Long job', description: 'long job' } }] },
            { text: 'got it' },
          ],
        },
        { match: { prompt: 'Slow job' }, turns: [{ latencyMs: 250, text: 'slow result' }] },
        { match: { prompt: 'Long job' }, turns: [{ latencyMs: 800, text: 'long result' }] },
      ],
    };
    const { engine, recorder } = scriptedEngine(cwd, script);
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    expect(outcome.result).toBe('got it');

    const main = engine.agentTree.get('main')!;
    const messages = main.agent.state.messages;
    expect(messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);
    expect(textOf(messages[2]!)).toMatch(/^Started subagent a-1 \(worker\) in the background as task t-1\./);
    const notes = syntheticMessages(messages);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toBe(messages[5]);
    const task = engine.tasks.get('t-1')!;
    expect(textOf(notes[0]!)).toBe(
      [
        '<task-notification>',
        '<task-id>t-1</task-id>',
        '<agent-id>a-1</agent-id>',
        '<kind>agent</kind>',
        '<description>background job</description>',
        '<status>completed</status>',
        `<output-file>${task.outputPath}</output-file>`,
        '<result>slow result</result>',
        '</task-notification>',
      ].join('\n'),
    );
    expect(notes[0]!.synthetic).toEqual({ kind: 'task-notification', taskId: 't-1' });
    expect(recorder.of('message.synthetic')).toHaveLength(1);
    // The parent ran once: the notification did not start a second run.
    expect(recorder.of('agent.start', 'main')).toHaveLength(1);
    expect(readFileSync(task.outputPath, 'utf8')).toBe('slow result\n');
  });

  it('wakes an idle parent for a new turn, and the run waits for the background work', async () => {
    const long = 'x'.repeat(NOTIFICATION_RESULT_CHARS + 500);
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            { toolCalls: [background('Slow job')] },
            { text: 'waiting for the job' },
            { text: 'the job reported back' },
          ],
        },
        { match: { prompt: 'Slow job' }, turns: [{ latencyMs: 200, text: long }] },
      ],
    };
    const { engine, recorder } = scriptedEngine(cwd, script);
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    expect(outcome.result).toBe('the job reported back');

    const ends = recorder.of('agent.end').map((e) => e.agentId);
    expect(ends).toEqual(['main', 'a-1', 'main']);
    const main = engine.agentTree.get('main')!;
    const notes = syntheticMessages(main.agent.state.messages);
    expect(notes).toHaveLength(1);
    // The first 3,000 characters inline, and where to read the rest.
    const task = engine.tasks.get('t-1')!;
    const text = textOf(notes[0]!);
    expect(text).toContain(`<result>${'x'.repeat(NOTIFICATION_RESULT_CHARS)}</result>`);
    expect(text).toContain(
      `<note>The result was cut at 3000 characters; read the rest from ${task.outputPath}.</note>`,
    );
    expect(readFileSync(task.outputPath, 'utf8')).toBe(`${long}\n`);
    expect(recorder.of('agent.start', 'main')).toHaveLength(2);
  });

  it('sends no notification for a stopped task, and stopping it ends the subagent with the reason', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            { toolCalls: [background('Endless job')] },
            { toolCalls: [{ name: 'task_stop', arguments: { task_id: 't-1', reason: 'not needed any more' } }] },
            { toolCalls: [{ name: 'task_stop', arguments: { task_id: 't-1' } }] },
            { text: 'stopped it' },
          ],
        },
        { match: { prompt: 'Endless job' }, turns: [{ latencyMs: 20_000, text: 'never' }] },
      ],
    };
    const { engine, recorder } = scriptedEngine(cwd, script);
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    expect(outcome.result).toBe('stopped it');
    const main = engine.agentTree.get('main')!;
    expect(syntheticMessages(main.agent.state.messages)).toEqual([]);
    expect(recorder.of('message.synthetic')).toEqual([]);
    expect(recorder.of('agent.start', 'main')).toHaveLength(1);
    expect(engine.tasks.get('t-1')).toMatchObject({ status: 'stopped', result: 'not needed any more' });
    expect(recorder.of('agent.end', 'a-1')[0]).toMatchObject({ status: 'aborted', reason: 'not needed any more' });
    const results = toolResults(main.agent.state.messages).map(textOf);
    expect(results[1]).toBe('Stopped task t-1.');
    expect(results[2]).toBe('Task t-1 had already ended (stopped); nothing to stop.');
  });
});

describe('task tools', () => {
  it('task_list, task_output (32 KB tail, block with timeout) and task_stop on background commands', async () => {
    const bash = (command: string, description: string) => ({
      name: 'bash',
      arguments: { command, description, run_in_background: true },
    });
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                bash("head -c 40000 /dev/zero | tr '\\0' a; echo; sleep 0.3; echo TAIL-MARK", 'big output'),
                bash('sleep 30', 'sleeper'),
              ],
            },
            {
              toolCalls: [
                { name: 'task_list', arguments: {} },
                { name: 'task_output', arguments: { task_id: 't-2', block: true, timeout: 0.2 } },
              ],
            },
            { toolCalls: [{ name: 'task_output', arguments: { task_id: 't-1', block: true, timeout: 20 } }] },
            {
              toolCalls: [
                { name: 'task_stop', arguments: { task_id: 't-2' } },
                { name: 'task_output', arguments: { task_id: 't-9' } },
                { name: 'task_list', arguments: {} },
                { name: 'task_list', arguments: { active_only: false, limit: 1 } },
              ],
            },
            { toolCalls: [{ name: 'agent', arguments: { prompt: 'Peek at t-1', description: 'peek at a task' } }] },
            { text: 'done' },
          ],
        },
        {
          match: { prompt: 'Peek at (\\S+)' },
          turns: [{ toolCalls: [{ name: 'task_output', arguments: { task_id: '$1' } }] }, { text: 'peeked' }],
        },
      ],
    };
    const { engine } = scriptedEngine(cwd, script);
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    const main = engine.agentTree.get('main')!;
    const results = toolResults(main.agent.state.messages);
    const [started1, started2, list, blocked, output, stop, missing, listActive, listAll] = results.map(textOf);

    expect(started1).toMatch(/^Started background task t-1 \(big output; timeout 600 s\)/);
    expect(started2).toMatch(/^Started background task t-2 \(sleeper; timeout 600 s\)/);
    expect(list).toBe('t-1 [bash] running — big output\nt-2 [bash] running — sleeper');
    // block with a timeout that passes: the task is still running.
    expect(blocked).toMatch(/^task_id: t-2\nstatus: running\noutput_path: .*t-2\/output\.log\n/);

    const t1 = engine.tasks.get('t-1')!;
    expect(output!.split('\n').slice(0, 4)).toEqual([
      'task_id: t-1',
      'status: completed',
      `output_path: ${t1.outputPath}`,
      'result: Exit code 0.',
    ]);
    const inline = output!.slice(
      output!.indexOf('output (last 32 KB at most):\n') + 'output (last 32 KB at most):\n'.length,
    );
    expect(Buffer.byteLength(inline)).toBe(32 * 1024);
    expect(inline.endsWith('a\nTAIL-MARK\n')).toBe(true);
    expect(readFileSync(t1.outputPath, 'utf8')).toHaveLength(40_000 + '\nTAIL-MARK\n'.length);

    expect(stop).toBe('Stopped task t-2.');
    expect(missing).toBe('No background task "t-9" of yours. Use task_list to see your tasks.');
    expect(results[6]!.isError).toBe(true);
    expect(listActive).toBe('You have no running background tasks.');
    expect(listAll).toBe('t-2 [bash] stopped — sleeper');

    // A subagent sees only its own tasks.
    const worker = engine.agentTree.get('a-1')!;
    expect(textOf(toolResults(worker.agent.state.messages)[0]!)).toBe(
      'No background task "t-1" of yours. Use task_list to see your tasks.',
    );

    // t-1 ended on its own: exactly one notification; t-2 was stopped: none.
    const notes = syntheticMessages(main.agent.state.messages);
    expect(notes.map((n) => n.synthetic?.taskId)).toEqual(['t-1']);
    expect(engine.tasks.get('t-2')!.status).toBe('stopped');
  });
});

describe("a subagent's own background work", () => {
  const bg = (command: string) => ({
    name: 'bash',
    arguments: { command, description: 'build', run_in_background: true },
  });

  it('reports back to the subagent before its answer reaches the parent', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            { toolCalls: [{ name: 'agent', arguments: { prompt: 'Build it', description: 'build it' } }] },
            { text: 'main done' },
          ],
        },
        {
          match: { role: 'worker' },
          turns: [
            { toolCalls: [bg('sleep 0.3; echo built')] },
            { text: 'waiting for the build' },
            { text: 'the build finished' },
          ],
        },
      ],
    };
    const { engine, recorder } = scriptedEngine(cwd, script);
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    const handoff = toolResults(engine.agentTree.get('main')!.agent.state.messages)[0]!;
    expect(textOf(handoff)).toBe('[subagent a-1 (worker) completed]\nthe build finished');
    const worker = engine.agentTree.get('a-1')!.agent.state.messages;
    expect(syntheticMessages(worker).map((m) => m.synthetic?.taskId)).toEqual(['t-1']);
    // Woken once by its own task, and never again after its parent had the answer.
    expect(recorder.of('agent.start', 'a-1')).toHaveLength(2);
    expect(recorder.of('agent.start', 'main')).toHaveLength(1);
  });

  it('keeps the subagent "running" for its parent while it waits for that work', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'Build it', description: 'build it', run_in_background: true } },
              ],
            },
            { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 0.2' } }] },
            {
              toolCalls: [{ name: 'agent', arguments: { prompt: 'Hurry up', description: 'hurry up', resume: 'a-1' } }],
            },
            { text: 'waiting' },
            { text: 'main done' },
          ],
        },
        {
          match: { role: 'worker' },
          turns: [{ toolCalls: [bg('sleep 0.8')] }, { text: 'waiting for the build' }, { text: 'the build finished' }],
        },
      ],
    };
    const { engine } = scriptedEngine(cwd, script);
    const outcome = await engine.runTask('start');
    expect(outcome).toMatchObject({ status: 'completed', result: 'main done' });
    const main = engine.agentTree.get('main')!.agent.state.messages;
    const refusal = toolResults(main)[2]!;
    expect(refusal.isError).toBe(true);
    expect(textOf(refusal)).toBe('Subagent "a-1" is still running; wait for it (task_output) or stop it first.');
    // Idle between turns when the resume came, yet it was still working for its parent.
    expect(engine.agentTree.get('a-1')!.agent.state.turns).toBe(3);
    expect(textOf(syntheticMessages(main)[0]!)).toContain('<result>the build finished</result>');
  });

  it('is stopped when the subagent ends without waiting for it (here: its timeout)', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            { toolCalls: [{ name: 'agent', arguments: { prompt: 'Build it', description: 'build it' } }] },
            { text: 'main done' },
          ],
        },
        { match: { role: 'worker' }, turns: [{ toolCalls: [bg('sleep 30')] }, { latencyMs: 5000, text: 'never' }] },
      ],
    };
    const { engine, recorder } = scriptedEngine(cwd, script, { limits: { agentTimeoutMs: 300 } });
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    expect(engine.agentTree.get('a-1')!.agent.status).toBe('timeout');
    expect(engine.tasks.get('t-1')).toMatchObject({
      status: 'stopped',
      result: 'its subagent a-1 ended (timeout) before this task',
    });
    expect(recorder.of('message.synthetic')).toEqual([]);
    expect(recorder.of('agent.start', 'a-1')).toHaveLength(1);
  });
});
