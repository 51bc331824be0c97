// Errors as values, and option errors in the library's words: a missing model or key is named under `model` with
// the option to set (never a command-line flag), a bad duration says what is accepted; the reports' statuses and
// counts are closed types of the states a finished run really has, and resume() tells a run from a swarm by `kind`.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  createMurmur,
  MurmurOptionsError,
  type ItemOutcome,
  type ResumeReport,
  type RunReport,
  type SwarmReport,
} from '../../api/index.js';
import { scriptedModel } from '../../api/testing.js';
import { optionError } from './option-errors.js';

let dir: string;
beforeEach(async () => (dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-errors-')))));
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('option errors in the library’s words', () => {
  it('no model at all: names the model option and how to give it', async () => {
    const error = await optionError({ cwd: dir, env: {} });
    expect(error.option).toBe('model');
    expect(error.message).toContain("model: 'openai:gpt-4.1'");
    expect(error.message).toContain('MURMUR_MODEL');
    expect(error.message).not.toMatch(/--model|--base-url/);
  });

  it('a missing key is the model’s problem, said without flags', async () => {
    const error = await optionError({ cwd: dir, model: 'anthropic:claude-sonnet-4-6', env: {} });
    expect(error.option).toBe('model');
    expect(error.message).toContain('set ANTHROPIC_API_KEY (or point baseUrl / ANTHROPIC_BASE_URL');
    expect(error.message).not.toContain('--');
  });

  it('a bad endpoint is named baseUrl; one from the environment is named env', async () => {
    const given = await optionError({ cwd: dir, model: 'openai:gpt-4.1', baseUrl: 'localhost:8000', env: {} });
    expect(given.option).toBe('baseUrl');
    expect(given.message).toContain('baseUrl "localhost:8000" is not an http(s) URL');
    const fromEnv = await optionError({ cwd: dir, model: 'openai:gpt-4.1', env: { OPENAI_BASE_URL: 'ftp://x' } });
    expect(fromEnv.option).toBe('env');
    expect(fromEnv.message).toContain('OPENAI_BASE_URL');
  });

  it('limits.agentTimeout "soon" says what is accepted', async () => {
    const model = scriptedModel({ agents: [] });
    const error = await optionError({ cwd: dir, model, limits: { agentTimeout: 'soon' } });
    expect(error.option).toBe('limits.agentTimeout');
    expect(error.message).toContain('"90s"');
    expect(error.message).not.toContain('Expected union value');
  });

  it('a bad signal for one run is refused at the call', async () => {
    const murmur = await createMurmur({ cwd: dir, model: scriptedModel({ agents: [] }), sessions: false });
    expect(() => murmur.run('x', { signal: 'stop' as never })).toThrow(MurmurOptionsError);
    await murmur.close();
  });
});

describe('reports as closed types', () => {
  it('statuses are the states a finished run has; summary counts the item outcomes; resume is discriminated', () => {
    expectTypeOf<RunReport['status']>().toEqualTypeOf<
      'completed' | 'failed' | 'timeout' | 'aborted' | 'budget' | 'waiting'
    >();
    expectTypeOf<SwarmReport['status']>().toEqualTypeOf<'completed' | 'failed' | 'aborted' | 'waiting'>();
    expectTypeOf<keyof SwarmReport['summary']>().toEqualTypeOf<ItemOutcome>();
    expectTypeOf<ResumeReport['kind']>().toEqualTypeOf<'run' | 'swarm'>();
    expectTypeOf<Extract<ResumeReport, { kind: 'swarm' }>>().toEqualTypeOf<SwarmReport>();
  });

  it('a failed model call is a report, never a throw', async () => {
    const model = scriptedModel({ agents: [{ turns: [{ failFirst: { status: 401, times: 5 }, text: 'x' }] }] });
    const murmur = await createMurmur({ cwd: dir, model, sessions: false });
    const report = await murmur.run('hello');
    expect(report).toMatchObject({ kind: 'run', status: 'failed' });
    expect(report.reason).toBeTruthy();
    await murmur.close();
  });
});
