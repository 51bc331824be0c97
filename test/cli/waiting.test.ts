// A run that waits for a person, from the command line users get: `--hold` ends the run `waiting` (exit 75, decided
// at the command's edge, with run.end in the events); `murmur resume ID` without a person keeps it waiting;
// `--approve CALL` runs the waiting call exactly where it stopped, once; `--deny CALL --reason` refuses it with the
// reason; a bad answer is exit 2 naming it and what waits.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { murmur, workspace } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A workspace whose main agent writes a file (manual mode asks for it), then says what it did. */
function writingWorkspace(): string {
  const script = {
    agents: [
      {
        match: { role: 'main' },
        turns: [
          { toolCalls: [{ name: 'write', arguments: { path: 'out.txt', content: 'written once\n' } }] },
          { text: 'wrote out.txt' },
        ],
      },
    ],
  };
  const dir = workspace({ 'script.json': JSON.stringify(script) });
  dirs.push(dir);
  return dir;
}

function events(file: string): { type: string; status?: string; waiting?: number }[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string });
}

describe('waiting for a person on the command line', () => {
  it('--hold exits 75 with the interruption; resume without a person waits again; --approve runs the call once', async () => {
    const dir = writingWorkspace();
    const model = `scripted:${join(dir, 'script.json')}`;
    const held = await murmur(
      ['run', '--model', model, '--permission-mode', 'manual', '--hold', '--events', join(dir, 'e1.jsonl'), 'write it'],
      { cwd: dir },
    );
    expect(held.code, held.stderr).toBe(75);
    const report = JSON.parse(held.stdout) as {
      status: string;
      sessionId: string;
      interruptions: { agentId: string; callId: string; tool: string; summary: string }[];
    };
    expect(report.status).toBe('waiting');
    expect(report.interruptions).toHaveLength(1);
    expect(report.interruptions[0]).toMatchObject({ agentId: 'main', tool: 'write' });
    expect(existsSync(join(dir, 'out.txt'))).toBe(false);
    // The run ended through run.end like any other, saying what waits.
    expect(events(join(dir, 'e1.jsonl')).at(-1)).toMatchObject({ type: 'run.end', status: 'waiting', waiting: 1 });

    // Nobody to ask (no terminal): it waits again, the cards and the commands to answer them on stderr.
    const again = await murmur(['resume', report.sessionId, '--no-dashboard'], { cwd: dir });
    expect(again.code, again.stderr).toBe(75);
    const call = `main/${report.interruptions[0]!.callId}`;
    expect(again.stderr).toContain(`${call}  approval: write out.txt`);
    expect(again.stderr).toContain(`--approve ${call}`);
    expect(existsSync(join(dir, 'out.txt'))).toBe(false);

    const wrong = await murmur(['resume', report.sessionId, '--approve', 'main/nope'], { cwd: dir });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`no call "main/nope" waits for an answer; waiting: ${call}`);

    const approved = await murmur(['resume', report.sessionId, '--approve', call, '--json'], { cwd: dir });
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ status: 'completed', result: 'wrote out.txt' });
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('written once\n');

    // The session kept its first start and each process's segment.
    const state = JSON.parse(readFileSync(join(dir, '.murmur', 'sessions', report.sessionId, 'state.json'), 'utf8'));
    expect(state.segments.map((s: { ended: string }) => s.ended)).toEqual(['waiting', 'waiting', 'completed']);
    expect(state.segments[0].startedAt).toBeGreaterThanOrEqual(state.createdAt);
    expect(state.segments[0].startedAt - state.createdAt).toBeLessThan(5_000);
    expect(state.interruptions).toBeUndefined();
  });

  it('--deny CALL --reason refuses the waiting call and the agent hears the reason', async () => {
    const dir = writingWorkspace();
    const model = `scripted:${join(dir, 'script.json')}`;
    const held = await murmur(['run', '--model', model, '--permission-mode', 'manual', '--hold', 'write it'], {
      cwd: dir,
    });
    expect(held.code, held.stderr).toBe(75);
    const { sessionId, interruptions } = JSON.parse(held.stdout) as {
      sessionId: string;
      interruptions: { callId: string }[];
    };
    const denied = await murmur(
      ['resume', sessionId, '--deny', interruptions[0]!.callId, '--reason', 'not in this folder', '--json'],
      { cwd: dir },
    );
    expect(denied.code, denied.stderr).toBe(0);
    expect(existsSync(join(dir, 'out.txt'))).toBe(false);
    const transcript = readFileSync(
      join(dir, '.murmur', 'sessions', sessionId, 'agents', 'main', 'transcript.jsonl'),
      'utf8',
    );
    expect(transcript).toContain('The user said: \\"not in this folder\\"');
  });
});
