// The per-turn catalog: the local registry, the four sources, each filter of the pipeline in its order, and the
// catalog each built-in role actually gets from the engine (seen from the model's side of a scripted run).
import { Type } from '@sinclair/typebox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelProvider, ModelRequest } from '../../orchestrator/models/provider.js';
import { ScriptedModel, type Script } from '../../orchestrator/models/scripted.js';
import { Engine } from '../../orchestrator/engine.js';
import { BUILTIN_ROLES } from '../../roles/builtin.js';
import {
  applyFilters,
  FILTER_PIPELINE,
  filterDelegation,
  filterDesktop,
  filterExcluded,
  filterMcpServers,
  filterModelCapability,
  filterProfileCaps,
  filterRoleCaps,
  filterSelector,
  filterToolAccess,
  type TurnFacts,
} from '../../roles/filters.js';
import { filterRefusal } from '../../orchestrator/shell-bridge.js';
import { builtinProfile, type AgentProfile } from '../../roles/profile.js';
import type { SubagentAdapter, SwarmAdapter } from '../../tools/adapters.js';
import type { UserChannel } from '../../tools/adapters-interaction.js';
import { agentSwarmTool, createAgentSwarmTool } from '../../tools/agents/agent-swarm.js';
import { collectCandidates, type CatalogSources } from '../../tools/catalog.js';
import { defineRuntimeTool, type RuntimeTool, type ToolSource } from '../../tools/contract.js';
import { createMemoryTodoStore } from '../../tools/interact/todo-store.js';
import { greetSkillCatalog } from '../fakes/skills.js';
import { buildToolRegistry } from '../../tools/registry.js';
import { removeDir, tempDir } from '../engine/helpers.js';

function fakeTool(name: string, source: ToolSource = 'builtin'): RuntimeTool {
  return defineRuntimeTool({
    def: { name, description: name, parameters: Type.Object({}) },
    execute: () => ({ content: [{ type: 'text', text: name }] }),
    source,
  });
}

const names = (tools: readonly RuntimeTool[]) => tools.map((t) => t.def.name);

function facts(extra: Partial<TurnFacts> = {}): TurnFacts {
  return {
    profile: builtinProfile('main'),
    model: { images: true, video: true },
    excluded: new Set(),
    isSubtask: false,
    interface: 'cli',
    features: { delegation: true, webSearch: true },
    desktopAvailable: false,
    ...extra,
  };
}

function custom(extra: Partial<AgentProfile> = {}): AgentProfile {
  return { name: 'custom', description: '', role: 'custom', prompt: '', builtin: false, ...extra };
}

const filterContext = (f: TurnFacts) => ({ facts: f, warnings: [] as string[] });

// Ports that are never called here: the registry only makes tools with them.
const tasks = {
  viewFor: () => {
    throw new Error('no task is run here');
  },
};
const user: UserChannel = {
  availability: () => ({ canAsk: false, reason: 'a test' }),
  ask: () => Promise.reject(new Error('a test')),
};
const subagents: SubagentAdapter = {
  allowedTypes: () => [],
  run: () => Promise.resolve({ ok: false, error: 'a test' }),
};
const swarm: SwarmAdapter = { run: () => Promise.resolve({ ok: false, error: 'a test' }) };
const skills = greetSkillCatalog();
const search = { name: 'fake', search: () => Promise.resolve([]) };

describe('the local registry', () => {
  it('always has the workspace tools and the task tools; the rest exactly with their ports', () => {
    expect(names(buildToolRegistry({ tasks }).shared)).toEqual([
      'read',
      'write',
      'edit',
      'grep',
      'glob',
      'read_media_file',
      'bash',
      'task_list',
      'task_output',
      'task_stop',
    ]);
    const all = buildToolRegistry({
      tasks,
      timers: { set: () => ({ timerId: 't', dueAt: 0 }) },
      todos: createMemoryTodoStore(),
      user,
      skills,
      web: {},
      search,
      swarmTool: createAgentSwarmTool,
    });
    const order = [
      'read',
      'write',
      'edit',
      'grep',
      'glob',
      'read_media_file',
      'bash',
      'todo_list',
      'skill',
      'ask_user_question',
      'fetch_url',
      'web_search',
      'agent',
      'agent_swarm',
      'task_list',
      'task_output',
      'task_stop',
      'set_timer',
    ];
    // agent and agent_swarm are made per agent, from that agent's own ports, in their places.
    expect(names(all.forAgent({ subagents, swarm }))).toEqual(order);
    expect(names(all.forAgent({}))).toEqual(order.filter((n) => n !== 'agent' && n !== 'agent_swarm'));
    expect(all.forAgent({})).toBe(all.shared);
    expect(names(all.forAgent({ subagents }))).toEqual(order.filter((n) => n !== 'agent_swarm'));
  });

  it('throws when two tools share a name', () => {
    expect(() => buildToolRegistry({ tasks, extra: [fakeTool('read', 'configured')] })).toThrow(
      'two local tools are named "read" (sources builtin and configured)',
    );
    expect(() => buildToolRegistry({ tasks, extra: [fakeTool('agent', 'configured')] })).toThrow(
      'two local tools are named "agent" (sources builtin and configured)',
    );
  });
});

describe('the sources of a turn', () => {
  const local = [fakeTool('read'), fakeTool('agent'), fakeTool('agent_swarm')];
  const sources: CatalogSources = {
    local,
    mcp: () => [fakeTool('mcp__gh__issue', 'configured')],
    perThread: [fakeTool('goal_update')],
    extensions: [{ name: 'plan', append: (tools) => [fakeTool(`plan_after_${tools.length}`)] }],
  };
  const open = { toolsEnabled: true, delegation: { hostAllows: true, ceilingAllows: true } };

  it('lists local, MCP and per-thread tools, then what extensions append after seeing that list', () => {
    expect(names(collectCandidates(sources, open) as RuntimeTool[])).toEqual([
      'read',
      'agent',
      'agent_swarm',
      'mcp__gh__issue',
      'goal_update',
      'plan_after_5',
    ]);
  });

  it('lists MCP asynchronously when the server has to be asked', async () => {
    const result = collectCandidates({ ...sources, mcp: async () => [fakeTool('mcp__slow__x', 'configured')] }, open);
    expect(result).toBeInstanceOf(Promise);
    expect(names(await result)).toEqual([
      'read',
      'agent',
      'agent_swarm',
      'mcp__slow__x',
      'goal_update',
      'plan_after_5',
    ]);
  });

  it('is empty when tools are disabled for the agent', () => {
    expect(collectCandidates(sources, { ...open, toolsEnabled: false })).toEqual([]);
  });

  it('offers agent and agent_swarm only when the host allows delegation and the ceiling does too', () => {
    for (const [hostAllows, ceilingAllows, expected] of [
      [true, true, true],
      [false, true, false],
      [true, false, false],
    ] as const) {
      const listed = names(
        collectCandidates(sources, { toolsEnabled: true, delegation: { hostAllows, ceilingAllows } }) as RuntimeTool[],
      );
      expect(listed.includes('agent') && listed.includes('agent_swarm')).toBe(expected);
      expect(listed.includes('agent') || listed.includes('agent_swarm')).toBe(expected);
    }
  });

  it('never hands goal/thread tools to a subtask', () => {
    expect(names(collectCandidates(sources, { ...open, subtask: true }) as RuntimeTool[])).not.toContain('goal_update');
  });
});

describe('the filters, in order', () => {
  it('run in the documented order', () => {
    expect(FILTER_PIPELINE.map((f) => f.name)).toEqual([
      'excluded',
      'model capability',
      'desktop',
      'selector',
      'mcp servers',
      'delegation',
      'profile caps',
      'role caps',
      'tool access',
    ]);
  });

  it("9. keeps only what the run's toolAccess allows, never what it denies; the shell bridge names it", () => {
    const tools = [fakeTool('read'), fakeTool('bash'), fakeTool('mcp__gh__search', 'configured')];
    const access = (a: TurnFacts['access']) => names(filterToolAccess(tools, filterContext(facts({ access: a }))));
    expect(access({ allow: ['read', 'mcp__gh__*'] })).toEqual(['read', 'mcp__gh__search']);
    expect(access({ allow: ['read', 'bash'], deny: [' Bash '] })).toEqual(['read']);
    expect(access(undefined)).toEqual(['read', 'bash', 'mcp__gh__search']);
    expect(filterRefusal(fakeTool('bash'), facts({ access: { deny: ['bash'] } }))).toBe(
      "bash is not available to the main agent: the run's toolAccess leaves it out.",
    );
  });

  it('1. drops the names excluded for this turn (compared normalised)', () => {
    const tools = [fakeTool('read'), fakeTool('bash')];
    expect(names(filterExcluded(tools, filterContext(facts({ excluded: new Set([' BASH ']) }))))).toEqual(['read']);
  });

  it('2. gives native-media models no *_understand helper, and the others no read_media_file', () => {
    const tools = [
      fakeTool('images_understand'),
      fakeTool('videos_understand'),
      fakeTool('read_media_file'),
      fakeTool('read'),
    ];
    expect(names(filterModelCapability(tools, filterContext(facts({ model: { images: true, video: true } }))))).toEqual(
      ['read_media_file', 'read'],
    );
    expect(
      names(filterModelCapability(tools, filterContext(facts({ model: { images: true, video: false } })))),
    ).toEqual(['videos_understand', 'read_media_file', 'read']);
    expect(
      names(filterModelCapability(tools, filterContext(facts({ model: { images: false, video: false } })))),
    ).toEqual(['images_understand', 'videos_understand', 'read']);
  });

  it('3. drops desktop tools without a desktop runtime', () => {
    const tools = [fakeTool('desktop_click'), fakeTool('read')];
    expect(names(filterDesktop(tools, filterContext(facts())))).toEqual(['read']);
    expect(names(filterDesktop(tools, filterContext(facts({ desktopAvailable: true }))))).toEqual([
      'desktop_click',
      'read',
    ]);
  });

  it('4. applies the selector after trim, NFKC and lower-casing, warning about unknown names without dropping the list', () => {
    const tools = [
      'read',
      'grep',
      'bash',
      'fetch_url',
      'mcp__github__issue',
      'mcp__github__pr',
      'mcp__jira__ticket',
    ].map((n) => fakeTool(n));
    const context = filterContext(
      facts({
        profile: custom({
          tools: [' READ ', 'ｇｒｅｐ', 'Bash', 'WebFetch', 'mcp__github__*', 'telepathy'],
          disallowedTools: ['bash', 'Teleport'],
        }),
      }),
    );
    expect(names(filterSelector(tools, context))).toEqual([
      'read',
      'grep',
      'fetch_url',
      'mcp__github__issue',
      'mcp__github__pr',
    ]);
    expect(context.warnings).toEqual([
      'disallowedTools names "Teleport", which is not an available tool; it is ignored',
      'tools names "Bash", which is not an available tool; it is ignored',
      'tools names "telepathy", which is not an available tool; it is ignored',
    ]);
    // An empty tools list keeps everything; disallowedTools alone only removes.
    expect(
      names(
        filterSelector(tools, filterContext(facts({ profile: custom({ tools: [], disallowedTools: ['mcp__*'] }) }))),
      ),
    ).toEqual(['read', 'grep', 'bash', 'fetch_url']);
  });

  it('4 after 1-3: a selector naming a tool an earlier filter removed gets the warning', () => {
    const tools = [fakeTool('read'), fakeTool('read_media_file')];
    const result = applyFilters(
      tools,
      facts({ profile: custom({ tools: ['read', 'read_media_file'] }), model: { images: false, video: false } }),
    );
    expect(names(result.tools)).toEqual(['read']);
    expect(result.warnings).toEqual(['tools names "read_media_file", which is not an available tool; it is ignored']);
  });

  it('5. keeps only the MCP servers an agent allows (local tools untouched)', () => {
    const tools = [
      fakeTool('read'),
      fakeTool('mcp__github__issue', 'configured'),
      fakeTool('mcp__jira__ticket', 'configured'),
      fakeTool('search_docs', 'configured'),
    ];
    const origin = (tool: RuntimeTool) =>
      tool.def.name === 'search_docs' ? { server: 'docs', tool: 'search' } : undefined;
    expect(
      names(
        filterMcpServers(
          tools,
          filterContext(facts({ profile: custom({ mcpServers: [' GitHub '] }), mcpOrigin: origin })),
        ),
      ),
    ).toEqual(['read', 'mcp__github__issue']);
    expect(
      names(
        filterMcpServers(tools, filterContext(facts({ profile: custom({ mcpServers: ['docs'] }), mcpOrigin: origin }))),
      ),
    ).toEqual(['read', 'search_docs']);
    expect(filterMcpServers(tools, filterContext(facts({ profile: custom() })))).toHaveLength(4);
  });

  it('6. leaves delegation to an authoritative main profile or a defined agent that lists subagents', () => {
    const tools = [
      fakeTool('read'),
      fakeTool('agent'),
      fakeTool('agent_swarm'),
      fakeTool('task_list'),
      fakeTool('mcp__ext__task_stop', 'configured'),
      fakeTool('mcp__own__task_list', 'builtin'),
    ];
    const kept = (f: TurnFacts) => names(filterDelegation(tools, filterContext(f)));
    const all = names(tools);
    const without = ['read', 'task_list', 'mcp__own__task_list'];
    expect(kept(facts({ interface: 'cli' }))).toEqual(all);
    expect(kept(facts({ interface: 'interactive' }))).toEqual(all);
    expect(kept(facts({ interface: 'mcp' }))).toEqual(without);
    expect(kept(facts({ interface: 'headless' }))).toEqual(without);
    expect(kept(facts({ profile: { ...builtinProfile('main'), builtin: false } }))).toEqual(without);
    expect(kept(facts({ profile: custom({ subagents: ['explore'] }) }))).toEqual(all);
    expect(kept(facts({ profile: custom() }))).toEqual(without);
    expect(kept(facts({ profile: builtinProfile('worker') }))).toEqual(without);
  });

  it('7. keeps subtasks from asking the user, keeping todos or (built in) delegating; feature switches apply', () => {
    const tools = [
      'read',
      'agent',
      'agent_swarm',
      'todo_list',
      'ask_user_question',
      'web_search',
      'mcp__search__web_search',
    ].map((n) => fakeTool(n));
    const kept = (f: TurnFacts) => names(filterProfileCaps(tools, filterContext(f)));
    expect(kept(facts())).toEqual(names(tools));
    expect(kept(facts({ isSubtask: true }))).toEqual(['read', 'web_search', 'mcp__search__web_search']);
    // A defined agent that opted in with subagents: may delegate below (the depth limit bounds it).
    expect(kept(facts({ isSubtask: true, profile: custom({ subagents: ['worker'] }) }))).toEqual([
      'read',
      'agent',
      'agent_swarm',
      'web_search',
      'mcp__search__web_search',
    ]);
    expect(kept(facts({ features: { delegation: false, webSearch: true } }))).toEqual([
      'read',
      'todo_list',
      'ask_user_question',
      'web_search',
      'mcp__search__web_search',
    ]);
    expect(kept(facts({ features: { delegation: true, webSearch: false } }))).toEqual([
      'read',
      'agent',
      'agent_swarm',
      'todo_list',
      'ask_user_question',
    ]);
  });

  it('8. caps built-in roles (defined agents and main pass)', () => {
    const tools = ['read', 'write', 'bash', 'agent'].map((n) => fakeTool(n));
    expect(names(filterRoleCaps(tools, filterContext(facts({ profile: builtinProfile('explore') }))))).toEqual([
      'read',
    ]);
    expect(names(filterRoleCaps(tools, filterContext(facts({ profile: builtinProfile('verifier') }))))).toEqual([
      'read',
      'bash',
    ]);
    expect(names(filterRoleCaps(tools, filterContext(facts({ profile: builtinProfile('worker') }))))).toEqual([
      'read',
      'write',
      'bash',
    ]);
    expect(names(filterRoleCaps(tools, filterContext(facts({ profile: builtinProfile('main') }))))).toEqual(
      names(tools),
    );
    expect(names(filterRoleCaps(tools, filterContext(facts({ profile: custom() }))))).toEqual(names(tools));
  });
});

describe('the catalog each built-in role gets', () => {
  let cwd: string;
  beforeEach(async () => {
    cwd = await tempDir('murmur-roles-');
  });
  afterEach(async () => {
    await removeDir(cwd);
  });

  it('main, explore, worker (and its alias coder) and verifier, MCP tools included', async () => {
    const script: Script = {
      capabilities: { images: true },
      agents: [
        {
          match: { role: 'main' },
          turns: [
            {
              toolCalls: ['explore', 'worker', 'coder', 'verifier'].map((type) => ({
                name: 'agent',
                arguments: { prompt: `Be ${type}`, description: `a ${type}`, subagent_type: type },
              })),
            },
            { text: 'done' },
          ],
        },
        { match: { prompt: 'Be (\\w+)' }, turns: [{ text: 'VERDICT: pass\nseen' }] },
      ],
    };
    const scripted = new ScriptedModel(script);
    const offered = new Map<string, { role: string; tools: string[]; system: string }>();
    const provider: ModelProvider = {
      name: 'recording',
      capabilities: scripted.capabilities,
      complete(request: ModelRequest, signal: AbortSignal) {
        offered.set(request.agent.id, {
          role: request.agent.role,
          tools: request.tools.map((t) => t.name),
          system: request.system,
        });
        return scripted.complete(request, signal);
      },
    };
    const mcp = [
      fakeTool('mcp__github__create_issue', 'configured'),
      fakeTool('mcp__websearch__web_search', 'builtin'),
      fakeTool('mcp__other__web_search', 'configured'),
      fakeTool('mcp__jobs__task_stop', 'configured'),
    ];
    const engine = new Engine({
      cwd,
      provider,
      session: false,
      env: { HOME: cwd },
      registry: { askUser: true, skills: true, fetch: true, webSearch: true },
      interaction: { user, skills, search },
      swarmTool: agentSwarmTool,
      swarmFor: () => swarm,
      mcp: { mcpTools: async () => mcp },
    });
    const outcome = await engine.runTask('show me the catalogs');
    expect(outcome.status).toBe('completed');

    const local = [
      'read',
      'write',
      'edit',
      'grep',
      'glob',
      'read_media_file',
      'bash',
      'todo_list',
      'skill',
      'ask_user_question',
      'fetch_url',
      'web_search',
    ];
    expect(offered.get('main')!.tools).toEqual([
      ...local,
      'agent',
      'agent_swarm',
      'task_list',
      'task_output',
      'task_stop',
      'set_timer',
      ...names(mcp),
    ]);
    expect(offered.get('a-1')).toMatchObject({
      role: 'explore',
      tools: ['read', 'grep', 'glob', 'read_media_file', 'fetch_url', 'web_search', 'mcp__websearch__web_search'],
    });
    const worker = [
      'read',
      'write',
      'edit',
      'grep',
      'glob',
      'read_media_file',
      'bash',
      'skill',
      'fetch_url',
      'web_search',
      'task_list',
      'task_output',
      'task_stop',
      'mcp__github__create_issue',
      'mcp__websearch__web_search',
      'mcp__other__web_search',
    ];
    expect(offered.get('a-2')).toMatchObject({ role: 'worker', tools: worker });
    expect(offered.get('a-3')).toMatchObject({ role: 'worker', tools: worker });
    expect(offered.get('a-4')).toMatchObject({
      role: 'verifier',
      tools: ['read', 'grep', 'glob', 'read_media_file', 'bash', 'mcp__websearch__web_search'],
    });

    // The prompts: main may delegate; subagents hand off in their last message; the verifier ends with a verdict.
    expect(offered.get('main')!.system).toContain('Subagent types you may start: explore, worker, coder, verifier.');
    for (const id of ['a-1', 'a-2', 'a-4'])
      expect(offered.get(id)!.system).toContain(
        'Only your last message reaches the parent, so make it the whole handoff',
      );
    expect(offered.get('a-4')!.system).toContain('`VERDICT: pass` or `VERDICT: fail`');
    expect(offered.get('a-1')!.system.startsWith(BUILTIN_ROLES.explore.prompt)).toBe(true);
  });
});
