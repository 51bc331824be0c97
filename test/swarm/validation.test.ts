// Everything agent_swarm checks before anything starts: each bad request is a clear error that names the bad
// value, and no subagent is spawned. Also the item and concurrency limits from env, config and flags, and the
// rule that agent_swarm must be alone in its message.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Script } from '../../orchestrator/models/scripted.js';
import { SWARM_ALONE_MESSAGE, swarmAloneVeto } from '../../orchestrator/vetoes.js';
import type { AgentProfile } from '../../roles/profile.js';
import { swarmAdapterFor } from '../../host/swarm-adapter.js';
import { DEFAULT_MAX_SWARM_ITEMS, maxConcurrency, maxSwarmItems, swarmSettings } from '../../swarm/settings.js';
import { renderPrompt, validateSwarmItems } from '../../swarm/validate.js';
import { eventsOf, makeEngine, removeDir, resultText, tempDir, toolResults, type TestEngine } from './helpers.js';

const WORKER: Script = { agents: [{ match: { role: 'worker', prompt: 'Do (\\S+)' }, turns: [{ text: 'did $1' }] }] };

describe('validateSwarmItems', () => {
  const ok = (input: Parameters<typeof validateSwarmItems>[0], max = 128) => validateSwarmItems(input, max);

  it('renders every {{item}} and trims items', () => {
    expect(renderPrompt('a {{item}} b {{item}}', 'x')).toBe('a x b x');
    const checked = ok({ promptTemplate: 'Do {{item}}', items: [' a ', 'b'] });
    expect(checked).toMatchObject({ ok: true, items: ['a', 'b'] });
    expect(checked.ok && [0, 1].map((i) => checked.promptOf(i))).toEqual(['Do a', 'Do b']);
  });

  it('finds a repeat among a hundred thousand items, naming both, and none where there is none', () => {
    const items = Array.from({ length: 100_000 }, (_, i) => `file-${i}.ts`);
    expect(ok({ promptTemplate: 'Do {{item}}', items }, Number.POSITIVE_INFINITY).ok).toBe(true);
    items[91_234] = ' file-17.ts';
    const repeated = ok({ promptTemplate: 'Do {{item}}', items }, Number.POSITIVE_INFINITY);
    expect(!repeated.ok && repeated.error).toContain('items[17] and items[91234] give the same prompt ("file-17.ts")');
    const given = ok({ items: ['a', 'b', 'c'], prompts: ['Do it', 'Do that', 'Do it'] });
    expect(!given.ok && given.error).toContain('items[0] and items[2] give the same prompt ("c")');
  });

  it('refuses a template without {{item}}, quoting it', () => {
    const result = ok({ promptTemplate: 'Fix the file', items: ['a', 'b'] });
    expect(result).toMatchObject({ ok: false });
    expect(!result.ok && result.error).toContain('{{item}}');
    expect(!result.ok && result.error).toContain('"Fix the file"');
  });

  it('refuses items without a template', () => {
    const result = ok({ items: ['a', 'b'] });
    expect(!result.ok && result.error).toMatch(/items were given without a prompt_template/);
  });

  it('needs at least 2 items without resume, 1 with', () => {
    const one = ok({ promptTemplate: 'Do {{item}}', items: ['a'] });
    expect(!one.ok && one.error).toMatch(/at least 2 items \(got 1\)/);
    expect(ok({ promptTemplate: 'Do {{item}}', items: ['a'], resumeAgentIds: ['a-1'] }).ok).toBe(true);
    expect(ok({ items: [], resumeAgentIds: ['a-1'] }).ok).toBe(true);
    const none = ok({ items: [] });
    expect(none.ok).toBe(false);
  });

  it('takes a single item when the caller allows it (murmur swarm), but never none', () => {
    const one = validateSwarmItems({ promptTemplate: 'Do {{item}}', items: ['a'] }, Number.POSITIVE_INFINITY, 1);
    expect(one).toMatchObject({ ok: true, items: ['a'] });
    expect(one.ok && one.promptOf(0)).toBe('Do a');
    const none = validateSwarmItems({ promptTemplate: 'Do {{item}}', items: [] }, Number.POSITIVE_INFINITY, 1);
    expect(!none.ok && none.error).toMatch(/nothing to run/);
  });

  it('refuses a blank item, naming its index', () => {
    const result = ok({ promptTemplate: 'Do {{item}}', items: ['a', '  '] });
    expect(!result.ok && result.error).toContain('items[1] is empty');
  });

  it('refuses two items that give the same prompt, naming both', () => {
    const result = ok({ promptTemplate: 'Do {{item}}', items: ['a', 'b', ' a'] });
    expect(!result.ok && result.error).toContain('items[0] and items[2] give the same prompt ("a")');
  });

  it('refuses more items than the limit, saying how to change it', () => {
    const items = Array.from({ length: 129 }, (_, i) => `f${i}`);
    const result = ok({ promptTemplate: 'Do {{item}}', items });
    expect(!result.ok && result.error).toContain('too many subagents for one call: 129 (the limit is 128');
    expect(!result.ok && result.error).toContain('MURMUR_SWARM_MAX_ITEMS');
    expect(ok({ promptTemplate: 'Do {{item}}', items }, Number.POSITIVE_INFINITY).ok).toBe(true);
    // Resumed subagents count too.
    const withResume = ok({ promptTemplate: 'Do {{item}}', items: ['a', 'b'], resumeAgentIds: ['a-1'] }, 2);
    expect(!withResume.ok && withResume.error).toContain('too many subagents for one call: 3 (the limit is 2');
  });
});

describe('swarm settings', () => {
  it('maxSwarmItems: 128 by default, config changes it, the environment overrides both, 0 = no limit', () => {
    expect(DEFAULT_MAX_SWARM_ITEMS).toBe(128);
    expect(maxSwarmItems({}, {})).toEqual({ limit: 128 });
    expect(maxSwarmItems({}, { subagent: { maxSwarmItems: 10 } })).toEqual({ limit: 10 });
    expect(maxSwarmItems({ MURMUR_SWARM_MAX_ITEMS: '20' }, { subagent: { maxSwarmItems: 10 } })).toEqual({ limit: 20 });
    expect(maxSwarmItems({ MURMUR_SWARM_MAX_ITEMS: '0' }, { subagent: { maxSwarmItems: 10 } })).toEqual({
      limit: Number.POSITIVE_INFINITY,
    });
    expect(maxSwarmItems({}, { subagent: { maxSwarmItems: 0 } })).toEqual({ limit: Number.POSITIVE_INFINITY });
  });

  it('maxSwarmItems: an invalid value is ignored with a warning that names it', () => {
    for (const raw of ['lots', '-3', '2.5']) {
      const result = maxSwarmItems({ MURMUR_SWARM_MAX_ITEMS: raw }, { subagent: { maxSwarmItems: 10 } });
      expect(result.limit).toBe(10);
      expect(result.warning).toContain(`MURMUR_SWARM_MAX_ITEMS=${JSON.stringify(raw)}`);
      expect(result.warning).toContain('ignored');
    }
  });

  it('maxConcurrency: flag, else environment, else config; an invalid environment value is an error naming it', () => {
    const config = { swarm: { maxConcurrency: 3 } };
    expect(maxConcurrency({ env: {}, config: {} })).toEqual({});
    expect(maxConcurrency({ env: {}, config })).toEqual({ value: 3 });
    expect(maxConcurrency({ env: { MURMUR_SWARM_MAX_CONCURRENCY: '7' }, config })).toEqual({ value: 7 });
    expect(maxConcurrency({ flag: 2, env: { MURMUR_SWARM_MAX_CONCURRENCY: '7' }, config })).toEqual({ value: 2 });
    for (const raw of ['0', 'many', '1.5', '-1']) {
      const result = maxConcurrency({ env: { MURMUR_SWARM_MAX_CONCURRENCY: raw }, config });
      expect(result.value).toBeUndefined();
      expect(result.error).toContain(`MURMUR_SWARM_MAX_CONCURRENCY=${JSON.stringify(raw)}`);
    }
  });

  it('swarmSettings reads the [swarm] durations and limits', () => {
    const settings = swarmSettings(
      {
        swarm: {
          initialBurst: 2,
          rampInterval: '1s',
          quietWindow: '5s',
          maxRetries: 1,
          itemTimeout: '2m',
          maxRounds: 3,
        },
      },
      4,
    );
    expect(settings.controller).toMatchObject({
      initialBurst: 2,
      rampIntervalMs: 1000,
      quietWindowMs: 5000,
      maxRateLimitRetries: 1,
      maxConcurrency: 4,
    });
    expect(settings.itemTimeoutMs).toBe(120_000);
    expect(settings.maxRounds).toBe(3);
    expect(swarmSettings({}, undefined).controller).toMatchObject({
      initialBurst: 5,
      rampIntervalMs: 700,
      quietWindowMs: 30_000,
      maxRateLimitRetries: 5,
    });
  });
});

describe('swarmAloneVeto', () => {
  const call = (name: string, id = name) => ({ id, name, arguments: '{}' });
  it('allows agent_swarm alone and batches without it', () => {
    expect(swarmAloneVeto([call('agent_swarm')])).toBeUndefined();
    expect(swarmAloneVeto([call('read'), call('grep')])).toBeUndefined();
  });
  it('refuses a batch where agent_swarm has company, or appears twice', () => {
    expect(swarmAloneVeto([call('read'), call('agent_swarm')])).toBe(SWARM_ALONE_MESSAGE);
    expect(swarmAloneVeto([call('agent_swarm', '1'), call('agent_swarm', '2')])).toBe(SWARM_ALONE_MESSAGE);
    expect(SWARM_ALONE_MESSAGE).toMatch(/call agent_swarm alone/);
  });
});

describe('agent_swarm against a real engine: errors before anything starts', () => {
  let dir: string;
  let t: TestEngine | undefined;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    await removeDir(dir);
  });

  async function refused(
    request: Parameters<TestEngine['swarm']>[0],
    options: Parameters<typeof makeEngine>[2] = {},
  ): Promise<string> {
    t = makeEngine(dir, WORKER, options);
    const answer = await t.swarm(request);
    expect(answer.ok).toBe(false);
    // Nothing started: no swarm, no subagent.
    expect(t.engine.agentTree.spawnedCount).toBe(0);
    expect(eventsOf(t.events, 'swarm.start')).toEqual([]);
    expect(eventsOf(t.events, 'agent.start')).toEqual([]);
    return answer.ok ? '' : answer.error;
  }

  it('a template without {{item}}', async () => {
    expect(await refused({ promptTemplate: 'Do it', items: ['a', 'b'] })).toContain(
      'must contain the placeholder {{item}}',
    );
  });

  it('items without a template', async () => {
    expect(await refused({ items: ['a', 'b'] })).toContain('without a prompt_template');
  });

  it('fewer than 2 items without resume', async () => {
    expect(await refused({ promptTemplate: 'Do {{item}}', items: ['a'] })).toContain('at least 2 items (got 1)');
  });

  it('two items giving the same prompt', async () => {
    expect(await refused({ promptTemplate: 'Do {{item}}', items: ['a', 'a '] })).toContain(
      'items[0] and items[1] give the same prompt',
    );
  });

  it('an unknown subagent type, listing the allowed ones', async () => {
    const error = await refused({ promptTemplate: 'Do {{item}}', items: ['a', 'b'], subagentType: 'wizard' });
    expect(error).toContain('"wizard"');
    expect(error).toContain('explore, worker, coder, verifier');
  });

  it('the main role as a subagent type', async () => {
    expect(await refused({ promptTemplate: 'Do {{item}}', items: ['a', 'b'], subagentType: 'main' })).toMatch(/main/);
  });

  it('resume_agent_ids naming an agent that is not a subagent of the caller', async () => {
    expect(await refused({ items: [], resumeAgentIds: ['a-99'] })).toContain('"a-99"');
  });

  it('more than 128 items by default', async () => {
    const items = Array.from({ length: 129 }, (_, i) => `f${i}`);
    expect(await refused({ promptTemplate: 'Do {{item}}', items })).toContain('the limit is 128');
  });

  it('more items than [subagent] maxSwarmItems', async () => {
    const error = await refused(
      { promptTemplate: 'Do {{item}}', items: ['a', 'b', 'c', 'd'] },
      { config: { subagent: { maxSwarmItems: 3 } } },
    );
    expect(error).toContain('too many subagents for one call: 4 (the limit is 3');
  });

  it('MURMUR_SWARM_MAX_ITEMS overrides the config', async () => {
    const error = await refused(
      { promptTemplate: 'Do {{item}}', items: ['a', 'b', 'c'] },
      { config: { subagent: { maxSwarmItems: 100 } }, env: { MURMUR_SWARM_MAX_ITEMS: '2' } },
    );
    expect(error).toContain('the limit is 2');
  });

  it('an invalid MURMUR_SWARM_MAX_ITEMS is ignored with a warning that names it', async () => {
    const error = await refused(
      { promptTemplate: 'Do {{item}}', items: ['a', 'b', 'c', 'd'] },
      { config: { subagent: { maxSwarmItems: 3 } }, env: { MURMUR_SWARM_MAX_ITEMS: 'plenty' } },
    );
    expect(error).toContain('the limit is 3');
    const warnings = eventsOf(t!.events, 'log').filter((e) => e.level === 'warn');
    expect(warnings.map((w) => w.message).join('\n')).toContain('MURMUR_SWARM_MAX_ITEMS="plenty"');
  });

  it('MURMUR_SWARM_MAX_CONCURRENCY set but invalid fails at once, naming the variable', async () => {
    for (const raw of ['0', 'ten']) {
      const error = await refused(
        { promptTemplate: 'Do {{item}}', items: ['a', 'b'] },
        { env: { MURMUR_SWARM_MAX_CONCURRENCY: raw } },
      );
      expect(error).toContain(`MURMUR_SWARM_MAX_CONCURRENCY=${JSON.stringify(raw)}`);
      await t!.close();
      t = undefined;
    }
  });

  it("a swarm that could exceed the run's spawn cap", async () => {
    const error = await refused(
      { promptTemplate: 'Do {{item}}', items: ['a', 'b', 'c'] },
      { extra: { limits: { maxAgents: 2 } } },
    );
    expect(error).toContain('spawn cap');
  });

  it('worktree isolation outside a git repository', async () => {
    const error = await refused({ promptTemplate: 'Do {{item}}', items: ['a', 'b'], isolation: 'worktree' });
    expect(error).toContain('needs a git repository');
    expect(error).toContain(dir);
  });
});

describe('agent_swarm limits that let a swarm run', () => {
  let dir: string;
  let t: TestEngine | undefined;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    await removeDir(dir);
  });

  it('MURMUR_SWARM_MAX_ITEMS=0 lifts the limit (and beats a config limit)', async () => {
    t = makeEngine(dir, WORKER, {
      config: { subagent: { maxSwarmItems: 2 }, swarm: { initialBurst: 50 } },
      env: { MURMUR_SWARM_MAX_ITEMS: '0' },
      extra: { limits: { maxAgents: 500 } },
    });
    const items = Array.from({ length: 130 }, (_, i) => `f${i}`);
    const answer = await t.swarm({ promptTemplate: 'Do {{item}}', items });
    expect(answer.ok).toBe(true);
    expect(answer.ok && answer.report).toContain('<summary>completed: 130</summary>');
  });

  it('a valid MURMUR_SWARM_MAX_CONCURRENCY caps the swarm', async () => {
    t = makeEngine(dir, { latencyMs: 30, ...WORKER }, { env: { MURMUR_SWARM_MAX_CONCURRENCY: '2' } });
    let running = 0;
    let peak = 0;
    t.engine.bus.on('agent.start', (e) => {
      if (e.swarmId) peak = Math.max(peak, ++running);
    });
    t.engine.bus.on('agent.end', (e) => {
      if (e.swarmId) running--;
    });
    const answer = await t.swarm({ promptTemplate: 'Do {{item}}', items: ['a', 'b', 'c', 'd', 'e', 'f'] });
    expect(answer.ok && answer.report).toContain('<summary>completed: 6</summary>');
    expect(peak).toBe(2);
    expect(eventsOf(t.events, 'swarm.start')[0]).toMatchObject({ maxConcurrency: 2 });
  });
});

describe('agent_swarm from a defined agent', () => {
  let dir: string;
  let t: TestEngine | undefined;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    await removeDir(dir);
  });

  /** A defined agent that may delegate to workers only (`subagents: worker`), as the parent of a swarm. */
  function lead(): Parameters<typeof swarmAdapterFor>[1] {
    const profile: AgentProfile = {
      name: 'lead',
      description: 'leads',
      role: 'custom',
      prompt: '',
      builtin: false,
      subagents: ['worker'],
    };
    const spawned = t!.engine.agentTree.spawn({ profile, description: 'lead' });
    if (!spawned.ok) throw new Error(spawned.error);
    return spawned.record;
  }

  it('with `subagents: worker` gets the default type coder, which is the worker', async () => {
    t = makeEngine(dir, WORKER);
    const answer = await swarmAdapterFor(t.engine, lead(), { env: {} }).run(
      { promptTemplate: 'Do {{item}}', items: ['a', 'b'] },
      new AbortController().signal,
      () => undefined,
    );
    expect(answer.ok && answer.report).toContain('<summary>completed: 2</summary>');
    expect(eventsOf(t.events, 'swarm.start')[0]).toMatchObject({ role: 'worker' });
  });

  it('is refused a type outside its list, naming the ones it may use', async () => {
    t = makeEngine(dir, WORKER);
    const answer = await swarmAdapterFor(t.engine, lead(), { env: {} }).run(
      { promptTemplate: 'Do {{item}}', items: ['a', 'b'], subagentType: 'explore' },
      new AbortController().signal,
      () => undefined,
    );
    expect(answer).toEqual({
      ok: false,
      error: 'unknown or disallowed subagent type "explore"; allowed types: worker',
    });
    expect(t.engine.agentTree.spawnedCount).toBe(0);
  });
});

describe('agent_swarm from a main agent', () => {
  let dir: string;
  let t: TestEngine | undefined;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    await removeDir(dir);
  });

  it('with another call in the same message: every call is refused with the "call agent_swarm alone" message', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                { name: 'agent_swarm', arguments: { prompt_template: 'Do {{item}}', items: ['a', 'b'] } },
                { name: 'write', arguments: { path: 'x.txt', content: 'x' } },
              ],
            },
            { text: 'ok' },
          ],
        },
        ...WORKER.agents,
      ],
    };
    t = makeEngine(dir, script);
    const outcome = await t.engine.runTask('go');
    expect(outcome.status).toBe('completed');
    const results = toolResults(t.engine.agentTree.get('main')!.agent.state.messages);
    expect(results).toHaveLength(2);
    for (const r of results) {
      expect(r.isError).toBe(true);
      expect(resultText(r)).toContain(SWARM_ALONE_MESSAGE);
    }
    expect(results.map((r) => r.toolName)).toEqual(['agent_swarm', 'write']);
    expect(eventsOf(t.events, 'swarm.start')).toEqual([]);
    expect(t.engine.agentTree.spawnedCount).toBe(0);
  });

  it('a bad request comes back to the model as an error result saying the swarm did not start', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            { toolCalls: [{ name: 'agent_swarm', arguments: { prompt_template: 'Do it', items: ['a', 'b'] } }] },
            { text: 'ok' },
          ],
        },
        ...WORKER.agents,
      ],
    };
    t = makeEngine(dir, script);
    await t.engine.runTask('go');
    const [result] = toolResults(t.engine.agentTree.get('main')!.agent.state.messages);
    expect(result!.isError).toBe(true);
    expect(resultText(result!)).toMatch(
      /^agent_swarm did not start: prompt_template must contain the placeholder \{\{item\}\}/,
    );
    expect(t.engine.agentTree.spawnedCount).toBe(0);
  });
});
