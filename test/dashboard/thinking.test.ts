// The dashboard shows that an agent is thinking: reasoning deltas mark it, the answer or a tool call ends it,
// and the reasoning itself stays out of the answer's lines.
import { describe, expect, it } from 'vitest';
import type { MurmurEvent } from '../../orchestrator/events.js';
import { activity, initialSnapshot, reduce, transcriptTail } from '../../dashboards/view-model.js';

const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 };

function fold(events: MurmurEvent[]) {
  const s = initialSnapshot({ now: 0 });
  for (const event of events) reduce(s, event);
  return s;
}

describe('thinking on the dashboard', () => {
  const start: MurmurEvent[] = [
    { type: 'agent.start', agentId: 'a', role: 'worker', prompt: 'fix it', ts: 1 } as MurmurEvent,
    { type: 'turn.start', agentId: 'a', turn: 1, ts: 2 },
  ];

  it('shows the newest line of the reasoning while the model thinks', () => {
    const s = fold([
      ...start,
      { type: 'message.delta', agentId: 'a', text: 'First I read ', thinking: true, ts: 3 },
      { type: 'message.delta', agentId: 'a', text: 'the file.\nThen I ', thinking: true, ts: 4 },
    ]);
    const agent = s.agents.get('a')!;
    expect(activity(agent, 5)).toBe('∴ thinking: Then I');
    expect(transcriptTail(agent, 10)).toContain('∴ thinking…');
    expect(transcriptTail(agent, 10).join('\n')).not.toContain('First I read');
  });

  it('stops showing it once the answer streams, a tool starts or the turn ends', () => {
    const thinking: MurmurEvent = { type: 'message.delta', agentId: 'a', text: 'hmm', thinking: true, ts: 3 };
    const answered = fold([...start, thinking, { type: 'message.delta', agentId: 'a', text: 'Done.', ts: 4 }]);
    expect(activity(answered.agents.get('a')!, 5)).toBe('Done.');
    const tooled = fold([
      ...start,
      thinking,
      { type: 'tool.start', agentId: 'a', tool: 'read', callId: 'c1', args: '{"path":"a"}', ts: 4 },
    ]);
    expect(activity(tooled.agents.get('a')!, 5)).toMatch(/^⚙ read/);
    const ended = fold([...start, thinking, { type: 'turn.end', agentId: 'a', turn: 1, toolCalls: 0, usage, ts: 4 }]);
    expect(ended.agents.get('a')!.thinking).toBeUndefined();
  });
});
