// Waiting for a run's work to end: no agent running, no background task active, no timer pending — or, once the run
// is stopped, its tasks and timers cancelled and its agents idle.
import type { AgentTree } from './agent-tree.js';
import type { Clock } from './clock.js';
import type { EventBus } from './events.js';
import type { TaskRegistry } from './tasks.js';
import type { TimerService } from './timers.js';

export interface Work {
  agentTree: AgentTree;
  tasks: TaskRegistry;
  timers: TimerService;
  bus: EventBus;
  clock: Clock;
}

/** Resolves when no agent runs, no background task is active and no timer is pending (or the run was stopped). */
export async function settleWork({ agentTree, tasks, timers, bus, clock }: Work): Promise<void> {
  for (;;) {
    const busy = agentTree.busyCount > 0 || tasks.activeCount() > 0 || timers.count() > 0;
    if (!busy) return;
    if (agentTree.stopping) {
      tasks.stopAll('the run was aborted');
      timers.cancel();
      await agentTree.whenIdle();
      return;
    }
    await new Promise<void>((wake) => {
      const offs = [bus.on('agent.end', done), bus.on('task.end', done), bus.on('agent.start', done)];
      // agent.end comes just before the agent tree counts the agent as stopped: wait for that too.
      if (agentTree.busyCount > 0) offs.push(agentTree.onceIdle(done));
      // A safety net on the run's clock, should a wake-up be missed.
      const timer = clock.setTimeout(done, 1000);
      function done() {
        clock.clearTimeout(timer);
        for (const off of offs) off();
        wake();
      }
    });
  }
}
