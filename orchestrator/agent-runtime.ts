// Builds one agent's loop config: its per-turn catalog (sources -> filters), its tool context (the adapters
// through which tools reach the engine), its hooks (vetoes, permissions, result budget) and its prompt.
import type { FileReadLedger, FileStamp, SwarmAdapter, ToolAdapters, WorkspacePolicy, EnvPolicy } from '../tools/adapters.js';
import type { BatchHooks } from './tool-batch.js';
import type { RuntimeTool } from '../tools/contract.js';
import { resultBudgetStage, type ResultBudget } from '../tools/budget.js';
import type { AfterCallStage } from '../tools/call-stage.js';
import { skillChainTracker } from '../tools/interact/skill.js';
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
import { setUpShellBridge, type EngineShellBridge } from './shell-bridge.js';
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
  /** The result budget for an agent (the first after-call stage). */
  resultBudget?: (record: AgentRecord, hasRead: boolean) => ResultBudget;
  /** Extra vetoes (plan mode) that run before permissions. */
  extraVetoes?: (record: AgentRecord) => BatchHooks['vetoBatch'];
  maxTurns: number;
  maxOutputTokens?: number;
  /** murmur-tools for agents' shells; absent = off. */
  shellBridge?: EngineShellBridge;
  /** The run's reasoning effort (`--effort`, `effort` in murmur.toml); an agent definition's own wins. */
  effort?: AgentProfile['effort'];
}

type CoreAdapters = Pick<ToolAdapters, 'workspace' | 'reads' | 'session' | 'tasks' | 'env' | 'agents' | 'timers' | 'swarm'>;

export function createReadLedger(): FileReadLedger {
  const stamps = new Map<string, FileStamp>();
  return { recordRead: (path, stamp) => stamps.set(path, stamp), lastRead: (path) => stamps.get(path) };
}

// Nothing is excluded unless a turn says so: one empty set for every agent (a swarm configures thousands).
const NO_EXCLUSIONS: ReadonlySet<string> = new Set();

export function turnFactsFor(record: AgentRecord, deps: Pick<RuntimeDeps, 'capabilities' | 'hostInterface' | 'features' | 'mcpOrigin'>): TurnFacts {
  const facts: TurnFacts = {
    profile: record.profile,
    model: { images: deps.capabilities.images, video: deps.capabilities.video },
    excluded: NO_EXCLUSIONS,
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
    // Built on the first warning only: most agents never have one.
    let warned: Set<string> | undefined;
    // The skill tool, when the agent holds it with no skill to load (decided below, with the shell bridge).
    let skillUnused = false;
    const finishFiltered = (filtered: { tools: RuntimeTool[]; warnings: string[] }): LoopTools => {
      const tools = skillUnused ? filtered.tools.filter((t) => t.def.name !== 'skill') : filtered.tools;
      for (const warning of filtered.warnings) {
        warned ??= new Set();
        if (warned.has(warning)) continue;
        warned.add(warning);
        deps.bus.emit({ type: 'log', level: 'warn', agentId: record.id, message: `${record.profile.name}${record.profile.path ? ` (${record.profile.path})` : ''}: ${warning}` });
      }
      if (!deps.disclose) return toLoopTools(tools, { fallback: false });
      const plan = deps.disclose(tools);
      const loopTools = toLoopTools(plan.tools, { fallback: false });
      return plan.instruction ? { ...loopTools, instruction: plan.instruction } : loopTools;
    };
    const finish = (candidates: RuntimeTool[]): LoopTools => finishFiltered(applyFilters(candidates, facts));

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
    // Without MCP these are also its whole catalog, which never changes: filtered once, here, for every turn.
    let localFiltered: { tools: RuntimeTool[]; warnings: string[] } | undefined = applyFilters(collectCandidates({ local: deps.registry }, sourceOptions) as RuntimeTool[], facts);
    const local = new Set(localFiltered.tools.map((t) => t.def.name));
    let fixed: LoopTools | undefined;
    const toolsForTurn = (): LoopTools | Promise<LoopTools> => {
      if (fixed) return fixed;
      if (localFiltered) {
        fixed = finishFiltered(localFiltered);
        localFiltered = undefined;
        return fixed;
      }
      const candidates = collectCandidates(sources, sourceOptions);
      if (candidates instanceof Promise) return candidates.then(finish);
      fixed = finish(candidates);
      return fixed;
    };
    if (mcpTools) localFiltered = undefined;

    const pipeline = pipelineFor(record, deps, context, local.has('read'));
    const batchHooks = pipeline.hooks;

    // murmur-tools: the lease for the agent's bash and its skill, where they apply.
    const shell = setUpShellBridge({ record, facts, context, hooks: batchHooks, local, root, deps });
    if (shell.skillToolUnused) {
      skillUnused = true;
      local.delete('skill');
    }
    const onMessage: AgentLoopConfig['onMessage'] = (message) => {
      if (message.role === 'user' && !message.synthetic) pipeline.onPrompt();
      hooks.onMessage(message);
    };

    const prompt: Parameters<typeof systemPromptFor>[1] = { cwd: root, isSubtask: record.depth > 0 };
    if (local.has('agent') || local.has('agent_swarm')) prompt.subagentTypes = allowedSubagentTypes(record.profile, deps.definitions);
    const skills = context.skills;
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
    const effort = record.profile.effort ?? deps.effort;
    if (effort) config.effort = effort;
    return config;
  };
}

/**
 * The tool-call pipeline of one agent, assembled once: its batch vetoes, its permission gate and its after-call
 * stages in order (the result budget first). The shell bridge decides calls through the same hooks.
 */
export function pipelineFor(
  record: AgentRecord,
  deps: Pick<RuntimeDeps, 'permission' | 'resultBudget' | 'extraVetoes'>,
  context: AgentLoopConfig['context'],
  hasRead: boolean,
): { hooks: BatchHooks; onPrompt: () => void } {
  const vetoes = [batchVetoes, deps.extraVetoes?.(record)].filter((v): v is NonNullable<typeof v> => v !== undefined);
  const hooks: BatchHooks = {
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
    hooks.beforeCall = (call, tool, args, signal) => check(record, call, tool, args, signal);
  }
  const stages: AfterCallStage[] = [];
  if (deps.resultBudget) stages.push(resultBudgetStage(deps.resultBudget(record, hasRead), record.id));
  // Skills loaded since the last prompt from a person count as nested: the skill tool caps how deep.
  const skillChain = skillChainTracker(context);
  stages.push(skillChain.stage);
  hooks.afterCall = stages;
  return { hooks, onPrompt: skillChain.onPrompt };
}
