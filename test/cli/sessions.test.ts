// `murmur sessions`: the workspace's sessions newest first, from real runs on the scripted model; and
// `murmur resume` without an id pointing at it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeState, type SessionSummary } from '../../orchestrator/session-list.js';
import { murmur, workspace } from './helpers.js';

const script = JSON.stringify({
  agents: [
    { match: { role: 'main', prompt: 'say hi' }, turns: [{ text: 'hi', usage: { input: 100, output: 20 } }] },
    { match: { role: 'main', prompt: 'fail please' }, turns: [] },
  ],
});

describe('murmur sessions', () => {
  it('lists real runs newest first with command, status, agents and tokens, and a damaged one without hiding the others', async () => {
    const dir = workspace({ 's.json': script });
    const first = await murmur(['run', '--json', '--model', 'scripted:s.json', 'say hi'], { cwd: dir });
    const second = await murmur(['run', '--json', '--model', 'scripted:s.json', 'fail please'], { cwd: dir });
    expect(first.code).toBe(0);
    expect(second.code).toBe(1);
    const firstId = (JSON.parse(first.stdout) as { sessionId: string }).sessionId;
    const secondId = (JSON.parse(second.stdout) as { sessionId: string }).sessionId;
    mkdirSync(join(dir, '.murmur', 'sessions', '00000000-000000-dead'), { recursive: true });
    writeFileSync(join(dir, '.murmur', 'sessions', '00000000-000000-dead', 'state.json'), '{ cut');

    const json = await murmur(['sessions', '--json', '--cwd', dir]);
    expect(json.code).toBe(0);
    const list = JSON.parse(json.stdout) as SessionSummary[];
    expect(list.map((s) => s.id)).toEqual([secondId, firstId, '00000000-000000-dead']);
    expect(list[1]).toMatchObject({
      kind: 'run',
      status: 'completed',
      task: 'say hi',
      agents: 1,
      tokens: 120,
      model: expect.stringMatching(/^scripted:.*s\.json$/),
    });
    expect(list[0]).toMatchObject({ kind: 'run', status: 'failed', task: 'fail please' });
    expect(list[2]).toMatchObject({ status: 'unreadable', problem: expect.stringContaining('not valid JSON') });

    const text = await murmur(['sessions'], { cwd: dir });
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID\s+COMMAND\s+STATUS\s+STARTED\s+TIME\s+ITEMS\/AGENTS\s+TOKENS\s+COST\s+TASK$/);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${secondId}\\s+run\\s+failed\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+\\S+( s| ms)?\\s+1 agent\\s+0\\s+-\\s+fail please$`,
      ),
    );
    expect(lines[2]).toMatch(new RegExp(`^${firstId}\\s+run\\s+completed\\s+.*1 agent\\s+120\\s+-\\s+say hi$`));
    expect(text.stdout).toContain('murmur resume ID');
  });

  it('says so when the workspace has no sessions, and refuses arguments', async () => {
    const dir = workspace({});
    const empty = await murmur(['sessions', '--cwd', dir]);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toMatch(/^No sessions under .*\.murmur\.\n$/);
    const extra = await murmur(['sessions', 'abc', '--cwd', dir]);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('takes no arguments, got "abc"');
  });

  it('murmur resume without an id says where to find one', async () => {
    const ran = await murmur(['resume'], { cwd: workspace({}) });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('murmur sessions');
  });
});

describe('a session summary from state.json', () => {
  it("counts a swarm's completed items and sums its usage and cost", () => {
    const state = {
      version: 1,
      id: 's1',
      kind: 'swarm',
      createdAt: 5,
      updatedAt: 9,
      cwd: '/w',
      model: 'openai:gpt-4.1',
      status: 'failed',
      agents: [{}, {}, {}],
      tasks: [],
      usage: { input: 1000, output: 200, cacheRead: 50, cacheWrite: 0, cost: 0.25 },
      swarm: {
        description: 'Convert files',
        items: [
          { item: 'a', result: { outcome: 'completed' } },
          { item: 'b', result: { outcome: 'failed' } },
          { item: 'c' },
        ],
      },
    };
    expect(summarizeState('s1', JSON.stringify(state))).toEqual({
      id: 's1',
      kind: 'swarm',
      status: 'failed',
      createdAt: 5,
      updatedAt: 9,
      model: 'openai:gpt-4.1',
      task: 'Convert files',
      agents: 3,
      items: { total: 3, completed: 1 },
      usage: state.usage,
      tokens: 1250,
    });
  });

  it('names what is wrong with a missing or foreign state', () => {
    expect(summarizeState('x', undefined)).toMatchObject({
      status: 'unreadable',
      problem: expect.stringContaining('no state.json'),
    });
    expect(summarizeState('x', '[1,2]')).toMatchObject({
      status: 'unreadable',
      problem: 'state.json does not hold a session',
    });
  });
});
