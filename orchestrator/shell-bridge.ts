// murmur-tools on the engine's side: which agents get a lease, what each may reach from its shell, and how a
// call from the shell is decided — through the agent's own tool-call pipeline, exactly as if the agent had
// made it in its catalog (role caps, definition lists, MCP filters, permissions and approvals asked as that
// agent, the result budget), with tool.start/tool.end events marked `via: "shell"`.
import path from 'node:path';
import type { ShellBridgeAdapter } from '../tools/adapters.js';
import type { SkillCatalog } from '../tools/adapters-interaction.js';
import type { RuntimeTool } from '../tools/contract.js';
import { bridgeHandler, shellCallId, type BridgeAgent, type BridgeCatalog } from '../tools/bridge/agent-handler.js';
import type { LeaseServer } from '../tools/bridge/lease-server.js';
import { mcpServerName } from '../roles/builtin.js';
import { applyFilters, FILTER_PIPELINE, type TurnFacts } from '../roles/filters.js';
import { normalizeName } from '../roles/names.js';
import { createSkillTool } from '../tools/interact/skill.js';
import { invocableSkills, withoutSkill } from '../tools/interact/skills.js';
import type { AgentProfile } from '../roles/profile.js';
import type { EventBus, TaskEvent } from './events.js';
import type { McpToolsFor } from './runtime-ports.js';
import type { AgentRecord } from './agent-tree.js';
import { runToolCallOutcome, type AgentToolContext, type BatchHooks } from './tool-batch.js';

/** Built-in tools that make sense from a shell; MCP tools all do. */
export const SHELL_BUILTINS: ReadonlySet<string> = new Set(['web_search', 'fetch_url']);

const FILTER_REASONS: Record<string, (facts: TurnFacts) => string> = {
  excluded: () => 'it is excluded for this agent',
  'model capability': () => "the agent's model cannot take it",
  desktop: () => 'no desktop runtime is available',
  selector: (facts) =>
    `the agent definition's tools / disallowedTools lists leave it out${facts.profile.path ? ` (${facts.profile.path})` : ''}`,
  'mcp servers': (facts) =>
    `its MCP server is not in the agent definition's mcpServers list${facts.profile.path ? ` (${facts.profile.path})` : ''}`,
  delegation: () => 'this agent may not delegate',
  'profile caps': () => 'subagents and the feature switches leave it out',
  'role caps': (facts) => `the ${facts.profile.role} role may not use it`,
  'tool access': () => "the run's toolAccess leaves it out",
};

/** Why the filters keep a tool from this agent: the first filter that drops it, or undefined when none does. */
export function filterRefusal(tool: RuntimeTool, facts: TurnFacts): string | undefined {
  let tools = [tool];
  for (const step of FILTER_PIPELINE) {
    tools = step.filter(tools, { facts, warnings: [] });
    if (tools.length === 0)
      return `${tool.def.name} is not available to the ${facts.profile.name} agent: ${FILTER_REASONS[step.name]?.(facts) ?? step.name}.`;
  }
  return undefined;
}

// The lease server (a socket in a private folder) is loaded and started with the first bash an agent runs.
const leases = () => import('../tools/bridge/lease-server.js');

/** The process's lease server, shared by its engines. */
export const processLeaseServer = {
  acquire: () => leases().then((m) => m.acquireLeaseServer()),
  release: () => leases().then((m) => m.releaseLeaseServer()),
};

export interface ShellBridgeDeps {
  bus: EventBus;
  /** The agent's local tools (its shell may reach the SHELL_BUILTINS among them). */
  local: readonly RuntimeTool[];
  /** The MCP tools of the servers the agent may use (only those are started). */
  mcpTools?: McpToolsFor | undefined;
}

/**
 * The engine's murmur-tools: a lease per agent (a token and an endpoint of its own) on the process's lease server,
 * revoked as agents end and when the engine closes.
 */
export class EngineShellBridge {
  private readonly owners = new Map<string, object>();
  private readonly offs: Array<() => void>;
  private server: Promise<LeaseServer> | undefined;
  private failed = false;

  constructor(
    private readonly bus: EventBus,
    /** The process's lease server: taken on the first lease, given back on close. */
    private readonly leaseServer: { acquire(): Promise<LeaseServer>; release(): Promise<void> },
    /** Whether an agent still has background work running (its lease then outlives its answer), and whether it runs. */
    private readonly agents: { hasTasks(agentId: string): boolean; isRunning(agentId: string): boolean },
  ) {
    this.offs = [
      bus.on('agent.end', (event) => {
        // Stopped, timed out or failed: revoke now. Completed with background commands still running: when they end.
        if (event.status !== 'completed' || !this.agents.hasTasks(event.agentId)) this.revoke(event.agentId);
      }),
      bus.on('task.end', (event) => {
        // (TaskEvent covers task.start and task.end in one type, which EventOf cannot narrow.)
        const id = (event as unknown as TaskEvent).agentId;
        if (!this.agents.hasTasks(id) && !this.agents.isRunning(id)) this.revoke(id);
      }),
    ];
  }

  adapterFor(record: AgentRecord, agent: BridgeAgent): ShellBridgeAdapter {
    const handler = bridgeHandler(agent);
    return {
      lease: async () => {
        this.server ??= this.leaseServer.acquire();
        let server: LeaseServer;
        try {
          server = await this.server;
        } catch (error) {
          // The command still runs, without murmur-tools; said once.
          if (!this.failed)
            this.bus.emit({
              type: 'log',
              level: 'warn',
              agentId: record.id,
              message: `murmur-tools is not available: ${(error as Error).message}`,
            });
          this.failed = true;
          return undefined;
        }
        let owner = this.owners.get(record.id);
        if (!owner) {
          owner = {};
          this.owners.set(record.id, owner);
        }
        try {
          return await server.lease(owner, handler);
        } catch (error) {
          // Its endpoint could not listen (no file handle left): this command runs without murmur-tools.
          this.bus.emit({
            type: 'log',
            level: 'warn',
            agentId: record.id,
            message: `murmur-tools is not available to this command: ${(error as Error).message}`,
          });
          return undefined;
        }
      },
    };
  }

  revoke(agentId: string): void {
    const owner = this.owners.get(agentId);
    if (!owner) return;
    this.owners.delete(agentId);
    void this.server?.then((server) => server.revoke(owner));
  }

  /** Revokes every lease of this engine (the process's server stays for other engines). */
  async close(): Promise<void> {
    for (const off of this.offs) off();
    if (!this.server) return;
    const starting = this.server;
    this.server = undefined;
    // The server never started (already said on the first lease): nothing is held, nothing to release.
    const server = await starting.catch(() => undefined);
    if (!server) return;
    for (const owner of this.owners.values()) server.revoke(owner);
    this.owners.clear();
    await this.leaseServer.release();
  }
}

export interface AgentBridgeInput {
  record: AgentRecord;
  facts: TurnFacts;
  context: AgentToolContext;
  hooks: BatchHooks;
  deps: ShellBridgeDeps;
  /** Where media results go when there is no session folder. */
  fallbackOutputsDir: string;
}

/** The candidates a shell may reach: the shell-sensible built-ins and the MCP tools, before the agent's filters. */
async function shellCandidates(input: AgentBridgeInput): Promise<RuntimeTool[]> {
  const local = input.deps.local.filter((tool) => SHELL_BUILTINS.has(tool.def.name));
  const mcp = input.deps.mcpTools ? await input.deps.mcpTools(input.record) : [];
  return [...local, ...mcp];
}

export function agentBridge(input: AgentBridgeInput): BridgeAgent {
  const { record, facts, context, hooks, deps } = input;
  const observer = {
    start: (call: { id: string; name: string; arguments: string }) => {
      if (deps.bus.wants('tool.start'))
        deps.bus.emit({
          type: 'tool.start',
          agentId: record.id,
          tool: call.name,
          callId: call.id,
          args: call.arguments.slice(0, 200),
          via: 'shell',
        });
    },
    end: (
      call: { id: string; name: string },
      result: { isError?: boolean; content: { type: string; text?: string }[] },
      durationMs: number,
    ) => {
      if (!deps.bus.wants('tool.end')) return;
      const first = result.content[0];
      const error = result.isError && first?.type === 'text' ? { error: (first.text ?? '').slice(0, 200) } : {};
      deps.bus.emit({
        type: 'tool.end',
        agentId: record.id,
        tool: call.name,
        callId: call.id,
        isError: result.isError === true,
        durationMs,
        via: 'shell',
        ...error,
      });
    },
  };
  return {
    agentId: record.id,
    outputsDir: context.session?.toolOutputsDir ?? input.fallbackOutputsDir,
    async catalog(): Promise<BridgeCatalog> {
      const candidates = await shellCandidates(input);
      const offered = applyFilters(candidates, facts).tools;
      const offeredNames = new Set(offered.map((t) => t.def.name));
      return {
        offered,
        refusal: (name) => {
          if (offeredNames.has(name)) return undefined;
          const tool = candidates.find((t) => t.def.name === name);
          if (tool) return filterRefusal(tool, facts);
          // Servers outside the agent's allow list are never started for it, so such a name is refused unlisted.
          const server = mcpServerName(name);
          const allow = facts.profile.mcpServers;
          if (server === undefined || !allow || allow.some((s) => normalizeName(s) === normalizeName(server)))
            return undefined;
          return `${name} is not available to the ${facts.profile.name} agent: ${FILTER_REASONS['mcp servers']!(facts)}.`;
        },
      };
    },
    async call(tool, rawArguments, signal) {
      const call = { id: shellCallId(), name: tool.def.name, arguments: rawArguments };
      // The same gate and after-call stages as the agent's catalog calls; batch vetoes concern a model message only.
      const { vetoBatch: _batchOnly, ...pipeline } = hooks;
      const { message, refused } = await runToolCallOutcome(call, {
        tools: new Map([[tool.def.name, tool]]),
        context,
        signal,
        hooks: pipeline,
        observer,
      });
      const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
      if (refused === 'invalid') return { kind: 'invalid', message: text };
      if (refused === 'denied') return { kind: 'denied', message: text };
      const result = {
        content: message.content,
        isError: message.isError,
        ...(message.details !== undefined ? { details: message.details } : {}),
      };
      return { kind: 'ran', result, callId: call.id };
    },
  };
}

/** The name of the built-in skill that teaches murmur-tools. */
export const BRIDGE_SKILL = 'murmur-tools';

/** Whether the agent could reach anything through its shell: an MCP tool its filters let through, or web_search. */
export function mayReachFromShell(facts: TurnFacts, mcpConfigured: boolean, localTools: ReadonlySet<string>): boolean {
  if (localTools.has('web_search')) return true;
  if (!mcpConfigured) return false;
  const allow = facts.profile.mcpServers;
  if (allow && allow.length === 0) return false;
  // A stand-in MCP tool of a server the agent may use: the filters decide for it as for the real ones.
  const probe: RuntimeTool = {
    def: { name: `mcp__${allow?.[0] ?? 'any'}__probe`, description: '', parameters: {} as never },
    impl: () => ({ content: [] }),
    source: 'configured',
  };
  return applyFilters([probe], { ...facts, mcpOrigin: () => undefined }).tools.length > 0;
}

/** The run's bridge when this agent's bash gets a lease: the bridge is on, the agent holds bash and has not opted out. */
export function bridgeForAgent(
  bridge: EngineShellBridge | undefined,
  profile: AgentProfile,
  held: ReadonlySet<string>,
): EngineShellBridge | undefined {
  return bridge && profile.shellBridge !== false && held.has('bash') ? bridge : undefined;
}

/** The skill tool an agent holds: the registry's, one over a narrower catalog, or none at all. */
export type SkillToolChoice = { kind: 'shared' } | { kind: 'own'; tool: RuntimeTool } | { kind: 'none' };

/** What an agent sees of the skills: the catalog its prompt lists, and its skill tool. */
export interface AgentSkills {
  catalog: SkillCatalog;
  tool: SkillToolChoice;
}

/**
 * The host's skills as agents may see them, made once per run: all of them, and — when the built-in murmur-tools
 * skill is among them — the same without it, with its own skill tool (none when no other skill is left to invoke).
 */
export interface SkillViews {
  all: AgentSkills;
  withoutBridgeSkill?: AgentSkills;
}

export function skillViewsOf(skills: SkillCatalog): SkillViews {
  const all: AgentSkills = { catalog: skills, tool: { kind: 'shared' } };
  if (skills.get(BRIDGE_SKILL)?.scope !== 'builtin') return { all };
  const catalog = withoutSkill(skills, BRIDGE_SKILL);
  const tool: SkillToolChoice =
    invocableSkills(catalog).length > 0 ? { kind: 'own', tool: createSkillTool(catalog) } : { kind: 'none' };
  return { all, withoutBridgeSkill: { catalog, tool } };
}

/**
 * What one agent sees of the skills: murmur-tools only where its shell has something to reach through it (a
 * lease, and an MCP tool or web_search its filters let through). Pure; one of the run's views, never a new one.
 */
export function skillsForAgent(
  views: SkillViews,
  facts: TurnFacts,
  reach: { bridge: boolean; mcpConfigured: boolean; held: ReadonlySet<string> },
): AgentSkills {
  const narrow = views.withoutBridgeSkill;
  if (!narrow || (reach.bridge && mayReachFromShell(facts, reach.mcpConfigured, reach.held))) return views.all;
  return narrow;
}

/**
 * The agent's murmur-tools lease for its bash. Its adapter is built on the first lease: most agents never run bash,
 * and a swarm keeps thousands of finished agents' records, so until then it costs one object and one closure per
 * agent. Calls from the shell run in `input.context` through `input.hooks`: the agent's own context and pipeline.
 */
export interface AgentLeaseInput {
  record: AgentRecord;
  facts: TurnFacts;
  context: AgentToolContext;
  hooks: BatchHooks;
  deps: ShellBridgeDeps;
  /** The agent's workspace root. */
  root: string;
}

export function shellLeaseFor(bridge: EngineShellBridge, input: AgentLeaseInput): ShellBridgeAdapter {
  let adapter: ShellBridgeAdapter | undefined;
  return {
    lease: () => {
      if (!adapter) {
        // Without a session (benchmarks, embedders) media results still land under the workspace's state folder.
        const fallbackOutputsDir = path.join(input.root, '.murmur', 'tool-outputs');
        const { record, facts, context, hooks, deps } = input;
        adapter = bridge.adapterFor(record, agentBridge({ record, facts, context, hooks, deps, fallbackOutputsDir }));
      }
      return adapter.lease();
    },
  };
}
