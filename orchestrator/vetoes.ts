// Rules that protect an agent's own correctness. They run before the permission chain and no allow rule
// overrides them.
import type { ToolCall } from './types.js';

export const SWARM_ALONE_MESSAGE =
  'agent_swarm must be the only tool call in its message. Nothing in this message was run: call agent_swarm alone, ' +
  'and make the other calls after it returns.';

/** agent_swarm alone in its assistant message; otherwise every call of the message is refused. */
export function swarmAloneVeto(calls: readonly ToolCall[]): string | undefined {
  if (calls.length < 2) return undefined;
  return calls.some((c) => c.name === 'agent_swarm') ? SWARM_ALONE_MESSAGE : undefined;
}

export function batchVetoes(calls: readonly ToolCall[]): string | undefined {
  return swarmAloneVeto(calls);
}
