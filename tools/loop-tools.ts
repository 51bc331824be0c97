// Turns a list of RuntimeTools into what the loop consumes: a map by name plus the schemas the model sees.
import type { RuntimeTool, ToolSchema } from './contract.js';

export interface LoopTools {
  tools: ReadonlyMap<string, RuntimeTool>;
  schemas: readonly ToolSchema[];
  /** Said before the conversation this turn (how to reach deferred tools). */
  instruction?: string;
}

export interface LoopToolOptions {
  /** Fills in missing read, write, edit and bash from the built-in set (off when a runtime assembles its own catalog). */
  fallback?: ReadonlyMap<string, RuntimeTool>;
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
      throw new Error(`two tools are named "${tool.def.name}": one from source ${existing.source}, one from source ${tool.source}`);
    }
    tools.set(tool.def.name, tool);
  }
  if (options.fallback) {
    for (const name of FALLBACK_TOOL_NAMES) {
      const builtin = options.fallback.get(name);
      if (!tools.has(name) && builtin) tools.set(name, builtin);
    }
  }
  return { tools, schemas: [...tools.values()].map(toolSchema) };
}
