// The agent runtime: what the engine hands it (RuntimeDeps, with named ports) and the configurer that turns an
// agent record into its loop config. The configurer composes the builders in dependency order — turn facts and
// local tools (agent-catalog.ts), the skills it sees and its murmur-tools lease (shell-bridge.ts), its tool
// context (agent-context.ts), its pipeline (agent-pipeline.ts), its catalog and its prompt (agent-prompt.ts) —
// each a function of what the steps before it made; no closure reaches a value assigned after it.
import type { EnvPolicy, SessionPaths, WorkspacePolicy } from '../tools/adapters.js';
import type { SkillCatalog } from '../tools/adapters-interaction.js';
import type { AgentPorts, ToolRegistry } from '../tools/registry.js';
import type { FrontEnd, ToolAccess } from '../roles/filters.js';
import type { AgentProfile } from '../roles/profile.js';
import type { AgentLoopConfig } from './agent.js';
import { catalogFor, filterLocal, mayDelegate, sourceOptionsFor, turnFactsFor } from './agent-catalog.js';
import { buildToolContext, type ContextInputs } from './agent-context.js';
import { pipelineFor } from './agent-pipeline.js';
import { agentSystemPrompt } from './agent-prompt.js';
import type { EventBus } from './events.js';
import { outputInstruction, withFinalAnswer } from './final-answer.js';
import type { ModelCapabilities } from './models/provider.js';
import type {
  BatchVetoFor,
  Disclosure,
  McpOriginOf,
  McpToolsFor,
  PermissionGate,
  ResultBudgetFor,
  SwarmPortFor,
  ToolCallHook,
} from './runtime-ports.js';
import type { AgentConfigurer, AgentRecord, AgentTree, AgentTreeHooks } from './agent-tree.js';
import {
  bridgeForAgent,
  shellLeaseFor,
  skillsForAgent,
  skillViewsOf,
  type EngineShellBridge,
  type SkillToolChoice,
  type SkillViews,
} from './shell-bridge.js';
import { subagentAdapter } from './subagents.js';
import type { TaskRegistry } from './tasks.js';
import type { Effort, Message } from './types.js';
import { intern } from './intern.js';

export { createReadLedger } from './agent-context.js';
export { turnFactsFor } from './agent-catalog.js';
export { pipelineFor } from './agent-pipeline.js';

export interface RuntimeDeps {
  cwd: string;
  bus: EventBus;
  workspace: WorkspacePolicy;
  env: EnvPolicy;
  /** The local tools, made from the host's ports (buildToolRegistry); agent and agent_swarm are made per agent. */
  tools: ToolRegistry;
  /** MCP tools an agent may draw from (its server allow list applied), listed per turn. */
  mcpTools?: McpToolsFor;
  /** The MCP server and tool behind a tool from the MCP source. */
  mcpOrigin?: McpOriginOf;
  /** Deferred disclosure of the filtered catalog: what to offer and what to say about the rest. */
  disclose?: Disclosure;
  capabilities: ModelCapabilities;
  /** The session's folders (spilled outputs, plans); absent without a session. */
  session?: SessionPaths;
  /** The background tasks: background subagents run in them. */
  tasks: TaskRegistry;
  definitions: ReadonlyMap<string, AgentProfile>;
  frontEnd: FrontEnd;
  features: { delegation: boolean; webSearch: boolean };
  /** The host's skills: the prompt lists the ones an agent may load (the skill tool itself is in `tools`). */
  skills?: SkillCatalog;
  /** The swarm port of an agent that may delegate (agent_swarm is made with it). */
  swarmFor?: SwarmPortFor;
  /** The permission gate (before a tool runs); a result denies the call. */
  permission?: PermissionGate;
  /** The result budget of an agent (the first after-call stage). */
  resultBudget?: ResultBudgetFor;
  /** Extra vetoes (plan mode) that run before permissions. */
  extraVetoes?: BatchVetoFor;
  /** The host's hook on every tool call, before permissions (the library's onToolCall). */
  onToolCall?: ToolCallHook;
  /** The run's tool access: filters every agent's catalog (the library's toolAccess). */
  toolAccess?: ToolAccess;
  maxTurns: number;
  maxOutputTokens?: number;
  /** murmur-tools for agents' shells; absent = off. */
  shellBridge?: EngineShellBridge;
  /** The run's reasoning effort (`--effort`, `effort` in murmur.toml); an agent definition's own wins. */
  effort?: Effort;
}

/** What the configurer makes once for every agent of the run. */
interface RunShared {
  contextInputs: ContextInputs;
  skills: SkillViews | undefined;
}

const SHARED_SKILL_TOOL: SkillToolChoice = { kind: 'shared' };
const NO_AGENT_PORTS: AgentPorts = {};

export function makeConfigurer(deps: RuntimeDeps): AgentConfigurer {
  const session = deps.session ? { dir: deps.session.dir, toolOutputsDir: deps.session.toolOutputsDir } : undefined;
  const shared: RunShared = {
    contextInputs: { cwd: deps.cwd, workspace: deps.workspace, env: deps.env, session },
    skills: deps.skills ? skillViewsOf(deps.skills) : undefined,
  };
  return (record, hooks, agentTree) => configureAgent(record, hooks, agentTree, deps, shared);
}

/** The ports of an agent that may delegate: its own subagents and, with a swarm, its own swarms. */
function agentPortsFor(record: AgentRecord, deps: RuntimeDeps, agentTree: AgentTree): AgentPorts {
  const ports: AgentPorts = {
    subagents: subagentAdapter(record, { agentTree, tasks: deps.tasks, definitions: deps.definitions }),
  };
  if (deps.swarmFor) ports.swarm = deps.swarmFor(record);
  return ports;
}

function configureAgent(
  record: AgentRecord,
  hooks: AgentTreeHooks,
  agentTree: AgentTree,
  deps: RuntimeDeps,
  shared: RunShared,
): AgentLoopConfig {
  const facts = turnFactsFor(record, deps);
  const options = sourceOptionsFor(record, deps.features.delegation, agentTree.limits.maxDepth);
  // What the agent holds among the local tools decides the budget's spill gate, the bridge and the prompt.
  const local = deps.tools.forAgent(mayDelegate(options) ? agentPortsFor(record, deps, agentTree) : NO_AGENT_PORTS);
  const filtered = filterLocal(local, options, facts);
  const held = new Set(filtered.tools.map((t) => t.def.name));

  // murmur-tools: a lease for the agent's bash, and its built-in skill only where the shell can reach something.
  const bridge = bridgeForAgent(deps.shellBridge, record.profile, held);
  const skills = shared.skills
    ? skillsForAgent(shared.skills, facts, {
        bridge: bridge !== undefined,
        mcpConfigured: deps.mcpTools !== undefined,
        held,
      })
    : undefined;
  if (skills?.tool.kind === 'none') held.delete('skill');

  const context = buildToolContext(record, shared.contextInputs);
  const pipeline = pipelineFor(record, deps, context, held.has('read'));
  // The lease comes last: calls from the agent's shell run in this context, through this pipeline.
  if (bridge)
    context.shellBridge = shellLeaseFor(bridge, {
      record,
      facts,
      context,
      hooks: pipeline.hooks,
      deps: { bus: deps.bus, local, mcpTools: deps.mcpTools },
      root: context.cwd,
    });

  const toolsForTurn = catalogFor({
    record,
    facts,
    bus: deps.bus,
    local,
    filtered,
    options,
    skillTool: skills?.tool ?? SHARED_SKILL_TOOL,
    mcpTools: deps.mcpTools,
    disclose: deps.disclose,
  });
  const prompt = agentSystemPrompt(record.profile, {
    root: context.cwd,
    isSubtask: record.depth > 0,
    held,
    definitions: deps.definitions,
    skills: skills?.catalog,
    sandbox: context.env?.sandbox
      ? {
          ...context.env.sandbox,
          worktree: context.cwd !== shared.contextInputs.cwd,
        }
      : undefined,
  });
  const output = record.profile.output;
  const system = intern(output ? `${prompt}\n\n${outputInstruction(output)}` : prompt);
  const onMessage = (message: Message): void => {
    if (message.role === 'user' && !message.synthetic) pipeline.onPrompt();
    hooks.onMessage(message);
  };

  const config: AgentLoopConfig = {
    system,
    maxTurns: record.profile.maxTurns ?? deps.maxTurns,
    callModel: hooks.callModel,
    endpoint: hooks.endpoint,
    toolsForTurn: output ? withFinalAnswer(toolsForTurn, output) : toolsForTurn,
    context,
    budgetSpent: hooks.budgetSpent,
    onUsage: hooks.onUsage,
    onMessage,
    hooks: pipeline.hooks,
  };
  if (deps.maxOutputTokens !== undefined) config.maxOutputTokens = deps.maxOutputTokens;
  const effort = record.profile.effort ?? deps.effort;
  if (effort) config.effort = effort;
  if (output) config.output = output;
  return config;
}
