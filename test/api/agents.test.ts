// Agents defined in code: defineAgent registered with createMurmur({ agents }) is usable as run()'s agent (object or
// name), a swarm's role and a subagent the main agent calls by name, with its role's tool cap still applied and its
// typed output on the report; bad definitions are MurmurOptionsError naming `agents[i].FIELD`; a session that used
// one resumes with the library's resume() on an instance that has it, and `murmur resume` refuses it (exit 2).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMurmur, defineAgent, defineTool, textResult, Type, type DefinedAgent } from '../../api/index.js';
import { scriptedModel } from '../../api/testing.js';
import { MURMUR_BIN } from '../murmur-bin.js';
import { optionError, syncError } from './option-errors.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'murmur-agents-')));
  writeFileSync(path.join(dir, 'notes.md'), 'config lives in app.toml\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const Finding = Type.Object({ file: Type.String() });

const researcher = defineAgent({
  name: 'researcher',
  role: 'explore',
  instructions: 'You find where things are configured. Answer with the file.',
  tools: ['read', 'grep', 'glob'],
  output: Finding,
});

/** The researcher globs, then answers through final_answer. */
const researcherTurns = [
  { toolCalls: [{ name: 'glob', arguments: { pattern: '*.md' } }] },
  { toolCalls: [{ name: 'final_answer', arguments: { file: 'notes.md' } }] },
];

describe('defineAgent', () => {
  it("runs as run()'s agent, with its instructions, only its tools within the role's cap, and a typed output", async () => {
    const model = scriptedModel({ agents: [{ match: { role: 'researcher' }, turns: researcherTurns }] });
    const murmur = await createMurmur({ cwd: dir, model, sessions: false, agents: [researcher] });
    const report = await murmur.run('Where is the configuration?', { agent: researcher });
    await murmur.close();
    expect(report).toMatchObject({ status: 'completed', output: { file: 'notes.md' } });
    // Typed: report.output is Static<typeof Finding>.
    const file: string | undefined = report.output?.file;
    expect(file).toBe('notes.md');
    const [first] = model.calls;
    expect(first?.system).toContain('You find where things are configured.');
    expect(first?.tools.map((tool) => tool.name).sort()).toEqual(['final_answer', 'glob', 'grep', 'read']);
    model.assertComplete();
  });

  it("has no tools unless it names them, and every tool of its role with tools: 'role'", async () => {
    const talker = defineAgent({ name: 'talker', role: 'worker', instructions: 'Answer from what you are told.' });
    const explorer = defineAgent({ name: 'explorer', role: 'explore', instructions: 'Look around.', tools: 'role' });
    const model = scriptedModel({
      agents: [
        { match: { role: 'talker' }, turns: [{ text: 'said' }] },
        { match: { role: 'explorer' }, turns: [{ text: 'looked' }] },
      ],
    });
    const murmur = await createMurmur({ cwd: dir, model, sessions: false, agents: [talker, explorer] });
    await murmur.run('Say it', { agent: talker });
    await murmur.run('Look', { agent: 'explorer' });
    await murmur.close();
    const [said, looked] = model.calls.map((call) => call.tools.map((tool) => tool.name).sort());
    expect(said).toEqual([]);
    // The explore role's own tools: reading and searching, no writes, no shell.
    expect(looked).toEqual(expect.arrayContaining(['glob', 'grep', 'read']));
    expect(looked).not.toContain('write');
    expect(looked).not.toContain('bash');
    const bad = defineAgent({ name: 'bad', role: 'worker', instructions: 'x', tools: 'all' as 'role' });
    await expect(createMurmur({ cwd: dir, model, agents: [bad] })).rejects.toThrow(
      /agents\[0\]\.tools: "all" is not accepted; give a list of tool names, or 'role'/,
    );
  });

  it('is a swarm role (by object or name), and a subagent the main agent calls by name', async () => {
    const model = scriptedModel({
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                {
                  name: 'agent',
                  arguments: { prompt: 'find the config', description: 'find the config', subagent_type: 'researcher' },
                },
              ],
            },
            { text: 'main done' },
          ],
        },
        { match: { role: 'researcher' }, turns: researcherTurns },
      ],
    });
    const murmur = await createMurmur({ cwd: dir, model, sessions: false, agents: [researcher] });
    const swarm = await murmur.swarm({ template: 'Find {{item}}', items: ['a', 'b'], role: researcher });
    expect(swarm.items.map((row) => [row.outcome, row.output?.file])).toEqual([
      ['completed', 'notes.md'],
      ['completed', 'notes.md'],
    ]);
    const byName = await murmur.swarm({ template: 'Find {{item}}', items: ['c'], role: 'researcher' });
    expect(byName.items[0]?.outcome).toBe('completed');
    const run = await murmur.run('Find the configuration with a subagent');
    await murmur.close();
    expect(run).toMatchObject({ status: 'completed', result: 'main done' });
    expect(run.agents.map((agent) => agent.role)).toContain('researcher');
    const tool = model.calls.find((call) => call.agent.role === 'main' && call.messages.some((m) => m.role === 'tool'));
    expect(JSON.stringify(tool?.messages.at(-1))).toContain('notes.md');
  });

  it('keeps the role cap: a worker of yours gets no agent tool, an explore agent no edit; your tool named in tools is its own', async () => {
    const stamp = defineTool({
      def: { name: 'stamp', description: 'Stamps.', parameters: Type.Object({}), readOnly: true },
      execute: () => textResult('stamped'),
    });
    const fixer = defineAgent({ name: 'fixer', role: 'worker', instructions: 'Fix things.', tools: ['read', 'stamp'] });
    const model = scriptedModel({
      agents: [
        { match: { role: 'fixer' }, turns: [{ toolCalls: [{ name: 'stamp', arguments: {} }] }, { text: 'ok' }] },
      ],
    });
    const murmur = await createMurmur({
      cwd: dir,
      model,
      sessions: false,
      agents: [fixer],
      tools: [{ tool: stamp, roles: ['verifier'] }],
    });
    const report = await murmur.run('fix', { agent: 'fixer' });
    await murmur.close();
    expect(report.status).toBe('completed');
    expect(model.calls[0]?.tools.map((tool) => tool.name).sort()).toEqual(['read', 'stamp']);
    expect(JSON.stringify(model.calls[1]?.messages.at(-1))).toContain('stamped');
  });

  it("bad definitions are MurmurOptionsError naming agents[i].FIELD, in the library's words", async () => {
    mkdirSync(path.join(dir, '.murmur', 'agents'), { recursive: true });
    writeFileSync(path.join(dir, '.murmur', 'agents', 'reviewer.md'), '---\nname: reviewer\n---\nReview.\n');
    const base = { role: 'explore' as const, instructions: 'Look.' };
    const cases: [unknown, string, RegExp][] = [
      [{ ...base, name: 'reviewer' }, 'agents[0].name', /already the name of .*reviewer\.md/],
      [{ ...base, name: 'worker' }, 'agents[0].name', /built-in role/],
      [{ ...base, name: 'has space' }, 'agents[0].name', /letters, digits/],
      [{ ...base, name: 'x', colour: 'red' }, 'agents[0].colour', /unknown field; accepted: name, role/],
      [
        { ...base, name: 'x', role: 'wrker' },
        'agents[0].role',
        /"wrker" is not a role .*explore, worker, coder, verifier/,
      ],
      [{ ...base, name: 'x', role: 'main' }, 'agents[0].role', /not a role an agent may take/],
      [{ ...base, name: 'x', instructions: '' }, 'agents[0].instructions', /non-empty/],
      [
        { ...base, name: 'x', tools: ['read', 'bsh'] },
        'agents[0].tools[1]',
        /"bsh" is not a tool; built-in tools: read/,
      ],
      [
        { ...base, name: 'x', tools: ['edit'] },
        'agents[0].tools[0]',
        /the explore role may not use edit; it may use read/,
      ],
      [{ ...base, name: 'x', tools: ['mcp__nope__x'] }, 'agents[0].tools[0]', /no configured MCP server/],
      [{ ...base, name: 'x', model: 'gpt-4.1' }, 'agents[0].model', /provider:model/],
      [{ ...base, name: 'x', effort: 'max' }, 'agents[0].effort', /low, medium, high/],
      [{ ...base, name: 'x', output: 'text' }, 'agents[0].output', /TypeBox schema/],
    ];
    for (const [agent, option, message] of cases) {
      const error = await optionError({
        cwd: dir,
        model: scriptedModel({ agents: [] }),
        agents: [agent as DefinedAgent],
      });
      expect([error.option, error.message]).toEqual([option, expect.stringMatching(message)]);
    }
    const twice = await optionError({
      cwd: dir,
      model: scriptedModel({ agents: [] }),
      agents: [defineAgent({ ...base, name: 'a' }), defineAgent({ ...base, name: 'A' })],
    });
    expect([twice.option, twice.message]).toEqual([
      'agents[1].name',
      expect.stringContaining('two agents are named "a"'),
    ]);
    // An agent not given to this instance, and an unknown name, are refused at the call.
    const murmur = await createMurmur({ cwd: dir, model: scriptedModel({ agents: [] }), sessions: false });
    expect(syncError(() => murmur.run('x', { agent: researcher })).option).toBe('agent');
    expect(syncError(() => murmur.swarm({ template: '{{item}}', items: ['a'], role: 'researcher' })).option).toBe(
      'swarm.role',
    );
    await murmur.close();
  });

  it('a session that used one resumes with the library on an instance that has it; murmur resume refuses it (exit 2)', async () => {
    const slow = scriptedModel({
      agents: [
        {
          match: { role: 'researcher' },
          turns: [researcherTurns[0]!, { latencyMs: 10_000, text: 'late' }],
        },
      ],
    });
    const first = await createMurmur({ cwd: dir, model: slow, agents: [researcher] });
    const handle = first.run('Where is the configuration?', { agent: researcher });
    for await (const event of handle.events()) if (event.type === 'tool.end') handle.abort('stop here');
    expect(await handle).toMatchObject({ status: 'aborted', reason: 'stop here' });
    await first.close();

    const cli = spawnSync(process.execPath, [MURMUR_BIN, 'resume', handle.sessionId, '--cwd', dir], {
      encoding: 'utf8',
      env: { ...process.env, MURMUR_MODEL: 'scripted:/nonexistent.json' },
    });
    expect(cli.status).toBe(2);
    expect(cli.stderr).toContain('"researcher"');
    expect(cli.stderr).toContain('defineAgent');
    expect(cli.stderr).toContain(`murmur.resume('${handle.sessionId}')`);

    const without = await createMurmur({ cwd: dir, model: scriptedModel({ agents: [] }) });
    expect(syncError(() => without.resume(handle.sessionId))).toMatchObject({
      option: 'sessionId',
      message: expect.stringContaining('"researcher", defined in code'),
    });
    await without.close();

    const model = scriptedModel({ agents: [{ match: { role: 'researcher' }, turns: researcherTurns }] });
    const again = await createMurmur({ cwd: dir, model, agents: [researcher] });
    const resumed = await again.resume(handle.sessionId);
    await again.close();
    expect(resumed).toMatchObject({ kind: 'run', status: 'completed', output: { file: 'notes.md' } });
  });
});
