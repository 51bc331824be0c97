// The catalog builder alone: turn facts, the delegation switch, the local tools through the filters, and
// toolsForTurn — fixed without MCP, listed per turn with it, the agent's skill-tool choice applied after the
// filters, each warning said once, deferred disclosure last. Also which skills an agent sees (shell-bridge.ts).
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import {
  catalogFor,
  filterLocal,
  mayDelegate,
  sourceOptionsFor,
  turnFactsFor,
  type CatalogInput,
} from '../../orchestrator/agent-catalog.js';
import { EventBus, type MurmurEvent } from '../../orchestrator/events.js';
import type { ModelCapabilities } from '../../orchestrator/models/provider.js';
import type { AgentRecord } from '../../orchestrator/agent-tree.js';
import { BRIDGE_SKILL, skillsForAgent, skillViewsOf } from '../../orchestrator/shell-bridge.js';
import { builtinProfile, type AgentProfile } from '../../roles/profile.js';
import type { SkillInfo } from '../../tools/adapters-interaction.js';
import { defineRuntimeTool, type RuntimeTool } from '../../tools/contract.js';
import { createSkillCatalog } from '../../tools/interact/skills.js';

const fake = (name: string): RuntimeTool =>
  defineRuntimeTool({
    def: { name, description: name, parameters: Type.Object({}) },
    execute: () => ({ content: [] }),
  });
const names = (tools: Iterable<RuntimeTool>) => [...tools].map((t) => t.def.name);
const capabilities: ModelCapabilities = { images: false, video: false, contextWindow: 100_000 };
const factsInputs = { capabilities, frontEnd: 'cli' as const, features: { delegation: true, webSearch: true } };
const recordOf = (profile: AgentProfile, depth = 0) =>
  ({ id: depth === 0 ? 'main' : 'a-1', profile, depth }) as AgentRecord;
const skill = (name: string, scope: SkillInfo['scope'] = 'project'): SkillInfo => ({
  name,
  description: name,
  path: `/s/${name}/SKILL.md`,
  dir: `/s/${name}`,
  scope,
  inline: true,
  disableModelInvocation: false,
  body: name,
});

function input(
  record: AgentRecord,
  local: RuntimeTool[],
  extra: Partial<CatalogInput> = {},
): CatalogInput & { events: MurmurEvent[] } {
  const bus = new EventBus();
  const events: MurmurEvent[] = [];
  bus.on('*', (e) => events.push(e));
  const facts = turnFactsFor(record, factsInputs);
  const options = sourceOptionsFor(record, true, 2);
  return {
    record,
    facts,
    bus,
    local,
    filtered: filterLocal(local, options, facts),
    options,
    skillTool: { kind: 'shared' },
    events,
    ...extra,
  };
}

describe('turn facts and sources', () => {
  it('freezes what the filters read of the agent and the run', () => {
    const facts = turnFactsFor(recordOf(builtinProfile('worker'), 1), factsInputs);
    expect(facts).toMatchObject({
      isSubtask: true,
      interface: 'cli',
      model: { images: false, video: false },
      desktopAvailable: false,
    });
    expect(facts.excluded.size).toBe(0);
  });

  it('allows delegation only with the host’s permission and room below the depth ceiling', () => {
    expect(mayDelegate(sourceOptionsFor({ profile: builtinProfile('main'), depth: 0 }, true, 2))).toBe(true);
    expect(mayDelegate(sourceOptionsFor({ profile: builtinProfile('worker'), depth: 2 }, true, 2))).toBe(false);
    expect(mayDelegate(sourceOptionsFor({ profile: builtinProfile('main'), depth: 0 }, false, 2))).toBe(false);
  });

  it('filters the local tools by the role’s cap', () => {
    const record = recordOf(builtinProfile('explore'), 1);
    const facts = turnFactsFor(record, factsInputs);
    expect(
      names(filterLocal([fake('read'), fake('write'), fake('grep')], sourceOptionsFor(record, true, 2), facts).tools),
    ).toEqual(['read', 'grep']);
  });
});

describe('catalogFor', () => {
  it('without MCP: one catalog for every turn, its warnings said once', async () => {
    const profile: AgentProfile = {
      ...builtinProfile('main'),
      builtin: false,
      role: 'custom',
      name: 'lister',
      tools: ['read', 'nosuch'],
      path: '/a/lister.md',
    };
    const given = input(recordOf(profile), [fake('read'), fake('write')]);
    const toolsForTurn = catalogFor(given);
    const first = toolsForTurn();
    expect(first).toBe(toolsForTurn());
    expect(names((first as { tools: ReadonlyMap<string, RuntimeTool> }).tools.values())).toEqual(['read']);
    const warnings = given.events.filter((e) => e.type === 'log');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      level: 'warn',
      agentId: 'main',
      message: expect.stringContaining('lister (/a/lister.md): tools names "nosuch"'),
    });
  });

  it('applies the agent’s skill-tool choice after the filters', async () => {
    const own = fake('skill');
    const local = [fake('read'), fake('skill')];
    const record = recordOf(builtinProfile('main'));
    const shared = catalogFor(input(record, local))() as { tools: ReadonlyMap<string, RuntimeTool> };
    expect(shared.tools.get('skill')).toBe(local[1]);
    const replaced = catalogFor(input(record, local, { skillTool: { kind: 'own', tool: own } }))() as {
      tools: ReadonlyMap<string, RuntimeTool>;
    };
    expect(replaced.tools.get('skill')).toBe(own);
    const none = catalogFor(input(record, local, { skillTool: { kind: 'none' } }))() as {
      tools: ReadonlyMap<string, RuntimeTool>;
    };
    expect(names(none.tools.values())).toEqual(['read']);
  });

  it('with MCP: lists the agent’s servers every turn, then discloses', async () => {
    let listed = 0;
    const record = recordOf(builtinProfile('main'));
    const toolsForTurn = catalogFor(
      input(record, [fake('read')], {
        mcpTools: async (r) => (listed++, [fake(`mcp__${r.id}__t${listed}`)]),
        disclose: (tools) => ({ tools: tools.slice(0, 1), instruction: `${tools.length - 1} more behind tool_search` }),
      }),
    );
    const first = await toolsForTurn();
    const second = await toolsForTurn();
    expect(listed).toBe(2);
    expect(names(first.tools.values())).toEqual(['read']);
    expect(first.instruction).toBe('1 more behind tool_search');
    expect(second).not.toBe(first);
  });
});

describe('the skills an agent sees', () => {
  const catalog = createSkillCatalog([skill('greet'), skill(BRIDGE_SKILL, 'builtin')]);
  const facts = turnFactsFor(recordOf(builtinProfile('worker'), 1), factsInputs);

  it('keeps murmur-tools only where the shell can reach something through it', () => {
    const views = skillViewsOf(catalog);
    const reachable = skillsForAgent(views, facts, {
      bridge: true,
      mcpConfigured: false,
      held: new Set(['bash', 'web_search', 'skill']),
    });
    expect(reachable).toEqual({ catalog, tool: { kind: 'shared' } });
    expect(reachable).toBe(views.all);
    const unreachable = skillsForAgent(views, facts, {
      bridge: true,
      mcpConfigured: false,
      held: new Set(['bash', 'skill']),
    });
    expect(unreachable.catalog.get(BRIDGE_SKILL)).toBeUndefined();
    expect(unreachable.tool.kind).toBe('own');
    // Made once for the run: every such agent shares the narrower catalog and skill tool.
    expect(skillsForAgent(views, facts, { bridge: false, mcpConfigured: true, held: new Set(['skill']) })).toBe(
      unreachable,
    );
  });

  it('drops the skill tool when murmur-tools was the only skill', () => {
    const views = skillViewsOf(createSkillCatalog([skill(BRIDGE_SKILL, 'builtin')]));
    expect(
      skillsForAgent(views, facts, { bridge: false, mcpConfigured: false, held: new Set(['skill']) }).tool,
    ).toEqual({ kind: 'none' });
  });

  it('leaves a catalog without the built-in skill as it is', () => {
    const plain = createSkillCatalog([skill('greet')]);
    expect(
      skillsForAgent(skillViewsOf(plain), facts, { bridge: false, mcpConfigured: false, held: new Set() }),
    ).toEqual({ catalog: plain, tool: { kind: 'shared' } });
  });
});
