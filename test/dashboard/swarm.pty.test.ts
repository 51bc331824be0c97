// The dashboard on a real run: `murmur swarm` on the scripted model in a pseudo-terminal, read off the screen.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { TerminalSession } from './terminal-session.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'dist/cli/main.js');

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
  for (const name of ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta']) writeFileSync(join(dir, `${name}.txt`), `${name}\n`);
  const script = {
    agents: [
      {
        match: { role: 'worker', prompt: 'Summarise (\\S+)' },
        turns: [
          { latencyMs: turnMs, text: 'Reading $1 first.', toolCalls: [{ name: 'read', arguments: { path: '$1' } }], usage: { input: 900, output: 30 } },
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
    [cli, 'swarm', '--model', 'scripted:script.json', '--template', 'Summarise {{item}} in one line', '--items', ...items, '--description', 'summarise the notes'],
    { cols: 120, rows: 36, term: 'xterm-256color', cwd: dir, env: { MURMUR_SWARM_MAX_CONCURRENCY: '3' } },
  );
  sessions.push(session);
  return session;
}

describe('the dashboard on a real swarm', () => {
  it('shows the swarm, its agents and their states live, then prints the report when it ends', async () => {
    const s = swarm(workspace(600));
    let screen = await s.waitForText('summarise the notes');
    screen = await s.waitFor((text) => /running/.test(text) && /alpha\.txt/.test(text), 'running agents');
    expect(screen).toMatch(/model scripted:\S*script\.json/);
    // The cap of 3 holds: the others wait in the queue.
    expect(screen).toMatch(/3 running/);
    expect(screen).toMatch(/4 queued/);
    expect(s.row('a-1')).toMatch(/worker\s+alpha\.txt\s+running/);
    screen = await s.waitFor((text) => /7\/7/.test(text) || /completed: 7/.test(text), 'the swarm to finish', 20_000);
    const exit = await s.exit;
    expect(exit.exitCode).toBe(0);
    // The dashboard gave the screen back and the report follows on the normal screen.
    await s.waitForText('<summary>completed: 7</summary>');
    expect(s.text()).toMatch(/<subagent agent_id="a-1" item="alpha\.txt" outcome="completed" rounds="0">alpha\.txt holds one word\.<\/subagent>/);
  });

  it('aborts cleanly after q and a confirmation, keeping finished work', async () => {
    const s = swarm(workspace(1500));
    await s.waitFor((text) => /3 running/.test(text), 'three running agents');
    s.press('q');
    await s.waitFor((text) => /quit|abort/i.test(text), 'the confirmation');
    s.press('y');
    const exit = await s.exit;
    expect(exit.exitCode).toBe(130);
    await s.waitForText('</agent_swarm_result>');
    const screen = s.text();
    expect(screen).toMatch(/<summary>aborted: 7<\/summary>/);
    expect(screen).toMatch(/state="not_started"/);
  });
});
