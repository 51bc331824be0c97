// The murmur command as a user runs it: the built CLI in a child process, a temp workspace, the scripted model.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { murmur, workspace } from './helpers.js';

const readTwice = JSON.stringify({
  agents: [
    {
      match: { role: 'main', prompt: 'count lines' },
      turns: [
        {
          toolCalls: [
            { name: 'read', arguments: { path: 'a.txt' } },
            { name: 'read', arguments: { path: 'b.txt' } },
          ],
        },
        { text: 'a.txt has 2 lines, b.txt has 1', usage: { input: 120, output: 12 } },
      ],
    },
  ],
});

describe('murmur run', () => {
  it('runs a scripted agent that reads two files with parallel calls and prints the answer', async () => {
    const dir = workspace({ 'a.txt': 'alpha\nbeta\n', 'b.txt': 'gamma\n', 'script.json': readTwice });
    const events = join(dir, 'events.jsonl');
    const ran = await murmur(['run', '--model', 'scripted:script.json', '--events', events, 'count lines'], {
      cwd: dir,
    });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe('a.txt has 2 lines, b.txt has 1\n');
    const lines = readFileSync(events, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; ts: number; agentId?: string; tool?: string });
    const types = lines.map((e) => e.type);
    for (const type of ['agent.start', 'turn.start', 'turn.end', 'tool.start', 'tool.end', 'agent.end'])
      expect(types).toContain(type);
    for (const e of lines) {
      expect(typeof e.ts).toBe('number');
      if (e.type.startsWith('agent.') || e.type.startsWith('turn.') || e.type.startsWith('tool.'))
        expect(e.agentId).toBe('main');
    }
    // Both reads started before either ended: one parallel batch.
    const toolEvents = types.filter((t) => t === 'tool.start' || t === 'tool.end');
    expect(toolEvents).toEqual(['tool.start', 'tool.start', 'tool.end', 'tool.end']);
  });

  it('prints one JSON object with --json', async () => {
    const dir = workspace({ 'a.txt': 'alpha\nbeta\n', 'b.txt': 'gamma\n', 'script.json': readTwice });
    const ran = await murmur(['run', '--json', '--model', 'scripted:script.json', 'count lines'], { cwd: dir });
    expect(ran.code).toBe(0);
    const out = JSON.parse(ran.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      status: 'completed',
      result: 'a.txt has 2 lines, b.txt has 1',
      usage: { input: 120, output: 12 },
    });
    expect(out.agents).toEqual([
      expect.objectContaining({ id: 'main', role: 'main', status: 'completed', turns: 2, toolCalls: 2 }),
    ]);
  });

  it('exits non-zero when the main agent does not complete', async () => {
    const dir = workspace({
      'script.json': JSON.stringify({ agents: [{ match: { prompt: 'nothing here' }, turns: [{ text: 'x' }] }] }),
    });
    const ran = await murmur(['run', '--json', '--model', 'scripted:script.json', 'count lines'], { cwd: dir });
    expect(ran.code).toBe(1);
    const out = JSON.parse(ran.stdout) as { status: string; reason: string };
    expect(out.status).toBe('failed');
    expect(out.reason).toContain('no script entry matches agent main');
    expect(out.reason).toContain('"count lines"');
  });

  it('keeps the session on disk: state.json and a transcript per agent', async () => {
    const dir = workspace({ 'a.txt': 'alpha\nbeta\n', 'b.txt': 'gamma\n', 'script.json': readTwice });
    const ran = await murmur(['run', '--json', '--model', 'scripted:script.json', 'count lines'], { cwd: dir });
    const { sessionId } = JSON.parse(ran.stdout) as { sessionId: string };
    const session = join(dir, '.murmur', 'sessions', sessionId);
    const state = JSON.parse(readFileSync(join(session, 'state.json'), 'utf8')) as {
      status: string;
      agents: { id: string; status: string }[];
    };
    expect(state.status).toBe('completed');
    expect(state.agents).toEqual([expect.objectContaining({ id: 'main', status: 'completed' })]);
    const transcript = readFileSync(join(session, 'agents', 'main', 'transcript.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(transcript.map((l) => (JSON.parse(l) as { role: string }).role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
  });
});

describe('bad input on the command line', () => {
  it.each([
    [['run', '--frobnicate', 'x'], /unknown flag --frobnicate\. See murmur run --help\./],
    [['run', '--model', 'scripted:s.json'], /missing the task/],
    [
      ['run', '--model', 'scripted:missing.json', 'task'],
      /cannot read the scripted-model file .*missing\.json: ENOENT/,
    ],
    [['run', '--model', 'scripted:bad.json', 'task'], /is not valid JSON/],
    [['run', '--model', 'scripted:wrong.json', 'task'], /not a valid scripted-model file \(\/agents/],
    [['run', '--model', 'gemini:pro', 'task'], /gemini:pro/],
    [
      ['run', '--permission-mode', 'maybe', '--model', 'scripted:s.json', 'task'],
      /--permission-mode must be one of manual, auto, yolo, got "maybe"/,
    ],
    [['run', '--cwd', '/definitely/not/here', 'task'], /--cwd "\/definitely\/not\/here" is not a folder/],
    [['launch'], /unknown command "launch"/],
  ])('murmur %j exits 2 with a clear message', async (args, message) => {
    const dir = workspace({ 's.json': '{"agents":[]}', 'bad.json': '{ nope', 'wrong.json': '{"agents": 3}' });
    const ran = await murmur(args, { cwd: dir });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(message);
    expect(ran.stdout).toBe('');
  });

  it('refuses a bad swarm before anything starts, leaving no session behind', async () => {
    const dir = workspace({ 's.json': '{"agents":[]}' });
    const bogus = await murmur(
      ['swarm', '--model', 'scripted:s.json', '--template', 'do {{item}}', '--items', 'a', 'b', '--role', 'bogus'],
      { cwd: dir },
    );
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toMatch(
      /--role "bogus" is not a role or a defined agent; known: explore, worker, coder, verifier/,
    );
    expect(existsSync(join(dir, '.murmur', 'sessions'))).toBe(false);
  });

  it("takes murmur.toml's model after MURMUR_MODEL", async () => {
    const dir = workspace({
      'a.txt': 'alpha\nbeta\n',
      'b.txt': 'gamma\n',
      'script.json': readTwice,
      'murmur.toml': 'model = "openai:gpt-4.1"\n',
    });
    const ran = await murmur(['run', '--model', 'scripted:script.json', 'count lines'], { cwd: dir });
    expect(ran.code).toBe(0);
    const fromEnv = await murmur(['run', 'count lines'], { cwd: dir, env: { MURMUR_MODEL: 'scripted:script.json' } });
    expect(fromEnv.code).toBe(0);
    const fromConfig = await murmur(['run', 'count lines'], { cwd: dir });
    expect(fromConfig.code).toBe(2);
    expect(fromConfig.stderr).toContain('OPENAI_API_KEY');
  });

  it('says how to choose a model when none is configured, mentioning scripted: for offline use', async () => {
    const ran = await murmur(['run', 'task'], { cwd: workspace({}) });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('MURMUR_MODEL');
    expect(ran.stderr).toContain('scripted:');
  });

  it('prints help and the version', async () => {
    const help = await murmur(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('murmur run');
    expect(help.stdout).toContain('murmur swarm --template');
    const version = await murmur(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
