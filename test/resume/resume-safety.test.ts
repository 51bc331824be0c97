// Resume never destroys, and a session has one owner, tried as a user meets them: a swarm interrupted with Ctrl-C,
// then `murmur resume` refused for a bad setting or a missing agent file (exit 2, the session byte for byte as it
// was, still resumable), and two resumes started together (one refused naming the holder; every item's side
// effect exactly once). Each case ends with a resume that completes every item.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Script } from '../../orchestrator/models/scripted.js';
import { murmurIn, readEvents, removeDir, tempDir, waitFor, writeTree } from '../swarm/helpers.js';
import { staleBinReason } from '../murmur-bin.js';

let dir: string;
beforeAll(() => {
  const stale = staleBinReason();
  if (stale) throw new Error(stale);
});
beforeEach(async () => {
  dir = await tempDir('murmur-resume-safety-');
});
afterEach(async () => {
  await removeDir(dir);
});

function murmur(args: string[], env: Record<string, string> = {}) {
  return murmurIn(dir, args, env);
}

/** Each item appends its name to effects.log with bash, then answers; `slow` items first wait `slowMs`. */
function script(slow: Record<string, number>): string {
  const agents: Script['agents'] = Object.entries(slow).map(([item, ms]) => ({
    match: { prompt: `Do ${item}$` },
    turns: [
      { latencyMs: ms, toolCalls: [{ name: 'bash', arguments: { command: `echo ${item} >> effects.log` } }] },
      { text: `did ${item}` },
    ],
  }));
  agents.push({
    match: { prompt: 'Do (\\S+)' },
    turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo $1 >> effects.log' } }] }, { text: 'did $1' }],
  });
  const file = path.join(dir, `script-${Object.keys(slow).join('-') || 'plain'}-${Object.values(slow).join('-')}.json`);
  writeFileSync(file, JSON.stringify({ agents }));
  return file;
}

const ITEMS = ['a', 'b', 'slow', 'c', 'd'];

/** A swarm stopped with Ctrl-C while `slow` runs: a and b done, slow interrupted, c and d never started. */
async function interruptedSwarm(extraArgs: string[] = []): Promise<string> {
  const events = path.join(dir, 'events.jsonl');
  const first = [
    'swarm',
    '--template',
    'Do {{item}}',
    '--items',
    ...ITEMS,
    '--max-concurrency',
    '1',
    '--permission-mode',
    'yolo',
    '--model',
    `scripted:${script({ slow: 30_000 })}`,
    '--events',
    events,
    '--json',
    ...extraArgs,
  ];
  const child = murmur(first);
  const slowStarted = () =>
    existsSync(events) &&
    readEvents(events).some((e) => e.type === 'swarm.item' && e.item === 'slow' && e.state === 'launched');
  await waitFor(() => (slowStarted() ? true : undefined), 20_000, 'the slow item to start');
  child.kill('SIGINT');
  const result = await child;
  expect(result.exitCode).toBe(130);
  return (JSON.parse(result.stdout) as { sessionId: string }).sessionId;
}

const stateFile = (id: string) => path.join(dir, '.murmur', 'sessions', id, 'state.json');
const effects = () => readFileSync(path.join(dir, 'effects.log'), 'utf8').split('\n').filter(Boolean).sort();

async function resumeCompletes(id: string, env: Record<string, string> = {}): Promise<void> {
  const resumed = await murmur(['resume', id, '--json', '--model', `scripted:${script({})}`], env);
  expect(resumed.stderr).toBe('');
  expect(resumed.exitCode).toBe(0);
  const report = JSON.parse(resumed.stdout) as { status: string; items: { item: string; outcome: string }[] };
  expect(report.status).toBe('completed');
  expect(report.items.map((i) => [i.item, i.outcome])).toEqual(ITEMS.map((item) => [item, 'completed']));
  expect(effects()).toEqual([...ITEMS].sort());
}

describe('a refused resume leaves the session as it was', () => {
  it('a bad MURMUR_SWARM_MAX_CONCURRENCY: exit 2 naming it, the session unchanged, then a resume finishes', async () => {
    const id = await interruptedSwarm();
    const before = readFileSync(stateFile(id), 'utf8');
    expect(JSON.parse(before)).toMatchObject({ status: 'aborted', swarm: { swarmId: 's-1' } });
    const refused = await murmur(['resume', id], { MURMUR_SWARM_MAX_CONCURRENCY: 'abc' });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('MURMUR_SWARM_MAX_CONCURRENCY="abc"');
    expect(readFileSync(stateFile(id), 'utf8')).toBe(before);
    // Refused again (the documented way to see it is not lost), and still listed as it ended, not "running".
    const sessions = await murmur(['sessions']);
    expect(sessions.stdout).toMatch(new RegExp(`${id}.*aborted`));
    await resumeCompletes(id);
  });

  it('an agent file gone since the swarm ran: exit 2 naming the role, unchanged; put back, the resume finishes', async () => {
    const agentFile = '.murmur/agents/appender.md';
    const definition = '---\nname: appender\ndescription: Appends with bash\ntools: Bash\n---\nYou append.\n';
    writeTree(dir, { [agentFile]: definition });
    const id = await interruptedSwarm(['--role', 'appender']);
    const before = readFileSync(stateFile(id), 'utf8');
    rmSync(path.join(dir, agentFile));
    const refused = await murmur(['resume', id]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/appender/);
    expect(readFileSync(stateFile(id), 'utf8')).toBe(before);
    writeTree(dir, { [agentFile]: definition });
    await resumeCompletes(id);
  });
});

describe('one owner per session', () => {
  it('two resumes started together: one is refused naming the holder, each item runs its side effect once', async () => {
    const id = await interruptedSwarm();
    // The winner takes a while on c, so the two overlap.
    const model = `scripted:${script({ c: 1_500 })}`;
    const [one, two] = await Promise.all([
      murmur(['resume', id, '--json', '--model', model]),
      murmur(['resume', id, '--json', '--model', model]),
    ]);
    const codes = [one.exitCode, two.exitCode].sort();
    expect(codes).toEqual([0, 2]);
    const loser = one.exitCode === 2 ? one : two;
    expect(loser.stderr).toMatch(new RegExp(`session ${id} is being run by another murmur \\(pid \\d+ on .+\\)`));
    expect(effects()).toEqual([...ITEMS].sort());
    const state = JSON.parse(readFileSync(stateFile(id), 'utf8')) as { status: string };
    expect(state.status).toBe('completed');
    // The winner gave the session back: a later resume is not refused (it has nothing left to do).
    const after = await murmur(['resume', id, '--json', '--model', model]);
    expect(after.exitCode).toBe(0);
    expect(effects()).toEqual([...ITEMS].sort());
  });
});
