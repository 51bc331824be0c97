// `murmur run --session ID "…"`: a finished run's conversation takes the next message, answered with the whole
// conversation before it (the scripted model's turn index is the number of answers already given), in the same
// session; what cannot be continued (a swarm, an unknown id, flags of a new run, an empty message) is a usage error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { murmur, workspace } from './helpers.js';

const chat = JSON.stringify({
  agents: [
    {
      match: { role: 'main', prompt: 'Name a prime' },
      turns: [{ text: 'Seven.' }, { text: 'Eleven, the next after seven.' }, { text: 'Thirteen.' }],
    },
    { match: { role: 'worker' }, turns: [{ text: 'checked $1' }] },
  ],
});

interface RunJson {
  status: string;
  result: string;
  sessionId: string;
}

describe('murmur run --session', () => {
  it('continues a finished conversation twice in the same session, with its model', async () => {
    const dir = workspace({ 'script.json': chat });
    const first = await murmur(['run', '--json', '--model', 'scripted:script.json', 'Name a prime'], { cwd: dir });
    expect(first.code).toBe(0);
    const { sessionId, result } = JSON.parse(first.stdout) as RunJson;
    expect(result).toBe('Seven.');
    // No --model: the session's own is used.
    const second = await murmur(['run', '--json', '--session', sessionId, 'And the next one?'], { cwd: dir });
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({
      status: 'completed',
      result: 'Eleven, the next after seven.',
      sessionId,
    });
    const third = await murmur(['run', '--session', sessionId, 'One more'], { cwd: dir });
    expect(third.code).toBe(0);
    expect(third.stdout).toBe('Thirteen.\n');
    // The transcript holds the whole conversation, in order.
    const transcript = readFileSync(
      join(dir, '.murmur', 'sessions', sessionId, 'agents', 'main', 'transcript.jsonl'),
      'utf8',
    )
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { role: string; content?: string; text?: string });
    expect(transcript.map((m) => (m.role === 'user' ? `> ${m.content}` : m.text))).toEqual([
      '> Name a prime',
      'Seven.',
      '> And the next one?',
      'Eleven, the next after seven.',
      '> One more',
      'Thirteen.',
    ]);
    const sessions = await murmur(['sessions', '--json'], { cwd: dir });
    expect((JSON.parse(sessions.stdout) as { id: string }[]).map((s) => s.id)).toEqual([sessionId]);
  });

  it('refuses a swarm session, an unknown id, an empty message and the flags of a new run', async () => {
    const dir = workspace({ 'script.json': chat });
    const swarm = await murmur(
      ['swarm', '--json', '--model', 'scripted:script.json', '--template', 'Check {{item}}', '--items', 'a'],
      {
        cwd: dir,
      },
    );
    expect(swarm.code).toBe(0);
    const swarmId = (JSON.parse(swarm.stdout) as RunJson).sessionId;
    const onSwarm = await murmur(['run', '--session', swarmId, 'hello'], { cwd: dir });
    expect(onSwarm.code).toBe(2);
    expect(onSwarm.stderr).toContain(`--session ${swarmId}: session ${swarmId} is a swarm`);
    const unknown = await murmur(['run', '--session', 'nope', 'hello'], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--session nope');
    const first = await murmur(['run', '--json', '--model', 'scripted:script.json', 'Name a prime'], { cwd: dir });
    const { sessionId } = JSON.parse(first.stdout) as RunJson;
    const empty = await murmur(['run', '--session', sessionId, '  '], { cwd: dir });
    expect(empty.code).toBe(2);
    const withAgent = await murmur(['run', '--session', sessionId, '--agent', 'explore', 'hello'], { cwd: dir });
    expect(withAgent.code).toBe(2);
    expect(withAgent.stderr).toContain('--agent starts a new conversation');
  });
});
