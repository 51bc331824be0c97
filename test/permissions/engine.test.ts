// With the real Engine and the scripted model: a subagent of a subagent asks for approval, the request reaches
// the one asker labelled with its parent chain, only that agent waits while another agent carries on and ends;
// plan mode end to end; and a headless run where the model is told why and which rule would allow the call.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine, type EngineOptions } from '../../orchestrator/engine.js';
import { ScriptedModel } from '../../orchestrator/models/scripted.js';
import type { Script } from '../../orchestrator/models/scripted.js';
import { createPermissionSetup, type PermissionSetupOptions } from '../../orchestrator/permissions/setup.js';
import type { ToolResultMessage } from '../../orchestrator/types.js';
import type { AgentProfile } from '../../roles/profile.js';
import { defineRuntimeTool, textResult, type RuntimeTool } from '../../tools/contract.js';
import { FakeUser, gate, removeDir, tempDir } from './helpers.js';

let root: string;
let engine: Engine | undefined;

beforeEach(async () => {
  root = await tempDir('murmur-perm-engine-');
  writeFileSync(path.join(root, 'a.txt'), 'alpha\n');
});

afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await removeDir(root);
});

const LEAD: AgentProfile = {
  name: 'lead',
  description: 'Leads a piece of work',
  role: 'custom',
  prompt: 'You lead.',
  builtin: false,
  subagents: ['worker'],
};
const SCOUT: AgentProfile = {
  name: 'scout',
  description: 'Looks around',
  role: 'custom',
  prompt: 'You scout.',
  builtin: false,
};

function startEngine(
  script: Script,
  options: Omit<PermissionSetupOptions, 'workspaceRoot'>,
  extraTools: RuntimeTool[] = [],
) {
  const setup = createPermissionSetup({ workspaceRoot: root, agents: (id) => engine?.agentTree.get(id), ...options });
  const engineOptions: EngineOptions = {
    cwd: root,
    provider: new ScriptedModel(script),
    session: false,
    env: {},
    definitions: new Map([
      ['lead', LEAD],
      ['scout', SCOUT],
    ]),
    interaction: { user: setup.userChannel, planMode: setup.planMode },
    registry: { askUser: true, extra: [...setup.tools, ...extraTools] },
    permission: setup.permission,
    extraVetoes: setup.extraVetoes,
  };
  if (options.config) engineOptions.config = options.config;
  engine = new Engine(engineOptions);
  return { engine, setup };
}

function toolResults(id: string): string[] {
  const record = engine!.agentTree.get(id)!;
  return record.agent.state.messages
    .filter((m): m is ToolResultMessage => m.role === 'tool')
    .map((m) => m.content.map((c) => (c.type === 'text' ? c.text : '')).join(''));
}

describe('approvals at any depth', () => {
  it('reach the top labelled with the parent chain; only the asking agent waits while another finishes', async () => {
    const askedFor = gate<void>();
    const scoutEnded = gate<void>();
    // The scout's first tool call holds until the worker's request is on screen, so the scout provably
    // carries on (two more turns and its end) while the worker waits.
    const checkpoint = defineRuntimeTool({
      def: {
        name: 'checkpoint',
        description: 'test checkpoint',
        parameters: Type.Object({}),
        executionMode: 'parallel',
      },
      execute: async () => {
        await askedFor.promise;
        return textResult('checkpoint passed');
      },
    });
    let scoutDoneBeforeAnswer = false;
    const user = new FakeUser({
      approve: async () => {
        askedFor.open();
        await scoutEnded.promise;
        scoutDoneBeforeAnswer = true;
        return { kind: 'allow_once' };
      },
    });
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: [
                {
                  name: 'agent',
                  arguments: { subagent_type: 'lead', prompt: 'Lead the build', description: 'lead the build' },
                },
                {
                  name: 'agent',
                  arguments: { subagent_type: 'scout', prompt: 'Scout the files', description: 'scout the files' },
                },
              ],
            },
            { text: 'all done' },
          ],
        },
        {
          match: { role: 'lead' },
          turns: [
            {
              toolCalls: [
                {
                  name: 'agent',
                  arguments: { subagent_type: 'worker', prompt: 'Run the build', description: 'run the build' },
                },
              ],
            },
            { text: 'lead done' },
          ],
        },
        {
          match: { role: 'worker' },
          turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo built > out.txt' } }] }, { text: 'built' }],
        },
        {
          match: { role: 'scout' },
          turns: [
            { toolCalls: [{ name: 'checkpoint', arguments: {} }] },
            { toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] },
            { text: 'scouted' },
          ],
        },
      ],
    };
    const { engine: e } = startEngine(
      script,
      { mode: 'manual', asker: user, config: { permissions: { allow: ['checkpoint'] } } },
      [checkpoint],
    );
    e.bus.on('agent.end', (event) => {
      if (event.role === 'scout') scoutEnded.open();
    });
    const outcome = await e.runTask('Build it');
    expect(outcome.status).toBe('completed');
    expect(outcome.result).toBe('all done');
    expect(scoutDoneBeforeAnswer).toBe(true);

    const lead = e.agentTree.all().find((r) => r.profile.name === 'lead')!;
    const worker = e.agentTree.all().find((r) => r.profile.name === 'worker')!;
    expect(worker.depth).toBe(2);
    expect(user.approvals).toHaveLength(1);
    expect(user.approvals[0]).toMatchObject({
      requester: {
        agentId: worker.id,
        role: 'worker',
        chain: [
          { agentId: lead.id, role: 'lead' },
          { agentId: 'main', role: 'main' },
        ],
      },
      tool: 'bash',
      summary: 'bash: echo built > out.txt',
    });
    expect(readFileSync(path.join(root, 'out.txt'), 'utf8')).toBe('built\n');
  });
});

describe('headless runs', () => {
  it('deny at once with a message that names the rule that would allow the call', async () => {
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'touch made.txt' } }] }, { text: 'gave up' }],
        },
      ],
    };
    const { engine: e } = startEngine(script, { headlessReason: 'the run prints JSON (--json)' });
    const outcome = await e.runTask('Make a file');
    expect(outcome.status).toBe('completed');
    expect(existsSync(path.join(root, 'made.txt'))).toBe(false);
    const [result] = toolResults('main');
    expect(result).toContain('nobody can approve it here (the run prints JSON (--json))');
    expect(result).toContain('The rule that would allow it: "bash(touch made.txt)"');
  });
});

describe('plan mode through the engine', () => {
  it('refuses changes while planning, presents the plan, and lets the agent work once approved', async () => {
    const plan = '.murmur/plans/main.md';
    const script: Script = {
      agents: [
        {
          match: { role: 'main' },
          turns: [
            { toolCalls: [{ name: 'enter_plan_mode', arguments: {} }] },
            { toolCalls: [{ name: 'write', arguments: { path: 'src.txt', content: 'too early' } }] },
            { toolCalls: [{ name: 'write', arguments: { path: plan, content: '# Plan\nWrite src.txt\n' } }] },
            {
              toolCalls: [
                { name: 'exit_plan_mode', arguments: { options: [{ label: 'Tiny', description: 'Only src.txt' }] } },
                { name: 'read', arguments: { path: 'a.txt' } },
              ],
            },
            {
              toolCalls: [
                { name: 'exit_plan_mode', arguments: { options: [{ label: 'Tiny', description: 'Only src.txt' }] } },
              ],
            },
            { toolCalls: [{ name: 'write', arguments: { path: 'src.txt', content: 'done' } }] },
            { text: 'finished' },
          ],
        },
      ],
    };
    const user = new FakeUser({ plan: () => ({ kind: 'option', label: 'Tiny' }) });
    const { engine: e } = startEngine(script, { mode: 'auto', asker: user });
    const outcome = await e.runTask('Plan then do');
    expect(outcome.status).toBe('completed');
    const results = toolResults('main');
    expect(results[0]).toContain(`Your plan file: ${path.join(root, plan)}`);
    expect(results[1]).toContain('You are in plan mode: write may only touch your plan file');
    expect(results[2]).toContain('Wrote');
    expect(results[3]).toContain('exit_plan_mode must be the only tool call in its message');
    expect(results[5]).toContain('The user chose the alternative "Tiny": Only src.txt.');
    expect(results[6]).toContain('Wrote 4 bytes to src.txt');
    expect(user.plans).toHaveLength(1);
    expect(user.plans[0]!.plan).toBe('# Plan\nWrite src.txt\n');
    expect(readFileSync(path.join(root, 'src.txt'), 'utf8')).toBe('done');
  });
});
