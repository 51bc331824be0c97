// The agent tool's seam into the agent tree: start, resume and background subagents for one parent. Which types
// a parent may start is the roles' policy (roles/subagent-policy.ts).
import type {
  SubagentAdapter,
  SubagentOutcome,
  SubagentRequest,
  TaskEndStatus,
  TaskOutcome,
} from '../tools/adapters.js';
import type { AgentProfile } from '../roles/profile.js';
import { allowedSubagentTypes, DEFAULT_SUBAGENT_TYPE, subagentProfileFor } from '../roles/subagent-policy.js';
import type { AgentRunResult } from './agent.js';
import type { Clock } from './clock.js';
import type { AgentRecord, AgentTree } from './agent-tree.js';
import type { TaskRegistry } from './tasks.js';

export interface SubagentDeps {
  agentTree: AgentTree;
  tasks: TaskRegistry;
  definitions: ReadonlyMap<string, AgentProfile>;
}

function taskStatus(result: AgentRunResult): TaskEndStatus {
  switch (result.status) {
    case 'completed':
      return 'completed';
    case 'timeout':
      return 'timeout';
    case 'aborted':
      return 'aborted';
    default:
      return 'failed';
  }
}

function outcomeOf(record: AgentRecord, result: AgentRunResult): SubagentOutcome {
  const outcome: SubagentOutcome = {
    agentId: record.id,
    subagentType: record.profile.name,
    status: result.status,
    text: result.text,
  };
  if (result.reason !== undefined) outcome.reason = result.reason;
  return outcome;
}

/**
 * Runs a subagent until its answer is final: background work it started reports back first (each report is
 * another turn), so its parent never gets an answer while that work still runs, and no report wakes it later
 * with nobody listening.
 */
export async function runUntilSettled(
  agentTree: AgentTree,
  tasks: TaskRegistry,
  child: AgentRecord,
  prompt: string | undefined,
  signal: AbortSignal,
  timeoutMs?: number,
): Promise<AgentRunResult> {
  child.held = true;
  // One deadline for the whole answer: the runs and the waits for its background work between them.
  const budgetMs = timeoutMs ?? child.profile.timeoutMs ?? agentTree.limits.agentTimeoutMs;
  const { clock } = agentTree;
  const deadline = clock.now() + budgetMs;
  const left = () => Math.max(1, deadline - clock.now());
  try {
    // The first run has the whole budget (reading the clock again could already shave a millisecond off it).
    let result = await agentTree.run(child, prompt, { signal, timeoutMs: budgetMs });
    while (result.status === 'completed' && !signal.aborted) {
      if (child.agent.pendingMessages === 0) {
        if (tasks.activeCount(child.id) === 0) break;
        const ended = await Promise.race([
          tasks.nextEnd(child.id, signal).then(() => true),
          sleepUnlessDone(left(), signal, clock),
        ]);
        if (signal.aborted) break;
        if (!ended) {
          const reason = `timed out after ${Math.round(budgetMs / 1000)} s waiting for its background work`;
          result = { ...result, status: 'timeout', reason };
          child.agent.expire(reason);
          break;
        }
      }
      result = await agentTree.run(child, undefined, { signal, timeoutMs: left() });
    }
    // Ended otherwise (stopped, timed out, failed…): what it left running would report to nobody.
    tasks.stopAll(
      `its subagent ${child.id} ended (${signal.aborted ? 'stopped' : result.status}) before this task`,
      child.id,
    );
    return result;
  } finally {
    child.held = false;
  }
}

/** Resolves false after `ms` on `clock` (or when aborted); a system timer does not keep the process alive. */
function sleepUnlessDone(ms: number, signal: AbortSignal, clock: Clock): Promise<boolean> {
  return new Promise((resolve) => {
    const onAbort = () => {
      clock.clearTimeout(timer);
      resolve(false);
    };
    // The listener goes with the timer: a parent that waits many times must not collect one per wait.
    const timer = clock.setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(false);
      },
      Math.min(ms, 2_147_483_647),
    );
    (timer as { unref?: () => void } | undefined)?.unref?.();
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function subagentAdapter(parent: AgentRecord, deps: SubagentDeps): SubagentAdapter {
  const { agentTree, tasks, definitions } = deps;
  const allowed = () => allowedSubagentTypes(parent.profile, definitions);

  const start = async (
    child: AgentRecord,
    request: Omit<SubagentRequest, 'prompt'> & { prompt: string | undefined },
    signal: AbortSignal,
  ): Promise<SubagentOutcome> => {
    if (!request.background)
      return outcomeOf(child, await runUntilSettled(agentTree, tasks, child, request.prompt, signal));
    const info = tasks.start(parent.id, {
      kind: 'agent',
      description: request.description,
      meta: { agentId: child.id },
      run: async (io) => {
        const result = await runUntilSettled(agentTree, tasks, child, request.prompt, io.signal);
        io.write(`${result.text}\n`);
        const outcome: TaskOutcome = { status: taskStatus(result), result: result.text || (result.reason ?? '') };
        return outcome;
      },
    });
    child.taskId = info.taskId;
    return { agentId: child.id, subagentType: child.profile.name, status: 'running', text: '', taskId: info.taskId };
  };

  return {
    allowedTypes: allowed,
    async run(request, signal) {
      if (request.resume !== undefined) {
        const child = agentTree.get(request.resume);
        if (!child)
          return {
            ok: false,
            error: `No subagent "${request.resume}" to resume. Your subagents: ${
              agentTree
                .children(parent.id)
                .map((c) => c.id)
                .join(', ') || 'none'
            }.`,
          };
        if (child.parentId !== parent.id)
          return {
            ok: false,
            error: `Subagent "${request.resume}" belongs to another parent (${child.parentId ?? 'none'}); you can only resume your own subagents.`,
          };
        if (child.agent.busy || child.held)
          return {
            ok: false,
            error: `Subagent "${request.resume}" is still running; wait for it (task_output) or stop it first.`,
          };
        return { ok: true, outcome: await start(child, request, signal) };
      }
      // The call that started a subagent now waiting for a person runs again: that subagent goes on, answered.
      const waiting =
        request.callId === undefined || request.background
          ? undefined
          : agentTree
              .children(parent.id)
              .find((c) => c.callId === request.callId && c.agent.status === 'waiting' && !c.agent.busy);
      if (waiting) return { ok: true, outcome: await start(waiting, { ...request, prompt: undefined }, signal) };
      const type = (request.subagentType ?? DEFAULT_SUBAGENT_TYPE).trim();
      const profile = subagentProfileFor(parent.profile, type, definitions);
      if (!profile)
        return {
          ok: false,
          error: `Unknown or disallowed subagent type "${type}". Allowed types: ${allowed().join(', ')}.`,
        };
      const spawned = agentTree.spawn({
        profile,
        parentId: parent.id,
        description: request.description,
        ...(request.callId !== undefined ? { callId: request.callId } : {}),
      });
      if (!spawned.ok) return { ok: false, error: `No subagent started: ${spawned.error}.` };
      return { ok: true, outcome: await start(spawned.record, request, signal) };
    },
  };
}
