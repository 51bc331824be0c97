// Small helpers for core tests: a scripted agent wired by hand, and a deferred promise.
import { Agent } from '../../orchestrator/agent.js';
import { EventBus, type MurmurEvent } from '../../orchestrator/events.js';
import type { LoopConfig } from '../../orchestrator/loop.js';
import { ScriptedModel, type Script } from '../../orchestrator/models/scripted.js';
import type { RuntimeTool } from '../../tools/contract.js';
import { toLoopTools } from '../../tools/loop-tools.js';

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A scripted agent on its own bus; `subscribe: false` leaves the bus without listeners (events go nowhere). */
export function scriptedAgent(
  script: Script,
  tools: RuntimeTool[],
  extra: Partial<LoopConfig> = {},
  role = 'main',
  options: { subscribe?: boolean; onIdleMessage?: (agent: Agent) => void } = {},
) {
  const model = new ScriptedModel(script);
  const bus = new EventBus();
  const events: MurmurEvent[] = [];
  if (options.subscribe !== false) bus.on('*', (e) => events.push(e));
  const loopTools = toLoopTools(tools, { fallback: false });
  const agent = new Agent(
    { id: 'a1', role },
    {
      system: 'test',
      maxTurns: 20,
      callModel: (request, signal) => model.complete(request, signal),
      toolsForTurn: () => loopTools,
      context: { agentId: 'a1', role, cwd: process.cwd() },
      ...extra,
    },
    bus,
    [],
    undefined,
    options.onIdleMessage,
  );
  return { agent, bus, events, model };
}
