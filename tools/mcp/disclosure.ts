// Deferred disclosure of MCP tools: when a configured catalog would eat too much of the model's context, its
// tools leave the list and two tools take their place: tool_search (find them) and mcp_invoke (call one, checked
// against its real schema). Pure: a function of the turn's tools, the model and the settings.
import { Type } from '@sinclair/typebox';
import {
  checkArguments,
  errorResult,
  textResult,
  type RuntimeTool,
  type ToolResult,
  type ToolTraits,
} from '../contract.js';
import { toolSchema } from '../loop-tools.js';
import { mcpToolOrigin } from './names.js';
import { ToolSearchIndex } from './tool-search.js';

export interface McpDisclosureSettings {
  /** The switch. */
  enabled: boolean;
  /** Models that may get deferred tools: exact ids (`openai:gpt-4o`, or `gpt-4o` for any provider) or `*` globs. */
  models: readonly string[];
  /** Fewer deferrable tools than this are always listed. */
  minDeferCount: number;
  /** Deferral happens when the candidates' estimated tokens exceed this share of the context window. */
  thresholdPct: number;
}

export const DEFAULT_MCP_DISCLOSURE: McpDisclosureSettings = {
  enabled: true,
  models: [],
  minDeferCount: 1,
  thresholdPct: 0.15,
};

export const TOOL_SEARCH_NAME = 'tool_search';
export const MCP_INVOKE_NAME = 'mcp_invoke';

export type McpDisclosureDecision =
  'disabled' | 'model-not-allowed' | 'too-few-candidates' | 'under-threshold' | 'deferred';

export interface McpDisclosureInput {
  /** This turn's catalog, already filtered for the agent. */
  tools: readonly RuntimeTool[];
  /** The model as named on the command line (`anthropic:claude-sonnet-4-5`). */
  model: string;
  /** The model's context window, in tokens. */
  contextWindow: number;
  settings?: Partial<McpDisclosureSettings>;
}

export interface McpDisclosurePlan {
  decision: McpDisclosureDecision;
  /** Why, in words (for logs). */
  reason: string;
  /** The tools that stay listed, in catalog order. */
  inline: RuntimeTool[];
  /** The tools only reachable through tool_search + mcp_invoke. */
  deferred: RuntimeTool[];
  /** tool_search and mcp_invoke when deferring; empty otherwise. */
  replacements: RuntimeTool[];
  /** What the model is offered this turn: inline followed by the replacements. */
  tools: RuntimeTool[];
  /** Put before the user's prompt when deferring. */
  instruction?: string;
  /** Estimated tokens of the deferrable candidates' schemas (JSON length / 4). */
  candidateTokens: number;
  /** thresholdPct × context window. */
  thresholdTokens: number;
}

/** Estimated tokens of the schemas a provider would send for these tools. */
export function estimateToolTokens(tools: readonly RuntimeTool[]): number {
  return Math.ceil(JSON.stringify(tools.map(toolSchema)).length / 4);
}

function globToRegExp(pattern: string): RegExp {
  const source = pattern.replace(/[.+^${}()|[\]\\?]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${source}$`, 'i');
}

/** True when the model (`provider:model`) or its bare model part matches an entry of the allow list. */
export function modelIsAllowed(model: string, allowList: readonly string[]): boolean {
  const bare = model.includes(':') ? model.slice(model.indexOf(':') + 1) : model;
  return allowList.some((entry) => {
    const pattern = globToRegExp(entry.trim());
    return pattern.test(model) || pattern.test(bare);
  });
}

/** Only MCP tools from configured sources may be deferred; built-in sources are always listed. */
export function isDeferrable(tool: RuntimeTool): boolean {
  return tool.source === 'configured' && mcpToolOrigin(tool) !== undefined;
}

export function planMcpDisclosure(input: McpDisclosureInput): McpDisclosurePlan {
  const settings: McpDisclosureSettings = { ...DEFAULT_MCP_DISCLOSURE, ...input.settings };
  const candidates = input.tools.filter(isDeferrable);
  const candidateTokens = estimateToolTokens(candidates);
  const thresholdTokens = settings.thresholdPct * input.contextWindow;
  const keep = (decision: McpDisclosureDecision, reason: string): McpDisclosurePlan => ({
    decision,
    reason,
    inline: [...input.tools],
    deferred: [],
    replacements: [],
    tools: [...input.tools],
    candidateTokens,
    thresholdTokens,
  });
  if (!settings.enabled) return keep('disabled', 'deferred disclosure is switched off');
  if (!modelIsAllowed(input.model, settings.models)) {
    return keep(
      'model-not-allowed',
      `model ${input.model} is not on the deferred-disclosure allow list (${settings.models.length > 0 ? settings.models.join(', ') : 'empty'})`,
    );
  }
  if (candidates.length === 0 || candidates.length < settings.minDeferCount) {
    return keep(
      'too-few-candidates',
      `${candidates.length} configured MCP tools, fewer than minDeferCount ${settings.minDeferCount}`,
    );
  }
  if (candidateTokens <= thresholdTokens) {
    return keep(
      'under-threshold',
      `configured MCP tools take about ${candidateTokens} tokens, not more than ${thresholdTokens} (${settings.thresholdPct} of ${input.contextWindow})`,
    );
  }
  const deferredSet = new Set(candidates);
  const inline = input.tools.filter((tool) => !deferredSet.has(tool));
  const replacements = [toolSearchTool(candidates), mcpInvokeTool(candidates, inline)];
  return {
    decision: 'deferred',
    reason: `configured MCP tools take about ${candidateTokens} tokens, more than ${thresholdTokens} (${settings.thresholdPct} of ${input.contextWindow}): ${candidates.length} deferred`,
    inline,
    deferred: candidates,
    replacements,
    tools: [...inline, ...replacements],
    instruction: instructionFor(candidates),
    candidateTokens,
    thresholdTokens,
  };
}

function instructionFor(deferred: readonly RuntimeTool[]): string {
  const servers = [...new Set(deferred.map((tool) => mcpToolOrigin(tool)?.server ?? 'unknown'))];
  return (
    `${deferred.length} more tools, from the MCP server${servers.length === 1 ? '' : 's'} ${servers.join(', ')}, are not listed to save context. ` +
    `To use one, call ${TOOL_SEARCH_NAME} with a few words about what you need; it answers with matching tool names and their input schemas. ` +
    `Then call ${MCP_INVOKE_NAME} with {"name": "<tool name>", "arguments": {...}}.`
  );
}

const SEARCH_LIMIT_DEFAULT = 5;
const SEARCH_LIMIT_MAX = 20;

const ToolSearchParameters = Type.Object({
  query: Type.String({
    minLength: 1,
    description: 'Words describing the tool you need, or "select:NAME1,NAME2" to fetch tools by exact name.',
  }),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: SEARCH_LIMIT_MAX,
      description: `Most tools to return (default ${SEARCH_LIMIT_DEFAULT}).`,
    }),
  ),
});

/** tool_search's traits: it only searches the tools that are not listed. */
export const TOOL_SEARCH_TRAITS = { readOnly: true } as const satisfies ToolTraits;

function toolSearchTool(deferred: readonly RuntimeTool[]): RuntimeTool {
  let index: ToolSearchIndex | undefined;
  const byName = new Map(deferred.map((tool) => [tool.def.name, tool]));
  const def = {
    ...TOOL_SEARCH_TRAITS,
    name: TOOL_SEARCH_NAME,
    description: `Searches the ${deferred.length} tools that are not listed (MCP tools) by name and description. Returns the matching tool names, descriptions and input schemas; call one with ${MCP_INVOKE_NAME}.`,
    parameters: ToolSearchParameters,
    executionMode: 'parallel' as const,
  };
  return {
    def,
    source: 'builtin',
    impl: (_ctx, input: { query: string; limit?: number }): ToolResult => {
      const limit = input.limit ?? SEARCH_LIMIT_DEFAULT;
      const query = input.query.trim();
      let found: RuntimeTool[];
      if (query.toLowerCase().startsWith('select:')) {
        found = query
          .slice('select:'.length)
          .split(',')
          .map((name) => byName.get(name.trim()))
          .filter((tool): tool is RuntimeTool => tool !== undefined);
      } else {
        index ??= new ToolSearchIndex(deferred);
        found = index.search(query, limit).map((hit) => hit.tool);
      }
      if (found.length === 0) {
        const servers = [...new Set(deferred.map((tool) => mcpToolOrigin(tool)?.server ?? 'unknown'))];
        return textResult(
          `No tool matches "${query}". The ${deferred.length} searchable tools come from: ${servers.join(', ')}. Try other words.`,
          { names: [] },
        );
      }
      const listing = found.map((tool) => ({
        name: tool.def.name,
        description: tool.def.description,
        parameters: tool.def.parameters,
      }));
      return textResult(
        `${found.length} matching tool${found.length === 1 ? '' : 's'} (call with ${MCP_INVOKE_NAME}):\n${JSON.stringify(listing, null, 2)}`,
        { names: listing.map((tool) => tool.name) },
      );
    },
  };
}

const McpInvokeParameters = Type.Object({
  name: Type.String({ minLength: 1, description: `The tool's exact name, as ${TOOL_SEARCH_NAME} returned it.` }),
  arguments: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: "The tool's arguments, matching its input schema." }),
  ),
});

/** mcp_invoke's traits: none of its own — the permission policy looks through it to the tool it calls. */
export const MCP_INVOKE_TRAITS = {} as const satisfies ToolTraits;

function mcpInvokeTool(deferred: readonly RuntimeTool[], inline: readonly RuntimeTool[]): RuntimeTool {
  const byName = new Map(deferred.map((tool) => [tool.def.name, tool]));
  const inlineNames = new Set(inline.map((tool) => tool.def.name));
  const def = {
    ...MCP_INVOKE_TRAITS,
    name: MCP_INVOKE_NAME,
    description: `Calls one of the tools found with ${TOOL_SEARCH_NAME}: give its exact name and its arguments.`,
    parameters: McpInvokeParameters,
    // Models often send the nested arguments as a JSON string.
    prepareArguments: (raw: unknown) => {
      const record = raw as { arguments?: unknown } | null;
      if (record && typeof record === 'object' && typeof record.arguments === 'string') {
        try {
          return { ...record, arguments: JSON.parse(record.arguments) };
        } catch {
          return raw;
        }
      }
      return raw;
    },
  };
  return {
    def,
    source: 'builtin',
    impl: async (
      ctx,
      input: { name: string; arguments?: Record<string, unknown> },
      signal,
      onUpdate,
    ): Promise<ToolResult> => {
      const target = byName.get(input.name.trim());
      if (!target) {
        // The deferred set is this agent's filtered catalog: anything else is refused, whatever the name.
        const hint = inlineNames.has(input.name)
          ? ` It is listed directly: call "${input.name}" itself.`
          : ` Use ${TOOL_SEARCH_NAME} to find the tools you can call this way.`;
        return errorResult(
          `Tool "${input.name}" is not available to the ${ctx.role} agent through ${MCP_INVOKE_NAME}.${hint}`,
        );
      }
      let args: unknown = input.arguments ?? {};
      try {
        if (target.def.prepareArguments) args = target.def.prepareArguments(args);
      } catch (error) {
        return errorResult(`Invalid arguments for tool "${target.def.name}": ${(error as Error).message}`);
      }
      const problem = checkArguments(target.def, args);
      if (problem) return errorResult(problem);
      try {
        const result = await target.impl(ctx, args as never, signal, onUpdate);
        if (!result || !Array.isArray(result.content))
          return errorResult(`Tool "${target.def.name}" returned a malformed result (no content list).`);
        return result;
      } catch (error) {
        return errorResult(
          `Tool "${target.def.name}" failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    },
  };
}

/** Reads disclosure settings from configuration (a TOML table or JSON object); bad fields keep their defaults. */
export function parseMcpDisclosureSettings(
  raw: unknown,
  where: string,
): { settings: McpDisclosureSettings; problems: string[] } {
  const settings: McpDisclosureSettings = { ...DEFAULT_MCP_DISCLOSURE };
  const problems: string[] = [];
  if (raw === undefined) return { settings, problems };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {
      settings,
      problems: [`${where}: must be a table of settings (enabled, models, minDeferCount, thresholdPct)`],
    };
  }
  const table = raw as Record<string, unknown>;
  for (const key of Object.keys(table)) {
    if (!['enabled', 'models', 'minDeferCount', 'thresholdPct'].includes(key))
      problems.push(`${where}.${key}: unknown setting (known: enabled, models, minDeferCount, thresholdPct)`);
  }
  if (table.enabled !== undefined) {
    if (typeof table.enabled === 'boolean') settings.enabled = table.enabled;
    else problems.push(`${where}.enabled: must be true or false, got ${JSON.stringify(table.enabled)}`);
  }
  if (table.models !== undefined) {
    if (Array.isArray(table.models) && table.models.every((m) => typeof m === 'string'))
      settings.models = table.models as string[];
    else
      problems.push(`${where}.models: must be a list of model names or patterns, got ${JSON.stringify(table.models)}`);
  }
  if (table.minDeferCount !== undefined) {
    if (Number.isInteger(table.minDeferCount) && (table.minDeferCount as number) >= 1)
      settings.minDeferCount = table.minDeferCount as number;
    else
      problems.push(
        `${where}.minDeferCount: must be a whole number of at least 1, got ${JSON.stringify(table.minDeferCount)}`,
      );
  }
  if (table.thresholdPct !== undefined) {
    const value = table.thresholdPct;
    if (typeof value === 'number' && value > 0 && value <= 1) settings.thresholdPct = value;
    else
      problems.push(`${where}.thresholdPct: must be a fraction in (0, 1], such as 0.15, got ${JSON.stringify(value)}`);
  }
  return { settings, problems };
}
