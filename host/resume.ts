// Resuming a run: the parent lost its waiting tool calls with the process, so it is told which subagents can be
// continued (the same note `murmur resume` sends).
import type { Engine } from '../orchestrator/engine.js';
import type { AgentRecord } from '../orchestrator/agent-tree.js';

export function noteInterruptedSubagents(engine: Engine, interrupted: readonly AgentRecord[]): void {
  const children = interrupted.filter((r) => r.parentId !== undefined);
  const main = engine.agentTree.get('main');
  if (!main || children.length === 0) return;
  const list = children.map((r) => `${r.id} (${r.profile.name}${r.description ? `: ${r.description}` : ''})`).join(', ');
  main.agent.enqueue({
    role: 'user',
    content: `<session-resumed>The process stopped and this session was resumed. These subagents were interrupted and can be continued with the agent tool's resume parameter: ${list}.</session-resumed>`,
    synthetic: { kind: 'session-resumed' },
  }, false);
  if (main.agent.status === 'completed') main.agent.interrupt();
}
