// Every agent of a run by id — the agent tree's own record store: its record (the permission setup labels a
// request with the asking agent's parent chain; the shell bridge asks whether it runs) and its inbox (background
// task results and timers are delivered to it). Built before everything else and filled by the agent tree as it
// spawns agents, so those parts are handed plain functions and nothing reaches a tree that does not exist yet.
import type { AgentRecord } from './agent-tree-types.js';
import type { UserMessage } from './types.js';

export type Deliver = (agentId: string, message: UserMessage) => boolean;

export class AgentDirectory {
  private readonly records = new Map<string, AgentRecord>();

  /** Called by the agent tree once the agent exists. */
  register(record: AgentRecord): void {
    this.records.set(record.id, record);
  }

  readonly get = (agentId: string): AgentRecord | undefined => this.records.get(agentId);

  has(agentId: string): boolean {
    return this.records.has(agentId);
  }

  /** Every agent, in the order they were spawned. */
  values(): IterableIterator<AgentRecord> {
    return this.records.values();
  }

  /** Delivers to an agent's inbox (it joins after the current batch, or wakes the agent); false for an unknown id. */
  readonly deliver: Deliver = (agentId, message) => {
    const record = this.records.get(agentId);
    if (!record) return false;
    record.agent.enqueue(message);
    return true;
  };
}
