// Plan mode: enter_plan_mode and exit_plan_mode with the setup's adapter, the write limits (vetoes no rule or
// mode lifts), option validation, the answers, headless rejection vs approvePlans, and yolo still asking.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPermissionSetup, type PermissionSetupOptions } from '../../orchestrator/permissions/setup.js';
import type { PlanDecision } from '../../tools/adapters-interaction.js';
import {
  checkArguments,
  resultText,
  type RuntimeTool,
  type ToolContext,
  type ToolResult,
} from '../../tools/contract.js';
import { PLAN_MODE_TOOL_NAMES, planFilePath } from '../../tools/interact/plan-mode.js';
import { buildToolRegistry } from '../../tools/registry.js';
import { writeTool } from '../../tools/workspace-tools.js';
import { agentRecord, check, FakeUser, removeDir, tempDir, text } from './helpers.js';

let root: string;
let sessionDir: string;

beforeAll(async () => {
  root = await tempDir();
  sessionDir = path.join(root, '.murmur', 'sessions', 's-1');
  mkdirSync(sessionDir, { recursive: true });
});

afterAll(async () => {
  await removeDir(root);
});

/** The plan-mode tools of each planning() agent: its setup's (PermissionSetup.tools), made over its adapter. */
const planTools = new Map<string, readonly RuntimeTool[]>();
const enterPlanModeTool = 'enter_plan_mode';
const exitPlanModeTool = 'exit_plan_mode';

/** Runs a tool, or one of the agent's plan-mode tools by name. */
async function run(named: RuntimeTool | string, ctx: ToolContext, args: unknown = {}): Promise<ToolResult> {
  const tool = typeof named === 'string' ? planTools.get(ctx.agentId)!.find((t) => t.def.name === named)! : named;
  const prepared = tool.def.prepareArguments ? tool.def.prepareArguments(args) : args;
  const problem = checkArguments(tool.def, prepared);
  if (problem) return { content: [{ type: 'text', text: problem }], isError: true };
  return tool.impl(ctx, prepared as never, new AbortController().signal, () => undefined);
}

let agentCounter = 0;

function planning(options: Partial<PermissionSetupOptions> & { decision?: PlanDecision } = {}) {
  const { decision, ...rest } = options;
  const user = new FakeUser({ plan: () => decision ?? { kind: 'approve' }, approve: () => ({ kind: 'deny' }) });
  const setup = createPermissionSetup({ workspaceRoot: root, asker: user, ...rest });
  const agentId = `a-${++agentCounter}`;
  const ctx: ToolContext = {
    agentId,
    role: 'main',
    cwd: root,
    callId: 'call-1',
    workspace: { root, extraRoots: [], allowSensitive: [] },
    session: { dir: sessionDir, toolOutputsDir: path.join(sessionDir, 'tool-outputs') },
  };
  planTools.set(agentId, setup.tools);
  const agent = agentRecord(agentId, 'main');
  const planPath = path.join(sessionDir, 'plans', `${agentId}.md`);
  return { user, setup, ctx, agent, planPath };
}

describe('enter_plan_mode', () => {
  it('returns the workflow and the plan file, and switches the agent into plan mode', async () => {
    const { setup, ctx, planPath } = planning();
    expect(setup.planModeFor(ctx.agentId)).toEqual({ active: false });
    const result = await run(enterPlanModeTool, ctx);
    expect(result.isError).toBeUndefined();
    expect(resultText(result)).toContain('You are now in plan mode.');
    expect(resultText(result)).toContain(`Your plan file: ${planPath}`);
    expect(resultText(result)).toContain('call exit_plan_mode alone');
    expect(setup.planModeFor(ctx.agentId)).toEqual({ active: true, planPath });
    // Calling it again keeps the same plan file.
    expect(resultText(await run(enterPlanModeTool, ctx))).toContain('You are already in plan mode.');
    expect(resultText(await run(enterPlanModeTool, ctx, { reason: 'x' }))).toContain(
      'Invalid arguments for tool "enter_plan_mode"',
    );
  });

  it('keeps the plan file inside the workspace when the session folder is elsewhere', () => {
    const ctx = {
      agentId: 'a-9',
      cwd: root,
      session: { dir: '/var/tmp/other-home/sessions/s', toolOutputsDir: '/var/tmp/x' },
    };
    expect(planFilePath(ctx)).toBe(path.join(root, '.murmur', 'plans', 'a-9.md'));
    expect(planFilePath({ agentId: 'main', cwd: root })).toBe(path.join(root, '.murmur', 'plans', 'main.md'));
  });

  it('comes from the permission setup, made over its plan-mode adapter; a registry without them has none', () => {
    const { setup } = planning();
    expect(setup.tools.map((t) => t.def.name)).toEqual([...PLAN_MODE_TOOL_NAMES]);
    const registry = buildToolRegistry({
      tasks: {
        viewFor: () => {
          throw new Error('unused');
        },
      },
    });
    for (const name of PLAN_MODE_TOOL_NAMES) expect(registry.shared.map((t) => t.def.name)).not.toContain(name);
  });
});

describe('plan-mode limits', () => {
  it('lets write and edit touch only the plan file, refuses task_stop, and no allow rule or mode lifts that', async () => {
    for (const mode of ['manual', 'yolo'] as const) {
      const { setup, ctx, agent, planPath, user } = planning({
        mode,
        config: { permissions: { allow: ['write', 'edit', 'task_stop'] } },
      });
      await run(enterPlanModeTool, ctx);
      const outsideWrite = await check(setup, 'write', { path: 'src/app.ts', content: 'x' }, { agent });
      expect(outsideWrite?.isError).toBe(true);
      expect(text(outsideWrite)).toContain(
        `You are in plan mode: write may only touch your plan file ${planPath}, so "src/app.ts" was not changed.`,
      );
      expect(
        text(await check(setup, 'edit', { path: 'README.md', old_string: 'a', new_string: 'b' }, { agent })),
      ).toContain('You are in plan mode: edit may only touch');
      expect(text(await check(setup, 'task_stop', { task_id: 't-1' }, { agent }))).toContain(
        'task_stop is refused until your plan is approved',
      );
      // The plan file itself, by absolute or relative path, is allowed without asking.
      expect(await check(setup, 'write', { path: planPath, content: '# Plan' }, { agent })).toBeUndefined();
      expect(
        await check(
          setup,
          'edit',
          { path: path.relative(root, planPath), old_string: 'a', new_string: 'b' },
          { agent },
        ),
      ).toBeUndefined();
      expect(user.approvals).toHaveLength(0);
      // Other agents are not in plan mode.
      expect(
        await check(setup, 'write', { path: 'src/app.ts', content: 'x' }, { agent: agentRecord('other', 'worker') }),
      ).toBeUndefined();
    }
  });

  it('other tools follow the permission rules while planning', async () => {
    const { setup, ctx, agent, user } = planning({ mode: 'manual' });
    await run(enterPlanModeTool, ctx);
    expect(await check(setup, 'read', { path: 'src/app.ts' }, { agent })).toBeUndefined();
    expect(text(await check(setup, 'bash', { command: 'ls' }, { agent }))).toContain('the user denied');
    expect(user.approvals).toHaveLength(1);
  });

  it('a deny rule still holds for the plan file', async () => {
    const { setup, ctx, agent, planPath } = planning({ config: { permissions: { deny: ['write(.murmur/**)'] } } });
    await run(enterPlanModeTool, ctx);
    expect(text(await check(setup, 'write', { path: planPath, content: 'x' }, { agent }))).toContain(
      'permissions.deny',
    );
  });

  it('refuses exit_plan_mode together with other calls in one message', () => {
    const { setup, agent } = planning();
    const veto = setup.extraVetoes(agent)!;
    expect(veto([{ id: '1', name: 'exit_plan_mode', arguments: '{}' }])).toBeUndefined();
    expect(
      veto([
        { id: '1', name: 'exit_plan_mode', arguments: '{}' },
        { id: '2', name: 'write', arguments: '{}' },
      ]),
    ).toContain('exit_plan_mode must be the only tool call');
  });
});

describe('exit_plan_mode', () => {
  async function withPlan(options: Parameters<typeof planning>[0] = {}) {
    const setup = planning(options);
    await run(enterPlanModeTool, setup.ctx);
    mkdirSync(path.dirname(setup.planPath), { recursive: true });
    // Written through the real write tool, as an agent would.
    const written = await run(
      writeTool,
      { ...setup.ctx, reads: { recordRead: () => undefined, lastRead: () => undefined } },
      { path: setup.planPath, content: '# Plan\n1. Rename foo to bar\n2. Run the tests\n' },
    );
    expect(written.isError).toBeUndefined();
    return setup;
  }

  it('validates options: 1-3, labels unique, at most 80 characters, not reserved, with a description', () => {
    const exit = planning().setup.tools.find((t) => t.def.name === exitPlanModeTool)!;
    const problem = (args: unknown) => checkArguments(exit.def, args);
    const option = (label: string, description = 'd') => ({ label, description });
    expect(problem({})).toBeUndefined();
    expect(problem({ options: [option('Small steps'), option('Big bang')] })).toBeUndefined();
    expect(problem({ options: [] })).toContain('options has 0 alternatives; give 1 to 3');
    expect(problem({ options: [option('a'), option('b'), option('c'), option('d')] })).toContain(
      'options has 4 alternatives',
    );
    expect(problem({ options: [option('x'.repeat(81))] })).toContain(
      'options[0].label is 81 characters long; at most 80',
    );
    expect(problem({ options: [option('Fast'), option(' fast ')] })).toContain(
      'options[1].label "fast" repeats options[0].label; labels must be unique',
    );
    for (const reserved of ['Approve', 'reject', 'Reject and Exit', 'REVISE']) {
      expect(problem({ options: [option(reserved)] })).toContain(
        `options[0].label ${JSON.stringify(reserved)} is reserved`,
      );
    }
    expect(problem({ options: [{ label: 'A' }] })).toContain('options[0].description must be a non-empty string');
    expect(problem({ options: [{ label: 'A', description: 'd', extra: 1 }] })).toContain('"extra" is not a field');
    expect(problem({ plan: 'x' })).toContain('"plan" is not a parameter (accepted: options)');
  });

  it('needs plan mode and a written plan', async () => {
    const { ctx, planPath } = planning();
    expect(resultText(await run(exitPlanModeTool, ctx))).toContain(
      'You are not in plan mode: call enter_plan_mode first',
    );
    await run(enterPlanModeTool, ctx);
    expect(resultText(await run(exitPlanModeTool, ctx))).toContain(`Your plan file ${planPath} does not exist yet`);
    writeFileSync(planPath, '  \n');
    expect(resultText(await run(exitPlanModeTool, ctx))).toContain('is empty');
  });

  it('presents the plan with its options; approval ends plan mode', async () => {
    const { ctx, setup, user, agent, planPath } = await withPlan({ decision: { kind: 'approve' } });
    const result = await run(exitPlanModeTool, ctx, {
      options: [{ label: 'Small steps', description: 'One module at a time' }],
    });
    expect(resultText(result)).toContain('The user approved your plan. You have left plan mode');
    expect(user.plans[0]).toMatchObject({
      agentId: ctx.agentId,
      role: 'main',
      planPath,
      plan: readFileSync(planPath, 'utf8'),
      options: [{ label: 'Small steps', description: 'One module at a time' }],
    });
    expect(user.plans[0]!.requester).toEqual({ agentId: ctx.agentId, role: 'main', chain: [] });
    expect(setup.planModeFor(ctx.agentId).active).toBe(false);
    expect(text(await check(setup, 'write', { path: 'src/app.ts', content: 'x' }, { agent }))).toContain(
      'the user denied',
    );
  });

  it('brings each answer back to the agent', async () => {
    const cases: { decision: PlanDecision; text: string; active: boolean }[] = [
      {
        decision: { kind: 'option', label: 'Big bang' },
        text: 'The user chose the alternative "Big bang": All at once.',
        active: false,
      },
      {
        decision: { kind: 'revise', feedback: 'Add a rollback step' },
        text: 'The user wants the plan revised: "Add a rollback step". You are still in plan mode',
        active: true,
      },
      {
        decision: { kind: 'reject', reason: 'too risky' },
        text: 'The plan was rejected: too risky. You are still in plan mode',
        active: true,
      },
      {
        decision: { kind: 'reject_and_exit' },
        text: 'The user rejected the plan and ended plan mode. Do not carry out this plan',
        active: false,
      },
    ];
    for (const item of cases) {
      const { ctx, setup } = await withPlan({ decision: item.decision });
      const result = await run(exitPlanModeTool, ctx, { options: [{ label: 'Big bang', description: 'All at once' }] });
      expect(resultText(result)).toContain(item.text);
      expect(result.details).toMatchObject({ decision: item.decision });
      expect(setup.planModeFor(ctx.agentId).active).toBe(item.active);
    }
  });

  it('is rejected with the reason when nobody can answer, unless configuration approves plans', async () => {
    const headless = await withPlan({ asker: undefined, headlessReason: 'the run prints JSON (--json)' });
    const rejected = await run(exitPlanModeTool, headless.ctx);
    expect(resultText(rejected)).toContain(
      'The plan was rejected: nobody can approve a plan here (the run prints JSON (--json)); configuration approves plans only with permissions.approvePlans = true',
    );
    expect(headless.setup.planModeFor(headless.ctx.agentId).active).toBe(true);

    const approved = await withPlan({ asker: undefined, config: { permissions: { approvePlans: true } } });
    expect(resultText(await run(exitPlanModeTool, approved.ctx))).toContain('The user approved your plan');
    expect(approved.setup.planModeFor(approved.ctx.agentId).active).toBe(false);
  });

  it('asks for the plan even in yolo mode, and even with approvePlans when someone can answer', async () => {
    const { ctx, user } = await withPlan({
      mode: 'yolo',
      config: { permissions: { approvePlans: true } },
      decision: { kind: 'reject', reason: 'no' },
    });
    expect(resultText(await run(exitPlanModeTool, ctx))).toContain('The plan was rejected: no.');
    expect(user.plans).toHaveLength(1);
  });
});
