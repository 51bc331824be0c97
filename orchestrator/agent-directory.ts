// Every agent of a run by id: its record (the permission setup labels a request with the asking agent's parent
// chain) and its inbox (background task results and timers are delivered to it). Built before everything else
// and filled by the agent tree as it spawns agents, so the permission setup, the task registry and the timers are
// handed plain functions and nothing reaches an agent tree that does not exist yet.
import type { AgentRecord } from './agent-tree.js';
import type { UserMessage } from './types.js';

export type Deliver = (agentId: string, message: UserMessage) => boolean;

export class AgentDirectory {
  private readonly records = new Map<string, AgentRecord>();

  /** Called by the agent tree once the agent exists. */
  register(record: AgentRecord): void {
    this.records.set(record.id, record);
  }

  readonly get = (agentId: string): AgentRecord | undefined => this.records.get(agentId);

  /** Delivers to an agent's inbox (it joins after the current batch, or wakes the agent); false for an unknown id. */
  readonly deliver: Deliver = (agentId, message) => {
    const record = this.records.get(agentId);
    if (!record) return false;
    record.agent.enqueue(message);
    return true;
  };
}
