// The dashboard on a real run: `murmur swarm` on the scripted model in a pseudo-terminal, read off the screen.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TerminalSession } from './terminal-session.js';
import { MURMUR_BIN } from '../murmur-bin.js';

const cli = MURMUR_BIN;

const sessions: TerminalSession[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const session of sessions.splice(0)) {
    try {
      session.proc.kill();
    } catch {
      // already gone
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workspace(turnMs: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'murmur-dash-'));
  dirs.push(dir);
  for (const name of ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'])
    writeFileSync(join(dir, `${name}.txt`), `${name}\n`);
  const script = {
    agents: [
      {
        match: { role: 'worker', prompt: 'Summarise (\\S+)' },
        turns: [
          {
            latencyMs: turnMs,
            text: 'Reading $1 first.',
            toolCalls: [{ name: 'read', arguments: { path: '$1' } }],
            usage: { input: 900, output: 30 },
          },
          { latencyMs: turnMs, text: '$1 holds one word.', usage: { input: 1100, output: 20 } },
        ],
      },
    ],
  };
  writeFileSync(join(dir, 'script.json'), JSON.stringify(script));
  return dir;
}

function swarm(dir: string): TerminalSession {
  const items = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'].map((n) => `${n}.txt`);
  const session = new TerminalSession(
    [
      cli,
      'swarm',
      '--model',
      'scripted:script.json',
      '--template',
      'Summarise {{item}} in one line',
      '--items',
      ...items,
      '--description',
      'summarise the notes',
    ],
    { cols: 120, rows: 36, term: 'xterm-256color', cwd: dir, env: { MURMUR_SWARM_MAX_CONCURRENCY: '3' } },
  );
  sessions.push(session);
  return session;
}

describe('the dashboard on a real swarm', () => {
  it('shows the swarm, its agents and their states live, then prints the report when it ends', async () => {
    const s = swarm(workspace(600));
    await s.waitForText('summarise the notes');
    // The agents start one after another and a frame reaches the terminal in pieces: wait for the screen that
    // shows the first wave whole.
    let screen = await s.waitFor(
      (text) =>
        /model scripted:\S*script\.json/.test(text) &&
        /\b3 running/.test(text) &&
        /\b4 queued/.test(text) &&
        /worker\s+alpha\.txt\s+running/.test(s.row('a-1', text) ?? ''),
      'three running agents, four queued',
    );
    expect(screen).toMatch(/model scripted:\S*script\.json/);
    // The cap of 3 holds: the others wait in the queue.
    expect(screen).toMatch(/3 running/);
    expect(screen).toMatch(/4 queued/);
    expect(s.row('a-1', screen)).toMatch(/worker\s+alpha\.txt\s+running/);
    screen = await s.waitFor((text) => /7\/7/.test(text) || /completed: 7/.test(text), 'the swarm to finish', 60_000);
    // …and it held on every screen seen along the way.
    for (const seen of s.seen) expect(Number(/■ (\d+) running/.exec(seen)?.[1] ?? 0), seen).toBeLessThanOrEqual(3);
    const exit = await s.exit;
    expect(exit.exitCode).toBe(0);
    // The dashboard gave the screen back and the report follows on the normal screen.
    await s.waitForText('<summary>completed: 7</summary>');
    expect(s.text()).toMatch(
      /<subagent agent_id="a-1" item="alpha\.txt" outcome="completed" rounds="0">alpha\.txt holds one word\.<\/subagent>/,
    );
  }, 90_000);

  it('aborts cleanly after q and a confirmation, keeping finished work', async () => {
    const s = swarm(workspace(5000)); // long turns: nothing finishes before the abort, however slow the machine
    await s.waitFor((text) => /\b3 running/.test(text), 'three running agents');
    s.press('q');
    // Not "q quit" in the footer, which is always there: the question itself.
    await s.waitForText('Abort the run?');
    s.press('y');
    const exit = await s.exit;
    expect(exit.exitCode).toBe(130);
    await s.waitForText('</agent_swarm_result>');
    const screen = s.text();
    expect(screen).toMatch(/<summary>aborted: 7<\/summary>/);
    expect(screen).toMatch(/state="not_started"/);
  }, 60_000);
});
