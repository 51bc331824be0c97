// Tool traits are declared once, on the tool: every built-in tool's definition spreads the constant the table of
// built-in traits lists under its name, and the permission and role tables derive from that table. These tests fail
// when a tool made by the registry (or a host's built-in extra) declares traits that differ from its table entry,
// when a built-in tool name has no entry, and when a derived table changes — so a trait change is a visible decision.
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { finalAnswerTool } from '../../orchestrator/final-answer.js';
import { READERS } from '../../orchestrator/permissions/match.js';
import { PLAN_WRITERS } from '../../orchestrator/permissions/plan-mode.js';
import { decide, READ_ONLY_TOOLS, SELF_CHECKED_TOOLS, SWARM_TOOLS } from '../../orchestrator/permissions/policy.js';
import { FILE_CHANGE_TOOLS } from '../../orchestrator/permissions/protected.js';
import { ARGUMENT_KINDS, NAME_ONLY, parseRule, RULE_FORMS } from '../../orchestrator/permissions/rules.js';
import { describeSubject } from '../../orchestrator/permissions/subject.js';
import { DELEGATION_TOOLS, SUBTASK_DENIED, TASK_CONTROL_TOOLS } from '../../roles/filters.js';
import type { SubagentAdapter, SwarmAdapter } from '../../tools/adapters.js';
import type { PlanModeAdapter, UserChannel } from '../../tools/adapters-interaction.js';
import { createAgentSwarmTool } from '../../tools/agents/agent-swarm.js';
import { CREATE_SCHEDULED_TASK, createScheduledTaskTool } from '../../tools/agents/create-scheduled-task.js';
import {
  BUILTIN_TRAITS,
  builtinToolsWhere,
  builtinTraits,
  FINAL_ANSWER_TRAITS,
  traitsOf,
} from '../../tools/builtin-traits.js';
import { DELEGATION_ENTRY } from '../../tools/catalog.js';
import { defineRuntimeTool, type RuntimeTool, type ToolTraits } from '../../tools/contract.js';
import { greetSkillCatalog } from '../fakes/skills.js';
import { createPlanModeTools, PLAN_MODE_TOOL_NAMES } from '../../tools/interact/plan-mode.js';
import { createMemoryTodoStore } from '../../tools/interact/todo-store.js';
import { planMcpDisclosure } from '../../tools/mcp/disclosure.js';
import { buildMcpRuntimeTools } from '../../tools/mcp/mcp-tools.js';
import { BUILTIN_TOOL_NAMES, buildToolRegistry } from '../../tools/registry.js';

// Ports that are never called here: the registry only makes tools with them.
const unused = () => {
  throw new Error('not called in these tests');
};
const tasks = { viewFor: unused };
const user: UserChannel = { availability: () => ({ canAsk: true }), ask: unused };
const subagents: SubagentAdapter = { allowedTypes: () => [], run: unused };
const swarm: SwarmAdapter = { run: unused };
const skills = greetSkillCatalog();

/** Every tool the registry can make, with every port given, for one agent that may delegate. */
function registryTools(): readonly RuntimeTool[] {
  return buildToolRegistry({
    tasks,
    timers: { set: () => ({ timerId: 't', dueAt: 0 }) },
    todos: createMemoryTodoStore(),
    skills,
    user,
    web: {},
    search: { name: 'fake', search: () => Promise.resolve([]) },
    swarmTool: createAgentSwarmTool,
  }).forAgent({ subagents, swarm });
}

/** The host's built-in extras: plan mode and create_scheduled_task (adapters never called). */
function hostExtras(): RuntimeTool[] {
  return [
    ...createPlanModeTools({} as PlanModeAdapter),
    createScheduledTaskTool({ prepare: unused, confirm: unused } as never),
  ];
}

/** tool_search and mcp_invoke, as deferred disclosure makes them over configured MCP tools. */
async function disclosureTools(): Promise<RuntimeTool[]> {
  const listed = Array.from({ length: 3 }, (_, i) => ({
    name: `tool${i}`,
    description: `Tool ${i}. ${'It does something. '.repeat(20)}`,
    inputSchema: { type: 'object' as const, properties: {} },
  }));
  const server = { name: 'docs', transport: 'stdio', command: 'x', args: [], env: {}, source: 'configured', file: 't' };
  const mcp = await buildMcpRuntimeTools(server as never, 'docs', listed, unused as never);
  const plan = planMcpDisclosure({
    tools: mcp,
    model: 'openai:m',
    contextWindow: 100,
    settings: { models: ['openai:m'], thresholdPct: 0.01 },
  });
  expect(plan.decision).toBe('deferred');
  return plan.replacements;
}

const sorted = (set: ReadonlySet<string>) => [...set].sort();

describe('the derived permission and role tables', () => {
  // Each list is the table as it was written by hand before traits: a change here is a decision about a tool.
  it('keep their contents', () => {
    expect(sorted(READ_ONLY_TOOLS)).toEqual(
      [
        'read',
        'grep',
        'glob',
        'read_media_file',
        'todo_list',
        'fetch_url',
        'web_search',
        'task_list',
        'task_output',
        'tool_search',
      ].sort(),
    );
    expect(sorted(SELF_CHECKED_TOOLS)).toEqual(
      [
        'ask_user_question',
        'enter_plan_mode',
        'exit_plan_mode',
        'agent',
        'set_timer',
        'skill',
        'create_scheduled_task',
        'final_answer',
      ].sort(),
    );
    expect(ARGUMENT_KINDS).toEqual({
      bash: 'command',
      read: 'path',
      write: 'path',
      edit: 'path',
      read_media_file: 'path',
      grep: 'path',
      glob: 'path',
    });
    expect(sorted(NAME_ONLY)).toEqual(['agent_swarm']);
    expect(sorted(SWARM_TOOLS)).toEqual(['agent_swarm']);
    expect(sorted(FILE_CHANGE_TOOLS)).toEqual(['edit', 'write']);
    expect(sorted(PLAN_WRITERS)).toEqual(['edit', 'write']);
    expect(sorted(READERS)).toEqual(['glob', 'grep', 'read', 'read_media_file']);
    expect(sorted(DELEGATION_TOOLS)).toEqual(['agent', 'agent_swarm']);
    expect(sorted(DELEGATION_ENTRY)).toEqual(['agent', 'agent_swarm']);
    expect(sorted(TASK_CONTROL_TOOLS)).toEqual(['task_list', 'task_output', 'task_stop']);
    expect(sorted(SUBTASK_DENIED)).toEqual(['ask_user_question', 'todo_list']);
  });

  it('name in the accepted rule forms every tool a rule may give an argument pattern, bash first', () => {
    expect(RULE_FORMS).toContain(
      'bash(…), read(…), write(…), edit(…), grep(…), glob(…), read_media_file(…) such as bash(npm test*)',
    );
  });

  it('hold traits that agree with each other', () => {
    for (const [name, traits] of Object.entries(BUILTIN_TRAITS) as [string, ToolTraits][]) {
      // A tool that writes the file its path names is matched by that path, and does not only read.
      if (traits.writesPath) expect({ name, ...traits }).toMatchObject({ ruleArgument: 'path' });
      if (traits.writesPath) expect({ name, readOnly: traits.readOnly }).toEqual({ name, readOnly: undefined });
      // A swarm starts agents; a swarm is matched by its name only.
      if (traits.startsSwarm) expect({ name, ...traits }).toMatchObject({ startsAgents: true });
      if (traits.startsSwarm) expect({ name, ruleArgument: traits.ruleArgument }).toEqual({ name });
    }
  });
});

describe('built-in tools declare their traits once', () => {
  it('every built-in tool name has a traits entry', () => {
    const names = [...BUILTIN_TOOL_NAMES, ...PLAN_MODE_TOOL_NAMES, CREATE_SCHEDULED_TASK];
    expect(names.filter((name) => builtinTraits(name) === undefined)).toEqual([]);
  });

  it('the registry makes every tool of BUILTIN_TOOL_NAMES, each with exactly its entry’s traits', () => {
    const tools = registryTools();
    expect(tools.map((t) => t.def.name)).toEqual(BUILTIN_TOOL_NAMES);
    for (const tool of tools) {
      expect({ name: tool.def.name, traits: traitsOf(tool.def) }).toEqual({
        name: tool.def.name,
        traits: builtinTraits(tool.def.name),
      });
    }
  });

  it('the host’s built-in extras, tool_search and mcp_invoke declare exactly their entries’ traits', async () => {
    const tools = [...hostExtras(), ...(await disclosureTools())];
    expect(tools.map((t) => t.def.name)).toEqual([
      'enter_plan_mode',
      'exit_plan_mode',
      'create_scheduled_task',
      'tool_search',
      'mcp_invoke',
    ]);
    for (const tool of tools) {
      expect({ name: tool.def.name, traits: traitsOf(tool.def) }).toEqual({
        name: tool.def.name,
        traits: builtinTraits(tool.def.name),
      });
    }
  });

  it('the table holds no name murmur does not make', async () => {
    const made = [...registryTools(), ...hostExtras(), ...(await disclosureTools())];
    // final_answer is made by the engine for a typed output (orchestrator/final-answer.ts): see below.
    expect(Object.keys(BUILTIN_TRAITS).sort()).toEqual([...made.map((t) => t.def.name), 'final_answer'].sort());
  });

  it('final_answer’s entry is the traits the engine’s tool declares', () => {
    const tool = finalAnswerTool({ schema: { type: 'object', properties: {} } });
    expect(tool.def.name).toBe('final_answer');
    expect(FINAL_ANSWER_TRAITS).toEqual({ selfChecked: true });
    // orchestrator/final-answer.ts spreads FINAL_ANSWER_TRAITS into its definition.
    expect(traitsOf(tool.def)).toEqual(FINAL_ANSWER_TRAITS);
  });

  it('builtinToolsWhere lists by the table, and builtinTraits knows nothing of other names', () => {
    expect([...builtinToolsWhere((t) => t.ruleArgument === 'command')]).toEqual(['bash']);
    expect(builtinTraits('deploy')).toBeUndefined();
    expect(builtinTraits('toString')).toBeUndefined();
    expect(builtinTraits('mcp_invoke')).toEqual({});
  });
});

describe('a host’s tool claiming built-in traits', () => {
  const hostTool = (name: string, traits: ToolTraits): RuntimeTool =>
    defineRuntimeTool({
      def: { ...traits, name, description: name, parameters: Type.Object({ path: Type.Optional(Type.String()) }) },
      execute: () => ({ content: [] }),
      source: 'configured',
    });
  const rules = { allow: [], ask: [], deny: [], session: [] };
  const decision = (tool: RuntimeTool, mode: 'manual' | 'auto' = 'manual') =>
    decide(describeSubject(tool.def.name, tool, { path: 'src/a.ts' }, '/ws'), {
      mode,
      swarmMode: false,
      rules,
      insideWorkspace: true,
    });

  it('gains nothing from them: only its readOnly mark counts', () => {
    const claims: ToolTraits = {
      selfChecked: true,
      writesPath: true,
      ruleArgument: 'path',
      startsAgents: true,
      controlsTasks: true,
    };
    expect(decision(hostTool('deploy', claims))).toMatchObject({ kind: 'ask' });
    expect(decision(hostTool('deploy', claims), 'auto')).toMatchObject({ kind: 'ask' });
    expect(decision(hostTool('deploy', { readOnly: true }))).toMatchObject({
      kind: 'allow',
      why: 'deploy is marked read-only by the host',
    });
    // Named like a built-in tool murmur makes per turn (not a reserved name): the built-in tables still do not count.
    expect(decision(hostTool('tool_search', {}))).toMatchObject({ kind: 'ask' });
    expect(decision(hostTool('tool_search', { selfChecked: true }))).toMatchObject({ kind: 'ask' });
    expect(decision(hostTool('tool_search', { readOnly: true }))).toMatchObject({
      kind: 'allow',
      why: 'tool_search is marked read-only by the host',
    });
    // A rule's parentheses stay for built-in tools.
    expect(parseRule('deploy(src/**)', 'allow', 'test')).toMatchObject({
      message: 'deploy takes no argument pattern; write "deploy" alone',
    });
  });
});
