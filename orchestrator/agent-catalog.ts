// Builder: one agent's per-turn catalog — its turn facts, its local tools through the filter pipeline (once: they
// decide the result budget, the prompt and the shell bridge), and `toolsForTurn`, which adds the MCP source each
// turn when there is one, applies the agent's skill-tool choice, says each filter warning once and hands the
// result to deferred disclosure. Functions of their inputs; the only side effect is the warning's log event.
import { collectCandidates, type SourceOptions } from '../tools/catalog.js';
import type { RuntimeTool } from '../tools/contract.js';
import { SKILL_TOOL_NAME } from '../tools/interact/skill.js';
import { toLoopTools, type LoopTools } from '../tools/loop-tools.js';
import { applyFilters, type FrontEnd, type ToolAccess, type TurnFacts } from '../roles/filters.js';
import type { AgentProfile } from '../roles/profile.js';
import type { EventBus } from './events.js';
import type { ModelCapabilities } from './models/provider.js';
import type { Disclosure, McpOriginOf, McpToolsFor } from './runtime-ports.js';
import type { AgentRecord } from './agent-tree.js';
import type { SkillToolChoice } from './shell-bridge.js';

/** The run's values turn facts are made of. */
export interface FactsInputs {
  capabilities: ModelCapabilities;
  frontEnd: FrontEnd;
  features: { delegation: boolean; webSearch: boolean };
  mcpOrigin?: McpOriginOf | undefined;
  /** The run's tool access; absent = no limit. */
  toolAccess?: ToolAccess | undefined;
}

/** What the facts need of an agent (the scheduler's AgentRecord fits). */
export interface FactsAgent {
  profile: AgentProfile;
  depth: number;
}

// Nothing is excluded unless a turn says so: one empty set for every agent (a swarm configures thousands).
const NO_EXCLUSIONS: ReadonlySet<string> = new Set();

export function turnFactsFor(agent: FactsAgent, inputs: FactsInputs): TurnFacts {
  const facts: TurnFacts = {
    profile: agent.profile,
    model: { images: inputs.capabilities.images, video: inputs.capabilities.video },
    excluded: NO_EXCLUSIONS,
    isSubtask: agent.depth > 0,
    interface: inputs.frontEnd,
    features: inputs.features,
    desktopAvailable: false,
  };
  if (inputs.mcpOrigin) facts.mcpOrigin = inputs.mcpOrigin;
  if (inputs.toolAccess) facts.access = inputs.toolAccess;
  return facts;
}

/** How the sources are read for an agent: delegation needs the host's permission and room below the depth ceiling. */
export function sourceOptionsFor(agent: FactsAgent, delegationAllowed: boolean, maxDepth: number): SourceOptions {
  return {
    toolsEnabled: true,
    delegation: { hostAllows: delegationAllowed, ceilingAllows: agent.depth < maxDepth },
    subtask: agent.depth > 0,
  };
}

/** Whether the agent may delegate at all (so agent and agent_swarm are worth making for it). */
export function mayDelegate(options: SourceOptions): boolean {
  return options.delegation.hostAllows && options.delegation.ceilingAllows;
}

export interface FilteredTools {
  tools: RuntimeTool[];
  warnings: string[];
}

/** The agent's local tools through the filters (the whole catalog of an agent without MCP). */
export function filterLocal(local: readonly RuntimeTool[], options: SourceOptions, facts: TurnFacts): FilteredTools {
  return applyFilters(collectCandidates({ local }, options) as RuntimeTool[], facts);
}

export interface CatalogInput {
  record: AgentRecord;
  facts: TurnFacts;
  bus: EventBus;
  /** The agent's local tools (the registry's, with its own agent and agent_swarm). */
  local: readonly RuntimeTool[];
  /** `local` through the filters: reused as the whole catalog when there is no MCP source. */
  filtered: FilteredTools;
  options: SourceOptions;
  /** Which skill tool the agent holds (applied after the filters, so their warnings stay as for the shared one). */
  skillTool: SkillToolChoice;
  mcpTools?: McpToolsFor | undefined;
  disclose?: Disclosure | undefined;
}

/** Each warning once per agent, as a `log` event naming the agent's definition file when it has one. */
function warnOnce(bus: EventBus, record: AgentRecord): (warnings: readonly string[]) => void {
  // Built on the first warning only: most agents never have one.
  let said: Set<string> | undefined;
  const where = `${record.profile.name}${record.profile.path ? ` (${record.profile.path})` : ''}`;
  return (warnings) => {
    for (const warning of warnings) {
      said ??= new Set();
      if (said.has(warning)) continue;
      said.add(warning);
      bus.emit({ type: 'log', level: 'warn', agentId: record.id, message: `${where}: ${warning}` });
    }
  };
}

function withSkillTool(tools: RuntimeTool[], choice: SkillToolChoice): RuntimeTool[] {
  if (choice.kind === 'shared') return tools;
  if (choice.kind === 'none') return tools.filter((t) => t.def.name !== SKILL_TOOL_NAME);
  return tools.map((t) => (t.def.name === SKILL_TOOL_NAME ? choice.tool : t));
}

/** The agent's `toolsForTurn`. Without MCP the catalog never changes: it is finished on the first turn and kept. */
export function catalogFor(input: CatalogInput): () => LoopTools | Promise<LoopTools> {
  const warn = warnOnce(input.bus, input.record);
  const { disclose, facts, skillTool } = input;
  const finish = (filtered: FilteredTools): LoopTools => {
    const tools = withSkillTool(filtered.tools, skillTool);
    warn(filtered.warnings);
    if (!disclose) return toLoopTools(tools, { fallback: false });
    const plan = disclose(tools);
    const loopTools = toLoopTools(plan.tools, { fallback: false });
    return plan.instruction ? { ...loopTools, instruction: plan.instruction } : loopTools;
  };
  const mcpTools = input.mcpTools;
  if (!mcpTools) {
    const { filtered } = input;
    let fixed: LoopTools | undefined;
    return () => (fixed ??= finish(filtered));
  }
  const { record, local, options } = input;
  const sources = { local, mcp: () => mcpTools(record) };
  return () => {
    const candidates = collectCandidates(sources, options);
    return candidates instanceof Promise
      ? candidates.then((listed) => finish(applyFilters(listed, facts)))
      : finish(applyFilters(candidates, facts));
  };
}
