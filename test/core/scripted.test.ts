import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScriptedModel, ScriptError, loadScriptFile, type Script } from '../../orchestrator/models/scripted.js';
import type { Message } from '../../orchestrator/types.js';

const signal = new AbortController().signal;
const ask = (model: ScriptedModel, role: string, messages: Message[], id = 'a-1') =>
  model.complete({ system: '', messages, tools: [], agent: { id, role } }, signal);

describe('the scripted model', () => {
  const script: Script = {
    agents: [
      {
        match: { role: 'worker', prompt: 'Migrate (\\S+) to (\\w+)' },
        turns: [
          { toolCalls: [{ name: 'read', arguments: { path: '$1', note: ['$2', 'x$1'] } }] },
          { text: 'Migrated $1 to $2', usage: { input: 1200, output: 40 } },
        ],
      },
      { match: { role: 'explore' }, turns: [{ text: 'explored: $0' }] },
    ],
  };

  it('matches by role and prompt and substitutes captures in every string', async () => {
    const model = new ScriptedModel(script);
    const first = await ask(model, 'coder', [{ role: 'user', content: 'Migrate src/a.js to esm please' }]);
    expect(first.ok && first.message.toolCalls).toEqual([
      { id: 'call_1_1', name: 'read', arguments: JSON.stringify({ path: 'src/a.js', note: ['esm', 'xsrc/a.js'] }) },
    ]);
    const explore = await ask(model, 'explore', [{ role: 'user', content: 'look around' }]);
    expect(explore.ok && explore.message.text).toBe('explored: look around');
  });

  it('takes the turn index from the assistant messages already in the conversation (resume continues)', async () => {
    const model = new ScriptedModel(script);
    const history: Message[] = [
      { role: 'user', content: 'Migrate b.js to cjs' },
      {
        role: 'assistant',
        text: '',
        toolCalls: [{ id: 'x', name: 'read', arguments: '{}' }],
        stopReason: 'tool_calls',
      },
      { role: 'tool', toolCallId: 'x', toolName: 'read', content: [], isError: false },
    ];
    // A fresh model instance (a new process) answers the second turn.
    const second = await ask(model, 'worker', history);
    expect(second.ok && second.message).toMatchObject({
      text: 'Migrated b.js to cjs',
      toolCalls: [],
      stopReason: 'end',
      usage: { input: 1200, output: 40 },
    });
  });

  it('fails the first attempts of a turn with failFirst, then answers', async () => {
    const model = new ScriptedModel({
      agents: [{ turns: [{ failFirst: { status: 429, times: 2, retryAfterMs: 100 }, text: 'ok' }] }],
    });
    const messages: Message[] = [{ role: 'user', content: 'go' }];
    const one = await ask(model, 'main', messages);
    const two = await ask(model, 'main', messages);
    const three = await ask(model, 'main', messages);
    expect(one).toEqual({
      ok: false,
      error: {
        kind: 'rate_limit',
        message: 'scripted failure: HTTP 429',
        status: 429,
        retryAfterMs: 100,
        retryable: true,
      },
    });
    expect(two.ok).toBe(false);
    expect(three.ok && three.message.text).toBe('ok');
  });

  it('fails a turn with "fail" on the attempts it names (the swarm item\'s, from the request), never retried', async () => {
    const model = new ScriptedModel({
      agents: [
        { match: { prompt: 'flaky (\\S+)' }, turns: [{ fail: '$1 broke', attempts: 2, text: 'fixed $1' }] },
        { match: { prompt: 'broken' }, turns: [{ fail: 'always broken', text: 'never said' }] },
      ],
    });
    const flaky: Message[] = [{ role: 'user', content: 'flaky x.ts' }];
    const at = (attempt: number | undefined, messages: Message[]) =>
      model.complete(
        { system: '', messages, tools: [], agent: { id: 'a-1', role: 'worker', ...(attempt ? { attempt } : {}) } },
        signal,
      );
    const failure = { ok: false, error: { kind: 'script', message: 'x.ts broke', retryable: false } };
    // Absent reads as attempt 1; asking again on the same attempt fails again (nothing is counted in memory).
    expect(await at(undefined, flaky)).toEqual(failure);
    expect(await at(1, flaky)).toEqual(failure);
    expect(await at(2, flaky)).toEqual(failure);
    const third = await at(3, flaky);
    expect(third.ok && third.message.text).toBe('fixed x.ts');
    const broken: Message[] = [{ role: 'user', content: 'broken' }];
    expect(await at(7, broken)).toMatchObject({ ok: false, error: { message: 'always broken', retryable: false } });
  });

  it('refuses "attempts" without "fail", naming the turn', () => {
    const dir = mkdtempSync(join(tmpdir(), 'murmur-script-'));
    writeFileSync(join(dir, 'lone.json'), JSON.stringify({ agents: [{ turns: [{ text: 'a' }, { attempts: 1 }] }] }));
    expect(() => loadScriptFile(join(dir, 'lone.json'))).toThrow(/\/agents\/0\/turns\/1\/attempts goes with "fail"/);
  });

  it('answers 429 beyond rateLimit.maxConcurrent requests in flight', async () => {
    const model = new ScriptedModel({
      latencyMs: 30,
      rateLimit: { maxConcurrent: 2, retryAfterMs: 250 },
      agents: [{ turns: [{ text: 'ok' }] }],
    });
    const results = await Promise.all(
      [1, 2, 3].map((i) => ask(model, 'main', [{ role: 'user', content: `go ${i}` }], `a-${i}`)),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(2);
    expect(results.find((r) => !r.ok)).toEqual({
      ok: false,
      error: expect.objectContaining({ kind: 'rate_limit', status: 429, retryAfterMs: 250 }),
    });
  });

  it('names the agent and quotes its prompt when nothing matches or no turn is left', async () => {
    const model = new ScriptedModel(script);
    const none = await ask(model, 'verifier', [{ role: 'user', content: 'check the thing' }], 'a-9');
    expect(!none.ok && none.error.message).toBe(
      'scripted model: no script entry matches agent a-9 (role verifier); its prompt: "check the thing"',
    );
    const done: Message[] = [
      { role: 'user', content: 'look around' },
      { role: 'assistant', text: 'explored', toolCalls: [], stopReason: 'end' },
      { role: 'user', content: 'more?' },
    ];
    const over = await ask(model, 'explore', done, 'a-2');
    expect(!over.ok && over.error.message).toContain('agent a-2 (role explore) has no turn 2 in its script (it has 1)');
    expect(!over.ok && over.error.retryable).toBe(false);
  });

  it('stops waiting when aborted', async () => {
    const model = new ScriptedModel({ latencyMs: 10_000, agents: [{ turns: [{ text: 'late' }] }] });
    const controller = new AbortController();
    const pending = model.complete(
      { system: '', messages: [{ role: 'user', content: 'x' }], tools: [], agent: { id: 'a', role: 'main' } },
      controller.signal,
    );
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, error: { kind: 'aborted' } });
  });

  it('reports an unreadable, invalid or malformed file with its path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'murmur-script-'));
    writeFileSync(join(dir, 'bad.json'), '{ nope');
    writeFileSync(join(dir, 'wrong.json'), JSON.stringify({ agents: [{ turns: [{ txt: 'typo' }] }] }));
    writeFileSync(join(dir, 'regex.json'), JSON.stringify({ agents: [{ match: { prompt: '(' }, turns: [] }] }));
    expect(() => loadScriptFile(join(dir, 'missing.json'))).toThrow(
      /cannot read the scripted-model file .*missing\.json: ENOENT/,
    );
    expect(() => loadScriptFile(join(dir, 'bad.json'))).toThrow(/bad\.json is not valid JSON/);
    expect(() => loadScriptFile(join(dir, 'wrong.json'))).toThrow(ScriptError);
    expect(() => loadScriptFile(join(dir, 'wrong.json'))).toThrow(/\/agents\/0\/turns\/0/);
    expect(() => loadScriptFile(join(dir, 'regex.json'))).toThrow(
      /\/agents\/0\/match\/prompt is not a valid regular expression/,
    );
  });
});
