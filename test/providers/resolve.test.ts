// Choosing a model (flag, environment, keys) and building its provider from a spec.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptError } from '../../orchestrator/models/scripted.js';
import {
  chooseModelSpec,
  createProvider,
  ModelConfigError,
  parseModelSpec,
} from '../../orchestrator/models/resolve.js';
import { anthropicText, startFakeAnthropicServer, type FakeAnthropicServer } from '../fakes/anthropic-server.js';
import { openaiText, startFakeOpenAIServer, type FakeOpenAIServer } from '../fakes/openai-server.js';
import { modelRequest } from './helpers.js';

describe('chooseModelSpec', () => {
  it('takes --model first, then MURMUR_MODEL, then OPENAI_API_KEY, then ANTHROPIC_API_KEY', () => {
    const all = { MURMUR_MODEL: 'ollama:qwen3', OPENAI_API_KEY: 'sk-o', ANTHROPIC_API_KEY: 'sk-a' };
    expect(chooseModelSpec({ flag: 'scripted:demo.json', env: all })).toEqual({
      ok: true,
      spec: 'scripted:demo.json',
      source: '--model',
    });
    expect(chooseModelSpec({ env: all })).toEqual({ ok: true, spec: 'ollama:qwen3', source: 'MURMUR_MODEL' });
    expect(chooseModelSpec({ env: { OPENAI_API_KEY: 'sk-o', ANTHROPIC_API_KEY: 'sk-a' } })).toEqual({
      ok: true,
      spec: 'openai:gpt-4.1',
      source: 'OPENAI_API_KEY',
    });
    expect(chooseModelSpec({ env: { ANTHROPIC_API_KEY: 'sk-a' } })).toEqual({
      ok: true,
      spec: 'anthropic:claude-sonnet-4-6',
      source: 'ANTHROPIC_API_KEY',
    });
  });

  it("puts murmur.toml's model after MURMUR_MODEL and before the provider keys", () => {
    const keys = { OPENAI_API_KEY: 'sk-o' };
    expect(
      chooseModelSpec({ env: { ...keys, MURMUR_MODEL: 'scripted:s.json' }, config: 'openai:gpt-4.1' }),
    ).toMatchObject({ spec: 'scripted:s.json', source: 'MURMUR_MODEL' });
    expect(chooseModelSpec({ env: keys, config: 'ollama:qwen3' })).toEqual({
      ok: true,
      spec: 'ollama:qwen3',
      source: 'murmur.toml',
    });
    expect(chooseModelSpec({ env: keys, config: ' ' })).toMatchObject({ source: 'OPENAI_API_KEY' });
  });

  it('ignores empty environment variables', () => {
    expect(
      chooseModelSpec({ env: { MURMUR_MODEL: '  ', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: 'sk-a' } }),
    ).toMatchObject({ ok: true, spec: 'anthropic:claude-sonnet-4-6' });
  });

  it('says how to choose a model when nothing is set, mentioning scripted:FILE for offline use', () => {
    const choice = chooseModelSpec({ env: {} });
    expect(choice.ok).toBe(false);
    const message = (choice as { message: string }).message;
    for (const hint of ['--model', 'MURMUR_MODEL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'scripted:FILE', 'ollama:'])
      expect(message).toContain(hint);
  });

  it('rejects an empty --model, listing the accepted forms', () => {
    const choice = chooseModelSpec({ flag: '', env: { OPENAI_API_KEY: 'sk' } });
    expect(choice).toMatchObject({ ok: false });
    expect((choice as { message: string }).message).toContain('openai:MODEL');
  });
});

describe('parseModelSpec', () => {
  it('splits at the first colon so model names keep theirs', () => {
    expect(parseModelSpec('ollama:llama3.1:8b')).toEqual({ provider: 'ollama', model: 'llama3.1:8b' });
    expect(parseModelSpec('openai:gpt-4.1')).toEqual({ provider: 'openai', model: 'gpt-4.1' });
  });

  it('names the bad value and lists the accepted forms', () => {
    for (const bad of ['gpt-4o', 'gemini:pro', '']) {
      const error = catchError(() => parseModelSpec(bad));
      expect(error).toBeInstanceOf(ModelConfigError);
      expect(error.message).toContain(`"${bad}"`);
      for (const form of ['openai:MODEL', 'anthropic:MODEL', 'ollama:MODEL', 'scripted:FILE'])
        expect(error.message).toContain(form);
    }
    expect(catchError(() => parseModelSpec('openai:')).message).toMatch(/"openai:" lacks a model name/);
    expect(catchError(() => parseModelSpec('scripted:')).message).toMatch(/lacks a file/);
  });
});

function catchError(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('createProvider', () => {
  let openai: FakeOpenAIServer;
  let anthropic: FakeAnthropicServer;
  let dir: string;
  beforeAll(async () => {
    [openai, anthropic, dir] = await Promise.all([
      startFakeOpenAIServer(),
      startFakeAnthropicServer(),
      mkdtemp(join(tmpdir(), 'murmur-resolve-')),
    ]);
  });
  afterAll(async () => {
    await Promise.all([openai.close(), anthropic.close(), rm(dir, { recursive: true, force: true })]);
  });
  const signal = new AbortController().signal;

  it('asks for OPENAI_API_KEY / ANTHROPIC_API_KEY when the key is missing', async () => {
    await expect(createProvider('openai:gpt-4.1', { env: {}, cwd: dir })).rejects.toThrow(ModelConfigError);
    await expect(createProvider('openai:gpt-4.1', { env: {}, cwd: dir })).rejects.toThrow(/set OPENAI_API_KEY/);
    await expect(createProvider('anthropic:claude-haiku-4-5', { env: {}, cwd: dir })).rejects.toThrow(
      /set ANTHROPIC_API_KEY/,
    );
  });

  it('rejects an unknown prefix and a bad base URL, naming the value', async () => {
    await expect(createProvider('gemini:pro', { env: {}, cwd: dir })).rejects.toThrow(
      /unknown model "gemini:pro"; accepted forms: openai:MODEL/,
    );
    await expect(
      createProvider('openai:gpt-4.1', { env: { OPENAI_API_KEY: 'k' }, cwd: dir, baseUrl: 'localhost:8000' }),
    ).rejects.toThrow(/--base-url "localhost:8000" is not an http\(s\) URL/);
    await expect(
      createProvider('openai:gpt-4.1', { env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'ftp://x' }, cwd: dir }),
    ).rejects.toThrow(/OPENAI_BASE_URL "ftp:\/\/x"/);
  });

  it('builds openai:MODEL against --base-url without a key (local servers ignore it)', async () => {
    openai.enqueue(openaiText('from the base url'));
    const model = await createProvider('openai:qwen2.5-coder', { env: {}, cwd: dir, baseUrl: openai.baseURL });
    expect(model.name).toBe('openai:qwen2.5-coder');
    expect(await model.complete(modelRequest('hi'), signal)).toMatchObject({
      ok: true,
      message: { text: 'from the base url' },
    });
    expect(openai.requests.at(-1)!.body.model).toBe('qwen2.5-coder');
  });

  it('takes OPENAI_BASE_URL and OPENAI_API_KEY from the environment, the flag winning over the variable', async () => {
    openai.enqueue(openaiText('env'));
    const model = await createProvider('openai:gpt-4.1', {
      env: { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: openai.baseURL },
      cwd: dir,
    });
    await model.complete(modelRequest('hi'), signal);
    expect(openai.requests.at(-1)!.headers.authorization).toBe('Bearer sk-env');

    openai.enqueue(openaiText('flag'));
    const flagged = await createProvider('openai:gpt-4.1', {
      env: { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
      cwd: dir,
      baseUrl: openai.baseURL,
    });
    expect(await flagged.complete(modelRequest('hi'), signal)).toMatchObject({ ok: true, message: { text: 'flag' } });
  });

  it('builds ollama:MODEL as the OpenAI provider at OLLAMA_HOST, default http://localhost:11434/v1', async () => {
    openai.enqueue(openaiText('llama says hi'));
    const host = openai.baseURL.replace(/\/v1$/, '');
    const model = await createProvider('ollama:llama3.1:8b', { env: { OLLAMA_HOST: host }, cwd: dir });
    expect(model.name).toBe('ollama:llama3.1:8b');
    expect(await model.complete(modelRequest('hi'), signal)).toMatchObject({
      ok: true,
      message: { text: 'llama says hi' },
    });
    expect(openai.requests.at(-1)!.body.model).toBe('llama3.1:8b');

    const local = await createProvider('ollama:llama3.1', { env: {}, cwd: dir });
    const result = await local.complete(modelRequest('hi'), signal);
    // Nothing listens there in the test environment; the message shows where it went.
    expect(result).toMatchObject({ ok: false, error: { kind: 'network' } });
    expect((result as { error: { message: string } }).error.message).toContain('http://localhost:11434/v1');
  });

  it('builds anthropic:MODEL against ANTHROPIC_BASE_URL with ANTHROPIC_API_KEY', async () => {
    anthropic.enqueue(anthropicText('claude here'));
    const model = await createProvider('anthropic:claude-haiku-4-5', {
      env: { ANTHROPIC_API_KEY: 'sk-ant-env', ANTHROPIC_BASE_URL: anthropic.baseURL },
      cwd: dir,
    });
    expect(model.name).toBe('anthropic:claude-haiku-4-5');
    expect(model.capabilities.images).toBe(true);
    expect(await model.complete(modelRequest('hi'), signal)).toMatchObject({
      ok: true,
      message: { text: 'claude here' },
    });
    expect(JSON.stringify(anthropic.requests.at(-1)!.headers)).toContain('sk-ant-env');
  });

  it('loads scripted:FILE relative to cwd and lets its ScriptError messages through', async () => {
    await writeFile(join(dir, 'demo.json'), JSON.stringify({ agents: [{ turns: [{ text: 'scripted hello' }] }] }));
    const model = await createProvider('scripted:demo.json', { env: {}, cwd: dir });
    expect(model.name).toBe(`scripted:${join(dir, 'demo.json')}`);
    expect(await model.complete(modelRequest('hi'), signal)).toMatchObject({
      ok: true,
      message: { text: 'scripted hello' },
    });

    const missing = createProvider('scripted:nope.json', { env: {}, cwd: dir });
    await expect(missing).rejects.toThrow(ScriptError);
    await expect(missing).rejects.toThrow(`cannot read the scripted-model file ${join(dir, 'nope.json')}`);
    await writeFile(join(dir, 'broken.json'), '{ "agents": [');
    await expect(createProvider('scripted:broken.json', { env: {}, cwd: dir })).rejects.toThrow(/is not valid JSON/);
  });
});

describe('lazy SDK loading', () => {
  it('imports neither SDK statically from the provider files or resolve.ts', async () => {
    for (const file of ['resolve.ts', 'openai.ts', 'anthropic.ts']) {
      const source = await readFile(new URL(`../../orchestrator/models/${file}`, import.meta.url), 'utf8');
      // `import type` is erased at build time; anything else would load the SDK with the module.
      expect(source, file).not.toMatch(/^import\s+(?!type\b)[^;]*from\s+'(openai|@anthropic-ai\/sdk)(\/[^']*)?'/m);
      expect(source, file).not.toMatch(/^export\s+[^;]*from\s+'(openai|@anthropic-ai\/sdk)/m);
    }
  });
});
