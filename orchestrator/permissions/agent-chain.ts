// An asking agent and the agents above it, as the permission setup needs them: the chain a request is labelled with
// (`a-7 (worker) ← a-3 (lead) ← main`), and whether any of them runs in the background.
import type { AgentLabel, Requester } from './asker.js';

/** What the setup needs to know of an agent to label its requests (the scheduler's AgentRecord fits). */
export interface AgentLookupRecord {
  id: string;
  parentId?: string;
  profile: { name: string };
  /** Set when it runs as a background task: nobody waits on its calls, so they are never held. */
  taskId?: string;
}

export type AgentLookup = (agentId: string) => AgentLookupRecord | undefined;

const MAX_CHAIN = 64;

/** The asking agent and its ancestors, nearest first (at most 64: a broken tree cannot loop). */
export function requesterOf(agents: AgentLookup | undefined, agentId: string, role: string): Requester {
  const chain: AgentLabel[] = [];
  let parentId = agents?.(agentId)?.parentId;
  while (parentId !== undefined && chain.length < MAX_CHAIN) {
    const parent = agents?.(parentId);
    chain.push({ agentId: parentId, role: parent?.profile.name ?? '?' });
    parentId = parent?.parentId;
  }
  return { agentId, role, chain };
}

/** Whether the agent, or an agent above it, runs as a background task. */
export function inBackground(agents: AgentLookup | undefined, agentId: string): boolean {
  let agent = agents?.(agentId);
  for (let n = 0; agent && n < MAX_CHAIN; n++) {
    if (agent.taskId !== undefined) return true;
    agent = agent.parentId !== undefined ? agents?.(agent.parentId) : undefined;
  }
  return false;
}
