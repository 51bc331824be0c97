// The built `murmur` command as a child process: `murmur run` waits for the background work it started, and a
// run killed mid-way (SIGKILL) is finished by `murmur resume ID`. Spawns package.json's bin (npm test builds it).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEndEvent, AgentStartEvent, MurmurEvent } from '../../orchestrator/events.js';
import type { SessionState } from '../../orchestrator/engine.js';
import type { Message } from '../../orchestrator/types.js';
import {
  finished,
  readJsonLines,
  removeDir,
  requireBuiltCli,
  runCli,
  spawnCli,
  tempDir,
  waitFor,
  type Script,
} from './helpers.js';

let cwd: string;
beforeAll(() => requireBuiltCli());
beforeEach(async () => {
  cwd = await tempDir('murmur-engine-cli-');
});
afterEach(async () => {
  await removeDir(cwd);
});

function writeScript(name: string, script: Script): string {
  const file = path.join(cwd, name);
  writeFileSync(file, JSON.stringify(script));
  return file;
}

describe('murmur run', () => {
  it('does not exit while a background subagent it started is still running', async () => {
    writeScript('script.json', {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'Slow job', description: 'slow job', run_in_background: true } },
              ],
            },
            { text: 'waiting for the slow job' },
            { text: 'the slow job reported back' },
          ],
        },
        { match: { prompt: 'Slow job' }, turns: [{ latencyMs: 700, text: 'slow job done' }] },
      ],
    });
    const result = await runCli(
      ['run', '--model', 'scripted:script.json', '--json', '--events', 'events.jsonl', 'go'],
      { cwd },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as {
      status: string;
      result: string;
      agents: { id: string; status: string }[];
    };
    expect(json.status).toBe('completed');
    expect(json.result).toBe('the slow job reported back');
    expect(json.agents.map((a) => [a.id, a.status])).toEqual([
      ['main', 'completed'],
      ['a-1', 'completed'],
    ]);
    const ends = readJsonLines<MurmurEvent>(path.join(cwd, 'events.jsonl'))
      .filter((e): e is AgentEndEvent => e.type === 'agent.end')
      .map((e) => e.agentId);
    expect(ends).toEqual(['main', 'a-1', 'main']);
  });

  it('stops the background work and exits when interrupted', async () => {
    writeScript('script.json', {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                {
                  name: 'agent',
                  arguments: { prompt: 'Endless job', description: 'endless job', run_in_background: true },
                },
              ],
            },
            { text: 'waiting' },
          ],
        },
        { match: { prompt: 'Endless job' }, turns: [{ latencyMs: 60_000, text: 'never' }] },
      ],
    });
    const child = spawnCli(['run', '--model', 'scripted:script.json', '--json', 'go'], { cwd });
    const exited = finished(child);
    const sessions = path.join(cwd, '.murmur', 'sessions');
    const id = await waitFor('main to wait for its background subagent', () => {
      try {
        const [first] = readdirSync(sessions);
        const state = JSON.parse(readFileSync(path.join(sessions, first!, 'state.json'), 'utf8')) as SessionState;
        const main = state.agents.find((a) => a.id === 'main');
        const a1 = state.agents.find((a) => a.id === 'a-1');
        return main?.status === 'completed' && a1?.status === 'running' ? first : undefined;
      } catch {
        return undefined;
      }
    });
    child.kill('SIGINT');
    const result = await exited;
    expect(result.code).toBe(130);
    const json = JSON.parse(result.stdout) as {
      status: string;
      reason: string;
      agents: { id: string; status: string }[];
    };
    expect(json).toMatchObject({
      status: 'aborted',
      reason: 'the run was aborted before the background work finished',
    });
    expect(json.agents.map((a) => [a.id, a.status])).toEqual([
      ['main', 'completed'],
      ['a-1', 'aborted'],
    ]);
    const state = JSON.parse(readFileSync(path.join(sessions, id!, 'state.json'), 'utf8')) as SessionState;
    expect(state.tasks.map((t) => [t.taskId, t.status])).toEqual([['t-1', 'stopped']]);
  });
});

describe('murmur resume', () => {
  it('finishes a run killed mid-way: finished agents stay finished, the interrupted one is resumed', async () => {
    const script = (slowLatencyMs: number): Script => ({
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                { name: 'agent', arguments: { prompt: 'Quick job', description: 'quick job' } },
                { name: 'agent', arguments: { prompt: 'Slow job', description: 'slow job' } },
              ],
            },
            {
              toolCalls: [
                {
                  name: 'agent',
                  arguments: { prompt: 'Finish the slow job', description: 'finish slow job', resume: 'a-2' },
                },
              ],
            },
            { text: 'all done' },
          ],
        },
        {
          match: { prompt: 'Quick job' },
          turns: [
            { toolCalls: [{ name: 'write', arguments: { path: 'quick.txt', content: 'q' } }] },
            { text: 'quick done' },
          ],
        },
        {
          match: { prompt: 'Slow job' },
          turns: [
            { toolCalls: [{ name: 'write', arguments: { path: 'slow.txt', content: 's' } }] },
            { latencyMs: slowLatencyMs, text: 'slow done' },
          ],
        },
      ],
    });
    writeScript('script.json', script(60_000));
    const child = spawnCli(['run', '--model', 'scripted:script.json', '--json', 'go'], { cwd });
    const exited = finished(child);
    const sessions = path.join(cwd, '.murmur', 'sessions');
    const [id, state] = await waitFor(
      'state.json to show a-1 finished and a-2 running after its first tool call',
      () => {
        try {
          const [first] = readdirSync(sessions);
          if (!first) return undefined;
          const state = JSON.parse(readFileSync(path.join(sessions, first, 'state.json'), 'utf8')) as SessionState;
          const a1 = state.agents.find((a) => a.id === 'a-1');
          const a2 = state.agents.find((a) => a.id === 'a-2');
          return a1?.status === 'completed' && a2?.status === 'running' && a2.toolCalls === 1
            ? ([first, state] as const)
            : undefined;
        } catch {
          return undefined;
        }
      },
    );
    child.kill('SIGKILL');
    const killed = await exited;
    expect(killed.signal).toBe('SIGKILL');
    expect(state.status).toBe('running');
    const dir = path.join(sessions, id);
    const quickTranscript = readFileSync(path.join(dir, 'agents', 'a-1', 'transcript.jsonl'), 'utf8');

    // The model answers at once this time.
    writeScript('script.json', script(0));
    const resumed = await runCli(['resume', id, '--json', '--events', 'resume-events.jsonl'], { cwd });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const json = JSON.parse(resumed.stdout) as { status: string; result: string; sessionId: string };
    expect(json).toMatchObject({ status: 'completed', result: 'all done', sessionId: id });

    const final = JSON.parse(readFileSync(path.join(dir, 'state.json'), 'utf8')) as SessionState;
    expect(final.status).toBe('completed');
    expect(final.agents.map((a) => [a.id, a.status])).toEqual([
      ['main', 'completed'],
      ['a-1', 'completed'],
      ['a-2', 'completed'],
    ]);
    // The finished subagent did not run again; the interrupted one continued with its context.
    expect(readFileSync(path.join(dir, 'agents', 'a-1', 'transcript.jsonl'), 'utf8')).toBe(quickTranscript);
    const starts = readJsonLines<MurmurEvent>(path.join(cwd, 'resume-events.jsonl')).filter(
      (e): e is AgentStartEvent => e.type === 'agent.start',
    );
    expect(starts.map((e) => [e.agentId, e.resumed])).toEqual([
      ['main', true],
      ['a-2', true],
    ]);
    const slow = readJsonLines<Message>(path.join(dir, 'agents', 'a-2', 'transcript.jsonl'));
    expect(
      slow.map((m) => (m.role === 'user' ? `user: ${typeof m.content === 'string' ? m.content : ''}` : m.role)),
    ).toEqual(['user: Slow job', 'assistant', 'tool', 'user: Finish the slow job', 'assistant']);
    // main kept the quick job's answer and was told which subagent it could resume.
    const main = readJsonLines<Message>(path.join(dir, 'agents', 'main', 'transcript.jsonl'));
    const texts = main.map((m) =>
      m.role === 'tool'
        ? m.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
        : m.role === 'user'
          ? String(m.content)
          : '',
    );
    expect(texts).toContain('[subagent a-1 (worker) completed]\nquick done');
    expect(texts.some((t) => t.startsWith('<session-resumed>') && t.includes('a-2 (worker: slow job)'))).toBe(true);
    expect(texts).toContain('[subagent a-2 (worker) completed]\nslow done');
  });
});
