// `--effort` from the command line, murmur.toml and an agent definition reaches the model request.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiError, openaiText, startFakeOpenAIServer, type FakeOpenAIServer } from '../fakes/openai-server.js';
import { murmur, workspace } from './helpers.js';

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer();
  server.setFallback(() => openaiText('ok'));
});
afterAll(() => server.close());

describe('murmur run --effort', () => {
  it("sends the flag, else the agent definition's, else murmur.toml's effort", async () => {
    const dir = workspace({
      'murmur.toml': 'effort = "medium"\n',
      '.murmur/agents/quick.md': '---\nname: quick\ndescription: answers fast\neffort: low\n---\nAnswer briefly.\n',
    });
    const model = ['--json', '--model', 'openai:gpt-5', '--base-url', server.baseURL];
    const runs = [
      await murmur(['run', ...model, '--effort', 'high', 'hi'], { cwd: dir }),
      await murmur(['run', ...model, '--agent', 'quick', 'hi'], { cwd: dir }),
      await murmur(['run', ...model, 'hi'], { cwd: dir }),
    ];
    for (const ran of runs) expect(ran.code, ran.stderr).toBe(0);
    expect(server.requests.map((r) => r.body.reasoning_effort)).toEqual(['high', 'low', 'medium']);
  });

  it('applies to every item of murmur swarm --effort', async () => {
    server.requests.length = 0;
    const dir = workspace({});
    const ran = await murmur(
      [
        'swarm',
        '--json',
        '--model',
        'openai:gpt-5',
        '--base-url',
        server.baseURL,
        '--effort',
        'low',
        '--template',
        'say {{item}}',
        '--items',
        'a',
        'b',
      ],
      { cwd: dir },
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(server.requests.map((r) => r.body.reasoning_effort)).toEqual(['low', 'low']);
  });

  it('keeps the effort when the session is resumed', async () => {
    server.requests.length = 0;
    const dir = workspace({});
    server.enqueue(openaiError(400, 'context too long'));
    const failed = await murmur(
      ['run', '--json', '--model', 'openai:gpt-5', '--base-url', server.baseURL, '--effort', 'high', 'hi'],
      { cwd: dir },
    );
    expect(failed.code).toBe(1);
    const { sessionId } = JSON.parse(failed.stdout) as { sessionId: string };
    const resumed = await murmur(['resume', '--json', sessionId], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.requests.map((r) => r.body.reasoning_effort)).toEqual(['high', 'high']);
  });

  it('refuses an unknown level, naming the accepted ones', async () => {
    const ran = await murmur(['run', '--effort', 'extreme', '--model', 'scripted:s.json', 'hi'], {
      cwd: workspace({ 's.json': '{"agents":[]}' }),
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('--effort must be one of low, medium, high, got "extreme"');
  });
});

describe('thinking in the session', () => {
  it("keeps the model's reasoning on the assistant message in the transcript, apart from the answer", async () => {
    const script = {
      agents: [{ match: { role: 'main' }, turns: [{ thinking: 'The user wants a greeting.', text: 'Hello!' }] }],
    };
    const dir = workspace({ 's.json': JSON.stringify(script) });
    const ran = await murmur(['run', '--json', '--model', 'scripted:s.json', 'greet me'], { cwd: dir });
    expect(ran.code, ran.stderr).toBe(0);
    const { sessionId, result } = JSON.parse(ran.stdout) as { sessionId: string; result: string };
    expect(result).toBe('Hello!');
    const lines = readFileSync(
      join(dir, '.murmur', 'sessions', sessionId, 'agents', 'main', 'transcript.jsonl'),
      'utf8',
    )
      .trim()
      .split('\n');
    const assistant = lines.map((l) => JSON.parse(l) as { role: string }).find((m) => m.role === 'assistant');
    expect(assistant).toMatchObject({
      text: 'Hello!',
      thinking: [{ type: 'thinking', thinking: 'The user wants a greeting.' }],
    });
  });
});
