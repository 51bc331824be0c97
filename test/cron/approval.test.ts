// create_scheduled_task with the real Engine and the scripted model: the card reaches the one asker from any
// depth (labelled with the parent chain) even in yolo mode with an allow rule; approval creates the task,
// rejection creates nothing and the agent sees why; headless refuses even with headless = "allow"; only main
// and defined agents that name the tool get it; MURMUR_DISABLE_CRON=1 removes it and set_timer.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine, type EngineOptions } from '../../orchestrator/engine.js';
import { ScriptedModel, type Script } from '../../orchestrator/models/scripted.js';
import type { ModelProvider } from '../../orchestrator/models/provider.js';
import { createPermissionSetup, type PermissionSetupOptions } from '../../orchestrator/permissions/setup.js';
import { CronStore } from '../../scheduler/store.js';
import { cronToolAdapter } from '../../scheduler/tool-adapter.js';
import type { ToolResultMessage } from '../../orchestrator/types.js';
import type { AgentProfile } from '../../roles/profile.js';
import { builtinProfile } from '../../roles/profile.js';
import { mayScheduleTasks } from '../../roles/filters.js';
import { CREATE_SCHEDULED_TASK, createScheduledTaskTool } from '../../tools/agents/create-scheduled-task.js';
import { FakeUser } from '../permissions/helpers.js';

let root: string;
let home: string;
let engine: Engine | undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'murmur-cron-approval-')));
  home = mkdtempSync(join(tmpdir(), 'murmur-cron-home-'));
  // The run's model (the tool's default for a task) is a script in the workspace, checked when a task is made.
  writeFileSync(
    join(root, 'script.json'),
    JSON.stringify({ agents: [{ match: { role: 'main' }, turns: [{ text: 'done' }] }] }),
  );
});

afterEach(async () => {
  await engine?.close();
  engine = undefined;
  rmSync(root, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const LEAD: AgentProfile = {
  name: 'lead',
  description: 'Leads',
  role: 'custom',
  prompt: 'You lead.',
  builtin: false,
  subagents: ['planner'],
};
const PLANNER: AgentProfile = {
  name: 'planner',
  description: 'Plans routine work',
  role: 'custom',
  prompt: 'You plan.',
  builtin: false,
  tools: ['read', 'create_scheduled_task'],
};

const CALL = {
  name: CREATE_SCHEDULED_TASK,
  arguments: {
    cron: '0 3 * * *',
    prompt: 'Audit the dependencies and list outdated ones',
    title: 'Nightly audit',
    timezone: 'Europe/Berlin',
    reason: 'the user asked for a nightly audit',
  },
};

function deepScript(): Script {
  return {
    agents: [
      {
        match: { role: 'main' },
        turns: [
          {
            toolCalls: [
              { name: 'agent', arguments: { subagent_type: 'lead', prompt: 'Lead it', description: 'lead' } },
            ],
          },
          { text: 'main done' },
        ],
      },
      {
        match: { role: 'lead' },
        turns: [
          {
            toolCalls: [
              {
                name: 'agent',
                arguments: { subagent_type: 'planner', prompt: 'Schedule the audit', description: 'plan' },
              },
            ],
          },
          { text: 'lead done' },
        ],
      },
      { match: { role: 'planner' }, turns: [{ toolCalls: [CALL] }, { text: 'planner done' }] },
    ],
  };
}

function start(
  script: Script,
  options: Omit<PermissionSetupOptions, 'workspaceRoot'>,
  env: NodeJS.ProcessEnv = {},
  wrap?: (p: ModelProvider) => ModelProvider,
) {
  const setup = createPermissionSetup({ workspaceRoot: root, agents: (id) => engine?.agentTree.get(id), ...options });
  const tool = createScheduledTaskTool(
    cronToolAdapter({
      workspace: root,
      env: { HOME: home },
      defaultModel: 'scripted:script.json',
      confirm: (r, s) => setup.confirm({ ...r, tool: CREATE_SCHEDULED_TASK }, s),
    }),
  );
  const provider = new ScriptedModel(script);
  const engineOptions: EngineOptions = {
    cwd: root,
    provider: wrap ? wrap(provider) : provider,
    session: false,
    env: { HOME: home, ...env },
    definitions: new Map([
      ['lead', LEAD],
      ['planner', PLANNER],
    ]),
    registry: { extra: [...setup.tools, tool] },
    permission: setup.permission,
    extraVetoes: setup.extraVetoes,
  };
  if (options.config) engineOptions.config = options.config;
  engine = new Engine(engineOptions);
  return engine;
}

function results(id: string): string[] {
  return engine!.agentTree
    .get(id)!
    .agent.state.messages.filter((m): m is ToolResultMessage => m.role === 'tool')
    .map((m) => m.content.map((c) => (c.type === 'text' ? c.text : '')).join(''));
}

function tasks() {
  return CronStore.forWorkspace(root, { env: { HOME: home } }).list();
}

describe('create_scheduled_task approval', () => {
  it('shows the card from depth 2 even in yolo mode with an allow rule, and creates the task when approved', async () => {
    const user = new FakeUser({ approve: () => ({ kind: 'allow_once' }) });
    const e = start(deepScript(), {
      mode: 'yolo',
      asker: user,
      config: { permissions: { allow: ['create_scheduled_task'], headless: 'allow' } },
    });
    const outcome = await e.runTask('Set up the audit');
    expect(outcome.status).toBe('completed');
    expect(user.approvals).toHaveLength(1);
    const request = user.approvals[0]!;
    const planner = e.agentTree.all().find((r) => r.profile.name === 'planner')!;
    expect(planner.depth).toBe(2);
    expect(request.requester.chain.map((c) => c.role)).toEqual(['lead', 'main']);
    expect(request.alwaysRules).toEqual([]);
    expect(request.card).toContain('Title:           Nightly audit');
    expect(request.card).toMatch(/Schedule: +at 03:00 every day \(time zone Europe\/Berlin\)/);
    expect(request.card).toMatch(/Next runs: +\d{4}-\d\d-\d\dT03:00:00\+0[12]:00, .+, .+ \(Europe\/Berlin\)/);
    expect(request.card).toContain(`Workspace:       ${root}`);
    expect(request.card).toContain('Model:           scripted:script.json');
    expect(request.card).toContain('Permission mode: manual');
    expect(request.card).toContain('  Audit the dependencies and list outdated ones');
    expect(request.card).toContain('Reason:          the user asked for a nightly audit');
    const created = tasks();
    expect(created).toHaveLength(1);
    // No permission_mode given: the task stores the mode the card showed, so murmur.toml's mode cannot change it.
    expect(created[0]).toMatchObject({
      title: 'Nightly audit',
      createdBy: 'agent',
      timezone: 'Europe/Berlin',
      schedule: { kind: 'cron', cron: '0 3 * * *' },
      permissionMode: 'manual',
    });
    expect(results(planner.id)[0]).toContain(`Scheduled task ${created[0]!.id} created`);
  });

  it('creates nothing when rejected, and the agent sees the reason', async () => {
    const user = new FakeUser({ approve: () => ({ kind: 'deny', feedback: 'not every night, weekly' }) });
    const e = start(deepScript(), { mode: 'manual', asker: user });
    await e.runTask('Set up the audit');
    expect(tasks()).toEqual([]);
    const planner = e.agentTree.all().find((r) => r.profile.name === 'planner')!;
    expect(results(planner.id)[0]).toContain(
      'the user rejected the scheduled task. The user said: "not every night, weekly"',
    );
  });

  it('is refused with nobody to answer, even with headless = "allow" in yolo mode', async () => {
    const script: Script = { agents: [{ match: { role: 'main' }, turns: [{ toolCalls: [CALL] }, { text: 'ok' }] }] };
    const e = start(script, {
      mode: 'yolo',
      headlessReason: 'stdin is not a terminal',
      config: { permissions: { headless: 'allow', allow: ['create_scheduled_task'] } },
    });
    await e.runTask('Schedule it');
    expect(tasks()).toEqual([]);
    expect(results('main')[0]).toContain(
      "needs a person's approval, and nobody can answer here (stdin is not a terminal)",
    );
  });

  it('rejects bad arguments before asking, naming the parameter', async () => {
    const user = new FakeUser();
    const bad = {
      name: CREATE_SCHEDULED_TASK,
      arguments: { cron: '0 25 * * *', prompt: 'x', recurring: false, max_fires: 2, timezone: 'Nowhere/City' },
    };
    const script: Script = { agents: [{ match: { role: 'main' }, turns: [{ toolCalls: [bad] }, { text: 'ok' }] }] };
    const e = start(script, { mode: 'manual', asker: user });
    await e.runTask('Schedule it');
    expect(user.approvals).toEqual([]);
    const text = results('main')[0]!;
    expect(text).toContain('cron: cron "0 25 * * *": hour field "25": 25 is out of range 0-23');
    expect(text).toContain('timezone: unknown time zone "Nowhere/City"');
    expect(text).toContain('max_fires: max fires caps a recurring task');
    expect(tasks()).toEqual([]);
  });
});

describe('who gets create_scheduled_task', () => {
  it('main and defined agents that name it; never explore, worker or verifier', () => {
    expect(mayScheduleTasks(builtinProfile('main'))).toBe(true);
    for (const role of ['explore', 'worker', 'verifier'] as const)
      expect(mayScheduleTasks(builtinProfile(role))).toBe(false);
    expect(mayScheduleTasks(PLANNER)).toBe(true);
    expect(mayScheduleTasks(LEAD)).toBe(false);
  });

  it('MURMUR_DISABLE_CRON=1 removes it and set_timer from the catalog', async () => {
    const seen: string[][] = [];
    const spy = (p: ModelProvider): ModelProvider => ({
      name: p.name,
      capabilities: p.capabilities,
      complete: (request, signal) => {
        seen.push(request.tools.map((t) => t.name));
        return p.complete(request, signal);
      },
    });
    const script: Script = { agents: [{ match: { role: 'main' }, turns: [{ text: 'ok' }] }] };
    await start(script, { mode: 'manual' }, {}, spy).runTask('hello');
    expect(seen[0]).toEqual(expect.arrayContaining(['set_timer', CREATE_SCHEDULED_TASK]));
    await engine!.close();
    await start(script, { mode: 'manual' }, { MURMUR_DISABLE_CRON: '1' }, spy).runTask('hello');
    expect(seen[1]).not.toContain('set_timer');
    expect(seen[1]).not.toContain(CREATE_SCHEDULED_TASK);
  });
});
