// Turns a list of RuntimeTools into what the loop consumes: a map by name plus the schemas the model sees.
import type { RuntimeTool, ToolSchema } from './contract.js';
import { createWorkspaceTools } from './workspace-tools.js';

export interface LoopTools {
  tools: ReadonlyMap<string, RuntimeTool>;
  schemas: readonly ToolSchema[];
  /** Said before the conversation this turn (how to reach deferred tools). */
  instruction?: string;
}

export interface LoopToolOptions {
  /**
   * Fills in missing read, write, edit and bash: from the built-in set by default (its bash runs in the
   * foreground only: there is no task store here), or from the map given.
   * `false` switches it off, as the agent runtime does when it assembles its own catalog.
   */
  fallback?: false | ReadonlyMap<string, RuntimeTool>;
}

let builtinFallback: ReadonlyMap<string, RuntimeTool> | undefined;

function builtinFallbackTools(): ReadonlyMap<string, RuntimeTool> {
  builtinFallback ??= new Map(
    createWorkspaceTools()
      .filter((t) => (FALLBACK_TOOL_NAMES as readonly string[]).includes(t.def.name))
      .map((t) => [t.def.name, t]),
  );
  return builtinFallback;
}

export const FALLBACK_TOOL_NAMES = ['read', 'write', 'edit', 'bash'] as const;

export function toolSchema(tool: RuntimeTool): ToolSchema {
  return { name: tool.def.name, description: tool.def.description, parameters: tool.def.parameters };
}

/** Throws when two tools share a name, naming both sources. */
export function toLoopTools(list: readonly RuntimeTool[], options: LoopToolOptions = {}): LoopTools {
  const tools = new Map<string, RuntimeTool>();
  for (const tool of list) {
    const existing = tools.get(tool.def.name);
    if (existing) {
      throw new Error(
        `two tools are named "${tool.def.name}": one from source ${existing.source}, one from source ${tool.source}`,
      );
    }
    tools.set(tool.def.name, tool);
  }
  if (options.fallback !== false) {
    const fallback = options.fallback ?? builtinFallbackTools();
    for (const name of FALLBACK_TOOL_NAMES) {
      const builtin = fallback.get(name);
      if (!tools.has(name) && builtin) tools.set(name, builtin);
    }
  }
  return { tools, schemas: [...tools.values()].map(toolSchema) };
}
