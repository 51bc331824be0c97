// Transcripts are written by a subscriber of the event bus: every `message` event lands in the agent's
// transcript.jsonl, in conversation order; the loop builds no event that nobody listens to.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventBus } from '../../orchestrator/events.js';
import { writeEventLog } from '../../orchestrator/events-log.js';
import { SessionStore } from '../../orchestrator/session.js';
import { TranscriptWriter } from '../../orchestrator/transcript-writer.js';
import type { Message } from '../../orchestrator/types.js';
import { readJsonLines, scriptedEngine, type Script, workspacePerTest } from './helpers.js';

const workspace = workspacePerTest();

const user = (content: string): Message => ({ role: 'user', content });

describe('the transcript writer', () => {
  it('appends each message event to its agent, also when the agent runs again, and nothing after stop', async () => {
    const bus = new EventBus();
    const file = (agentId: string) => path.join(workspace.dir, 'agents', agentId, 'transcript.jsonl');
    const writer = new TranscriptWriter(file);
    const stop = writer.subscribe(bus);
    bus.emit({ type: 'message', agentId: 'a-1', role: 'user', message: user('first') });
    bus.emit({ type: 'message', agentId: 'a-2', role: 'user', message: user('other') });
    bus.emit({
      type: 'agent.end',
      agentId: 'a-1',
      role: 'worker',
      status: 'completed',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      turns: 0,
      toolCalls: 0,
      durationMs: 0,
    });
    bus.emit({ type: 'message', agentId: 'a-1', role: 'user', message: user('resumed') });
    stop();
    bus.emit({ type: 'message', agentId: 'a-1', role: 'user', message: user('after stop') });
    await writer.flush();
    expect(readJsonLines(file('a-1'))).toEqual([user('first'), user('resumed')]);
    expect(readJsonLines(file('a-2'))).toEqual([user('other')]);
  });

  it('keeps the order when an agent runs again while its previous lines are still being written', async () => {
    const bus = new EventBus();
    const file = path.join(workspace.dir, 'agents', 'a-1', 'transcript.jsonl');
    const writer = new TranscriptWriter(() => file);
    writer.subscribe(bus);
    const expected: Message[] = [];
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 50; i++) {
        const message = user(`${round}.${i} ${'x'.repeat(200)}`);
        expected.push(message);
        bus.emit({ type: 'message', agentId: 'a-1', role: 'user', message });
      }
      bus.emit({
        type: 'agent.end',
        agentId: 'a-1',
        role: 'worker',
        status: 'completed',
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        turns: 0,
        toolCalls: 0,
        durationMs: 0,
      });
    }
    await writer.flush();
    expect(readJsonLines(file)).toEqual(expected);
  });

  it("writes what each agent's conversation holds, for main and its subagent, through the engine's bus", async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            { toolCalls: [{ name: 'agent', arguments: { prompt: 'Look around', description: 'look' } }] },
            { text: 'main done' },
          ],
        },
        {
          match: { role: 'worker' },
          turns: [{ toolCalls: [{ name: 'glob', arguments: { pattern: '*' } }] }, { text: 'looked' }],
        },
      ],
    };
    const session = SessionStore.create(path.join(workspace.dir, '.murmur'), 'transcripts');
    const { engine } = scriptedEngine(workspace.dir, script, { session });
    const outcome = await engine.runTask('start');
    expect(outcome.status).toBe('completed');
    await engine.close();
    for (const id of ['main', 'a-1']) {
      const messages = engine.agentTree.get(id)!.agent.state.messages;
      expect(messages.length).toBeGreaterThanOrEqual(4);
      expect(readJsonLines(session.transcriptPath(id))).toEqual(JSON.parse(JSON.stringify(messages)));
    }
  });
});

describe('events nobody listens to', () => {
  it('are not wanted: the --events log subscribes to the types it writes, never to message or message.delta', async () => {
    const bus = new EventBus();
    expect(bus.wants('tool.end')).toBe(false);
    const log = writeEventLog(bus, path.join(workspace.dir, 'events.jsonl'));
    expect(bus.wants('tool.end')).toBe(true);
    expect(bus.wants('message')).toBe(false);
    expect(bus.wants('message.delta')).toBe(false);
    bus.emit({ type: 'message.delta', agentId: 'a-1', text: 'streamed' });
    bus.emit({ type: 'turn.start', agentId: 'a-1', turn: 1 });
    await log.close();
    expect(bus.wants('tool.end')).toBe(false);
    expect(readJsonLines<{ type: string }>(path.join(workspace.dir, 'events.jsonl')).map((e) => e.type)).toEqual([
      'turn.start',
    ]);
  });
});
