// The scripted model of murmur-agents/testing: the scripted provider, plus a record of every request it was sent
// (`calls`) and a check that the script was used up (`assertComplete`). Only the library's testing entry records;
// the command line's `scripted:FILE` keeps nothing per agent (a swarm runs thousands).
import { ScriptedModel, type Script } from '../host/scripted-model.js';
import type { ModelProvider, ModelRequest, ModelResult } from '../host/model-provider.js';
import type { Message, ToolSchema } from '../protocol/messages.js';

/** One request the scripted model was sent, as it was at that moment. */
export interface ScriptedCall {
  /** The agent that asked. */
  agent: { id: string; role: string };
  /** Its system prompt. */
  system: string;
  /** The conversation so far (a copy: later turns do not change it). */
  messages: readonly Message[];
  /** The tools it was offered. */
  tools: readonly ToolSchema[];
}

/** The scripted model as `scriptedModel()` returns it: a provider that records its calls. */
export interface ScriptedProvider extends ModelProvider {
  /** Every request, in the order they came (retries and requests the script could not answer included). */
  readonly calls: readonly ScriptedCall[];
  /**
   * Throws when a scripted turn went unused: an entry of `agents` no agent matched, or an agent that matched an
   * entry and stopped before its last turn. The message names each entry (its index, role and prompt) and what is left.
   */
  assertComplete(): void;
}

/** How far each agent got in one entry of the script: agent id -> turns answered (the highest turn index + 1). */
type Progress = Map<string, number>;

function describeEntry(script: Script, entry: number): string {
  const match = script.agents[entry]!.match;
  const parts = [match?.role !== undefined ? `role ${match.role}` : 'any role'];
  if (match?.prompt !== undefined) parts.push(`prompt /${match.prompt}/`);
  return `agents[${entry}] (${parts.join(', ')})`;
}

export class RecordingScriptedModel implements ScriptedProvider {
  readonly name: string;
  readonly capabilities: ModelProvider['capabilities'];
  private readonly recorded: ScriptedCall[] = [];
  private readonly progress: Progress[];
  private readonly model: ScriptedModel;

  constructor(
    private readonly script: Script,
    name: string,
  ) {
    this.progress = script.agents.map(() => new Map());
    this.model = new ScriptedModel(script, name, ({ entry, turn, agentId }) => {
      const seen = this.progress[entry]!;
      seen.set(agentId, Math.max(seen.get(agentId) ?? 0, turn + 1));
    });
    this.name = this.model.name;
    this.capabilities = this.model.capabilities;
  }

  get calls(): readonly ScriptedCall[] {
    return this.recorded;
  }

  complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResult> {
    this.recorded.push({
      agent: { id: request.agent.id, role: request.agent.role },
      system: request.system,
      messages: [...request.messages],
      tools: [...request.tools],
    });
    return this.model.complete(request, signal);
  }

  assertComplete(): void {
    const left: string[] = [];
    this.script.agents.forEach((entry, index) => {
      const total = entry.turns.length;
      const seen = this.progress[index]!;
      if (seen.size === 0) {
        if (total > 0) left.push(`${describeEntry(this.script, index)}: no agent matched it (${total} turn(s) unused)`);
        return;
      }
      for (const [agentId, used] of seen) {
        if (used < total)
          left.push(`${describeEntry(this.script, index)}: agent ${agentId} used ${used} of its ${total} turn(s)`);
      }
    });
    if (left.length > 0) throw new Error(`scripted model: scripted turns left unused — ${left.join('; ')}`);
  }
}
