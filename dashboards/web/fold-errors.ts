// What the console's fold keeps to explain a failure: each agent's last tool error (tool.end with isError), held
// only while the agent has not completed — one short entry per agent at most, so a huge session stays bounded.
import type { MurmurEvent } from '../../orchestrator/events.js';

/** Characters kept of an item's reason and of a tool error: a line or two of the page each. */
export const REASON_CHARS = 300;
/** A Map entry and its object, beyond the characters. */
const ENTRY_BYTES = 120;

export interface ToolError {
  tool: string;
  error: string;
}

export function cutReason(text: string): string {
  return text.length > REASON_CHARS ? `${text.slice(0, REASON_CHARS - 1)}…` : text;
}

export class ToolErrors {
  private readonly last = new Map<string, ToolError>();
  private chars = 0;

  /** Folds a tool.end (its error, if any) or an agent.end (a completed agent needs no explanation). */
  add(e: MurmurEvent): void {
    if (e.type === 'tool.end' && e.isError) this.set(e.agentId, { tool: e.tool, error: cutReason(e.error ?? '') });
    else if (e.type === 'agent.end' && e.status === 'completed') this.set(e.agentId, undefined);
  }

  get(agentId: string): ToolError | undefined {
    return this.last.get(agentId);
  }

  get size(): number {
    return this.last.size;
  }

  approxBytes(): number {
    return this.last.size * ENTRY_BYTES + this.chars * 2;
  }

  private set(agentId: string, value: ToolError | undefined): void {
    const known = this.last.get(agentId);
    if (known) this.chars -= known.tool.length + known.error.length;
    if (!value) {
      this.last.delete(agentId);
      return;
    }
    this.chars += value.tool.length + value.error.length;
    this.last.set(agentId, value);
  }
}
