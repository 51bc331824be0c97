// Test helpers for the permission suites: temp workspaces, a stand-in agent record, calls through the setup's
// permission hook, and a fake user (an asker whose answers the test scripts, optionally after a gate opens).
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AgentRecord } from '../../orchestrator/agent-tree.js';
import type {
  ApprovalAnswer,
  ApprovalRequest,
  Asker,
  PlanApprovalRequest,
  Requester,
} from '../../orchestrator/permissions/asker.js';
import {
  createPermissionSetup,
  type PermissionSetup,
  type PermissionSetupOptions,
} from '../../orchestrator/permissions/setup.js';
import type { MurmurConfig } from '../../orchestrator/config.js';
import type { PlanDecision, QuestionReply, QuestionRequest } from '../../tools/adapters-interaction.js';
import { resultText, type RuntimeTool, type ToolResult } from '../../tools/contract.js';
import { createWorkspaceTools } from '../../tools/workspace-tools.js';
import { createTaskTools } from '../../tools/agents/task-tools.js';
import { createAgentSwarmTool } from '../../tools/agents/agent-swarm.js';
import { createFetchUrlTool, createTodoListTool } from '../../tools/interaction-tools.js';
import { createMemoryTodoStore } from '../../tools/interact/todo-store.js';

export async function tempDir(prefix = 'murmur-perm-'): Promise<string> {
  return realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** The built-in tools by name, plus MCP stand-ins: one the server marks read-only (parallel), one it does not. */
export const TOOLS: ReadonlyMap<string, RuntimeTool> = new Map(
  [
    ...createWorkspaceTools(),
    ...createTaskTools({
      viewFor: () => {
        throw new Error('the permission suites never run a task tool');
      },
    }),
    createAgentSwarmTool({
      run: () => Promise.resolve({ ok: false, error: 'the permission suites never run a swarm' }),
    }),
    createFetchUrlTool(),
    createTodoListTool(createMemoryTodoStore()),
    fakeTool('mcp__github__list_issues', 'parallel'),
    fakeTool('mcp__github__create_issue', 'sequential'),
    fakeTool('deploy', 'sequential'),
  ].map((tool) => [tool.def.name, tool as RuntimeTool]),
);

function fakeTool(name: string, executionMode: 'parallel' | 'sequential'): RuntimeTool {
  return {
    def: { name, description: name, parameters: {} as never, executionMode },
    impl: () => ({ content: [] }),
    source: 'configured',
  };
}

export function agentRecord(
  id: string,
  role: string,
  extra: { parentId?: string; workspaceRoot?: string } = {},
): AgentRecord {
  return { id, profile: { name: role }, depth: 0, ...extra } as unknown as AgentRecord;
}

let callCounter = 0;

/** Runs the setup's permission hook for one call; undefined = allowed. */
export async function check(
  setup: PermissionSetup,
  name: string,
  args: Record<string, unknown>,
  options: { agent?: AgentRecord; signal?: AbortSignal } = {},
): Promise<ToolResult | undefined> {
  const tool = TOOLS.get(name);
  const call = { id: `call-${++callCounter}`, name, arguments: JSON.stringify(args) };
  return setup.permission(
    options.agent ?? agentRecord('main', 'main'),
    call,
    tool!,
    args,
    options.signal ?? new AbortController().signal,
  );
}

export function text(result: ToolResult | undefined): string {
  return result ? resultText(result) : '';
}

type Answer<Req, Res> = (request: Req) => Res | undefined | Promise<Res | undefined>;

/** A fake user: records every request and answers with the test's functions. */
export class FakeUser implements Asker {
  readonly approvals: ApprovalRequest[] = [];
  readonly questions: { request: QuestionRequest; requester: Requester }[] = [];
  readonly plans: PlanApprovalRequest[] = [];
  /** How many requests were on screen at once, at most. */
  maxShown = 0;
  private shown = 0;

  constructor(
    private readonly answers: {
      approve?: Answer<ApprovalRequest, ApprovalAnswer>;
      question?: Answer<QuestionRequest, QuestionReply>;
      plan?: Answer<PlanApprovalRequest, PlanDecision>;
    } = {},
  ) {}

  private async show<T>(work: () => T | undefined | Promise<T | undefined>): Promise<T | undefined> {
    this.shown++;
    this.maxShown = Math.max(this.maxShown, this.shown);
    try {
      return await work();
    } finally {
      this.shown--;
    }
  }

  approve(request: ApprovalRequest): Promise<ApprovalAnswer | undefined> {
    this.approvals.push(request);
    return this.show(() => (this.answers.approve ? this.answers.approve(request) : { kind: 'allow_once' }));
  }

  question(request: QuestionRequest, requester: Requester): Promise<QuestionReply | undefined> {
    this.questions.push({ request, requester });
    return this.show(() => this.answers.question?.(request));
  }

  plan(request: PlanApprovalRequest): Promise<PlanDecision | undefined> {
    this.plans.push(request);
    return this.show(() => this.answers.plan?.(request));
  }
}

/** A promise the test resolves later. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * A permission setup whose user denies every approval, and `outcome(name, args)`: 'allow' when the call ran
 * without a question, 'ask' when the user was asked, else the refusal text.
 */
export function setupWithOutcome(
  root: string,
  options: Partial<PermissionSetupOptions> & { permissions?: MurmurConfig['permissions'] } = {},
) {
  const user = new FakeUser({ approve: () => ({ kind: 'deny' }) });
  const { permissions, ...rest } = options;
  const setup = createPermissionSetup({
    workspaceRoot: root,
    asker: user,
    config: { permissions: permissions ?? {} },
    ...rest,
  });
  const outcome = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const before = user.approvals.length;
    const result = await check(setup, name, args);
    if (user.approvals.length > before) return 'ask';
    return result === undefined ? 'allow' : `refused: ${text(result)}`;
  };
  return { setup, user, outcome };
}
