// `murmur swarm` under a low file-handle limit (`ulimit -n 256`), as a real child process of package.json's bin:
// 400 scripted items each write a transcript, and murmur keeps its own handles bounded (the append pool), so every
// transcript is on disk and whole, the session's event log holds every item, and the run exits 0 "completed".
// (With one open stream per agent, this run kept about 235 of the 400 transcripts, logged EMFILE warnings and
// still exited 0.)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Script } from '../../orchestrator/models/scripted.js';
import { readSavedState, type SessionState } from '../../orchestrator/saved-state.js';
import { readSessionTranscripts } from '../../orchestrator/session.js';
import { readEvents, removeDir, tempDir } from './helpers.js';
import { MURMUR_BIN, staleBinReason } from '../murmur-bin.js';

const ITEMS = 400;
const HANDLE_LIMIT = 256;

let dir: string;
beforeAll(() => {
  const stale = staleBinReason();
  if (stale) throw new Error(stale);
});
beforeEach(async () => {
  dir = await tempDir('murmur-handles-');
});
afterEach(async () => {
  await removeDir(dir);
});

function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('MURMUR_')) env[k] = v;
  return { ...env, HOME: dir };
}

describe('murmur swarm under a low file-handle limit', () => {
  it(`keeps every transcript whole for ${ITEMS} items at ulimit -n ${HANDLE_LIMIT}, and exits 0`, async () => {
    const script: Script = { agents: [{ match: { prompt: 'Check (\\S+)' }, turns: [{ text: '$1 ok' }] }] };
    writeFileSync(path.join(dir, 'script.json'), JSON.stringify(script));
    const items = Array.from({ length: ITEMS }, (_, i) => `item-${i + 1}`);
    writeFileSync(path.join(dir, 'items.txt'), `${items.join('\n')}\n`);

    // The limit is set by the shell that then becomes the bin (exec), so it holds for murmur alone.
    const result = await execa(
      'bash',
      [
        '-c',
        `ulimit -n ${HANDLE_LIMIT} && exec "$@"`,
        'bash',
        process.execPath,
        MURMUR_BIN,
        'swarm',
        '--template',
        'Check {{item}}',
        '--items-file',
        'items.txt',
        '--model',
        'scripted:script.json',
        '--json',
      ],
      { reject: false, cwd: dir, env: childEnv(), extendEnv: false, stdin: 'ignore' },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { status: string; summary: Record<string, number>; sessionId: string };
    expect(report.status).toBe('completed');
    expect(report.summary).toEqual({ completed: ITEMS });

    const sessionDir = path.join(dir, '.murmur', 'sessions', report.sessionId);
    // Through the one reader: settled agents are in the settled log, not in state.json.
    const read = readSavedState(sessionDir);
    if (!read.ok) throw new Error(read.error);
    const state: SessionState = read.state;
    expect(state.status).toBe('completed');
    const agentOf = new Map(state.agents.map((a) => [a.item, a.id]));
    const incomplete: string[] = [];
    const transcripts = readSessionTranscripts(
      sessionDir,
      [...agentOf.values()].filter((id) => id !== undefined),
    );
    for (const item of items) {
      const agentId = agentOf.get(item);
      const lines = (transcripts.get(agentId ?? 'none')?.messages ?? []) as {
        role: string;
        content?: string;
        text?: string;
      }[];
      const whole =
        lines.length === 2 &&
        lines[0]!.role === 'user' &&
        lines[0]!.content === `Check ${item}` &&
        lines[1]!.role === 'assistant' &&
        lines[1]!.text === `${item} ok`;
      if (!whole) incomplete.push(item);
    }
    expect(incomplete.length, `items without a whole transcript: ${incomplete.slice(0, 5).join(', ')}…`).toBe(0);

    const ends = readEvents(path.join(sessionDir, 'events.jsonl')).filter((e) => e.type === 'agent.end');
    expect(ends.length).toBe(ITEMS);
    expect(result.stderr).not.toMatch(/EMFILE|too many open files|data is missing/i);
  }, 60_000);
});
