// Builds one agent's loop config: its per-turn catalog (sources -> filters), its tool context (the adapters
// through which tools reach the engine), its hooks (vetoes, permissions, result budget) and its prompt.
import type { FileReadLedger, FileStamp, SwarmAdapter, ToolAdapters, WorkspacePolicy, EnvPolicy } from '../tools/adapters.js';
import type { BatchHooks } from './tool-batch.js';
import type { RuntimeTool, ToolResult } from '../tools/contract.js';
import { collectCandidates, type CatalogSources } from '../tools/catalog.js';
import { toLoopTools, type LoopTools } from '../tools/loop-tools.js';
import { applyFilters, type HostInterface, type TurnFacts } from '../roles/filters.js';
import type { AgentProfile } from '../roles/profile.js';
import type { AgentLoopConfig } from './agent.js';
import type { EventBus } from './events.js';
import type { ModelCapabilities } from './models/provider.js';
import type { AgentConfigurer, AgentRecord, Scheduler, SchedulerHooks } from './scheduler.js';
import type { SessionStore } from './session.js';
import { subagentAdapter, allowedSubagentTypes } from './subagents.js';
import type { TaskRegistry } from './tasks.js';
import type { TimerService } from './timers.js';
import { systemPromptFor } from './prompts.js';
import { skillsPromptSection } from '../tools/interact/skills.js';
import { batchVetoes } from './vetoes.js';

export interface RuntimeDeps {
  cwd: string;
  bus: EventBus;
  workspace: WorkspacePolicy;
  env: EnvPolicy;
  registry: ReadonlyMap<string, RuntimeTool>;
  /** MCP tools an agent may draw from (its server allow list applied), listed per turn. */
  mcpTools?: (record: AgentRecord) => Promise<readonly RuntimeTool[]>;
  /** The MCP server and tool behind a tool from the MCP source. */
  mcpOrigin?: TurnFacts['mcpOrigin'];
  /** Deferred disclosure of the filtered catalog: what to offer and what to say about the rest. */
  disclose?: (tools: RuntimeTool[]) => { tools: RuntimeTool[]; instruction?: string };
  capabilities: ModelCapabilities;
  session?: SessionStore;
  tasks: TaskRegistry;
  timers: TimerService;
  scheduler: () => Scheduler;
  definitions: ReadonlyMap<string, AgentProfile>;
  hostInterface: HostInterface;
  features: { delegation: boolean; webSearch: boolean };
  /** Interaction adapters shared by every agent (user channel, todos, skills, web policy, search). */
  interaction?: Omit<ToolAdapters, keyof CoreAdapters>;
  swarmFor?: (record: AgentRecord) => SwarmAdapter;
  /** The permission check (before a tool runs); a result denies the call. */
  permission?: (record: AgentRecord, ...args: Parameters<NonNullable<BatchHooks['beforeCall']>>) => ReturnType<NonNullable<BatchHooks['beforeCall']>>;
  /** The result budget for an agent (after each call). */
  resultBudget?: (record: AgentRecord, hasRead: boolean) => NonNullable<BatchHooks['afterCall']>;
  /** Extra vetoes (plan mode) that run before permissions. */
  extraVetoes?: (record: AgentRecord) => BatchHooks['vetoBatch'];
  maxTurns: number;
  maxOutputTokens?: number;
}

type CoreAdapters = Pick<ToolAdapters, 'workspace' | 'reads' | 'session' | 'tasks' | 'env' | 'agents' | 'timers' | 'swarm'>;

export function createReadLedger(): FileReadLedger {
  const stamps = new Map<string, FileStamp>();
  return { recordRead: (path, stamp) => stamps.set(path, stamp), lastRead: (path) => stamps.get(path) };
}

export function turnFactsFor(record: AgentRecord, deps: Pick<RuntimeDeps, 'capabilities' | 'hostInterface' | 'features' | 'mcpOrigin'>): TurnFacts {
  const facts: TurnFacts = {
    profile: record.profile,
    model: { images: deps.capabilities.images, video: deps.capabilities.video },
    excluded: new Set(),
    isSubtask: record.depth > 0,
    interface: deps.hostInterface,
    features: deps.features,
    desktopAvailable: false,
  };
  if (deps.mcpOrigin) facts.mcpOrigin = deps.mcpOrigin;
  return facts;
}

export function makeConfigurer(deps: RuntimeDeps): AgentConfigurer {
  return (record: AgentRecord, hooks: SchedulerHooks): AgentLoopConfig => {
    const scheduler = deps.scheduler();
    const facts = turnFactsFor(record, deps);
    const sources: CatalogSources = { local: deps.registry };
    const mcpTools = deps.mcpTools;
    if (mcpTools) sources.mcp = () => mcpTools(record);
    const sourceOptions = {
      toolsEnabled: true,
      delegation: { hostAllows: deps.features.delegation, ceilingAllows: record.depth < scheduler.limits.maxDepth },
      subtask: record.depth > 0,
    };
    const warned = new Set<string>();
    const finish = (candidates: RuntimeTool[]): LoopTools => {
      const filtered = applyFilters(candidates, facts);
      for (const warning of filtered.warnings) {
        if (warned.has(warning)) continue;
        warned.add(warning);
        deps.bus.emit({ type: 'log', level: 'warn', agentId: record.id, message: `${record.profile.name}${record.profile.path ? ` (${record.profile.path})` : ''}: ${warning}` });
      }
      if (!deps.disclose) return toLoopTools(filtered.tools, { fallback: false });
      const plan = deps.disclose(filtered.tools);
      const loopTools = toLoopTools(plan.tools, { fallback: false });
      return plan.instruction ? { ...loopTools, instruction: plan.instruction } : loopTools;
    };
    // Without MCP the sources never change, so the filters run once and every turn reuses the result.
    let fixed: LoopTools | undefined;
    const toolsForTurn = (): LoopTools | Promise<LoopTools> => {
      if (fixed) return fixed;
      const candidates = collectCandidates(sources, sourceOptions);
      if (candidates instanceof Promise) return candidates.then(finish);
      fixed = finish(candidates);
      return fixed;
    };

    const root = record.workspaceRoot ?? deps.cwd;
    const context = {
      agentId: record.id,
      role: record.profile.name,
      cwd: root,
      workspace: root === deps.cwd ? deps.workspace : { ...deps.workspace, root },
      reads: createReadLedger(),
      tasks: deps.tasks.viewFor(record.id),
      env: deps.env,
      agents: subagentAdapter(record, { scheduler, tasks: deps.tasks, definitions: deps.definitions }),
      timers: { set: (minutes: number, message: string) => deps.timers.set(record.id, minutes, message) },
      ...deps.interaction,
    } as AgentLoopConfig['context'];
    if (deps.session) context.session = { dir: deps.session.dir, toolOutputsDir: deps.session.toolOutputsDir };
    if (deps.swarmFor) context.swarm = deps.swarmFor(record);

    // What the agent holds among the local tools: decides the result budget's spill gate and what the prompt says.
    const local = new Set(applyFilters(collectCandidates({ local: deps.registry }, sourceOptions) as RuntimeTool[], facts).tools.map((t) => t.def.name));

    const vetoes = [batchVetoes, deps.extraVetoes?.(record)].filter((v): v is NonNullable<typeof v> => v !== undefined);
    const batchHooks: BatchHooks = {
      vetoBatch: (calls) => {
        for (const veto of vetoes) {
          const refusal = veto(calls);
          if (refusal) return refusal;
        }
        return undefined;
      },
    };
    if (deps.permission) {
      const check = deps.permission;
      batchHooks.beforeCall = (call, tool, args, signal) => check(record, call, tool, args, signal);
    }
    if (deps.resultBudget) {
      const gate = deps.resultBudget(record, local.has('read'));
      // Call ids are unique within one conversation only (the scripted model's repeat across agents), and the
      // budget names spilled files after them: prefix the agent id so agents never overwrite each other's.
      batchHooks.afterCall = (call, tool, result: ToolResult) => gate({ ...call, id: `${record.id}-${call.id}` }, tool, result);
    }

    // Skills loaded since the last prompt from a person count as nested: the skill tool caps how deep.
    const budgetGate = batchHooks.afterCall;
    batchHooks.afterCall = async (call, tool, result) => {
      const out = budgetGate ? await budgetGate(call, tool, result) : result;
      const chain = call.name === 'skill' && !result.isError ? (result.details as { chain?: unknown } | undefined)?.chain : undefined;
      if (Array.isArray(chain)) context.skillChain = chain as string[];
      return out;
    };
    const onMessage: AgentLoopConfig['onMessage'] = (message) => {
      if (message.role === 'user' && !message.synthetic) delete context.skillChain;
      hooks.onMessage(message);
    };

    const prompt: Parameters<typeof systemPromptFor>[1] = { cwd: root, isSubtask: record.depth > 0 };
    if (local.has('agent') || local.has('agent_swarm')) prompt.subagentTypes = allowedSubagentTypes(record.profile, deps.definitions);
    const skills = deps.interaction?.skills;
    if (local.has('skill') && skills) prompt.skillsSection = skillsPromptSection(skills);

    const config: AgentLoopConfig = {
      system: systemPromptFor(record.profile, prompt),
      maxTurns: record.profile.maxTurns ?? deps.maxTurns,
      callModel: hooks.callModel,
      toolsForTurn,
      context,
      budgetSpent: hooks.budgetSpent,
      onUsage: hooks.onUsage,
      onMessage,
      hooks: batchHooks,
    };
    if (deps.maxOutputTokens !== undefined) config.maxOutputTokens = deps.maxOutputTokens;
    return config;
  };
}
