// The agent tool's seam into the scheduler: start, resume and background subagents for one parent.
import type { SubagentAdapter, SubagentOutcome, SubagentRequest, TaskOutcome } from '../tools/adapters.js';
import { knownProfileNames, resolveProfile, type AgentProfile } from '../roles/profile.js';
import type { AgentRunResult } from './agent.js';
import type { AgentRecord, Scheduler } from './scheduler.js';
import type { TaskRegistry } from './tasks.js';

export const DEFAULT_SUBAGENT_TYPE = 'coder';

export interface SubagentDeps {
  scheduler: Scheduler;
  tasks: TaskRegistry;
  definitions: ReadonlyMap<string, AgentProfile>;
}

/** The subagent types a parent may name: a defined agent's `subagents:` list, or every known type. */
export function allowedSubagentTypes(parent: AgentProfile, definitions: ReadonlyMap<string, AgentProfile>): string[] {
  if (!parent.builtin && parent.subagents && parent.subagents.length > 0) return [...parent.subagents];
  return knownProfileNames(definitions);
}

function taskStatus(result: AgentRunResult): TaskOutcome['status'] {
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
  const outcome: SubagentOutcome = { agentId: record.id, subagentType: record.profile.name, status: result.status, text: result.text };
  if (result.reason !== undefined) outcome.reason = result.reason;
  return outcome;
}

/**
 * Runs a subagent until its answer is final: background work it started reports back first (each report is
 * another turn), so its parent never gets an answer while that work still runs, and no report wakes it later
 * with nobody listening.
 */
export async function runUntilSettled(
  scheduler: Scheduler,
  tasks: TaskRegistry,
  child: AgentRecord,
  prompt: string | undefined,
  signal: AbortSignal,
  timeoutMs?: number,
): Promise<AgentRunResult> {
  child.held = true;
  const options = timeoutMs !== undefined ? { signal, timeoutMs } : { signal };
  try {
    let result = await scheduler.run(child, prompt, options);
    while (result.status === 'completed' && !signal.aborted) {
      if (child.agent.pendingMessages === 0) {
        if (tasks.activeCount(child.id) === 0) break;
        await tasks.nextEnd(child.id, signal);
        if (signal.aborted) break;
      }
      result = await scheduler.run(child, undefined, options);
    }
    // Ended otherwise (stopped, timed out, failed…): what it left running would report to nobody.
    tasks.stopAll(`its subagent ${child.id} ended (${signal.aborted ? 'stopped' : result.status}) before this task`, child.id);
    return result;
  } finally {
    child.held = false;
  }
}

export function subagentAdapter(parent: AgentRecord, deps: SubagentDeps): SubagentAdapter {
  const { scheduler, tasks, definitions } = deps;
  const allowed = () => allowedSubagentTypes(parent.profile, definitions);

  const start = async (child: AgentRecord, request: SubagentRequest, signal: AbortSignal): Promise<SubagentOutcome> => {
    if (!request.background) return outcomeOf(child, await runUntilSettled(scheduler, tasks, child, request.prompt, signal));
    const info = tasks.start(parent.id, {
      kind: 'agent',
      description: request.description,
      meta: { agentId: child.id },
      run: async (io) => {
        const result = await runUntilSettled(scheduler, tasks, child, request.prompt, io.signal);
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
        const child = scheduler.get(request.resume);
        if (!child) return { ok: false, error: `No subagent "${request.resume}" to resume. Your subagents: ${scheduler.children(parent.id).map((c) => c.id).join(', ') || 'none'}.` };
        if (child.parentId !== parent.id) return { ok: false, error: `Subagent "${request.resume}" belongs to another parent (${child.parentId ?? 'none'}); you can only resume your own subagents.` };
        if (child.agent.busy || child.held) return { ok: false, error: `Subagent "${request.resume}" is still running; wait for it (task_output) or stop it first.` };
        return { ok: true, outcome: await start(child, request, signal) };
      }
      const type = (request.subagentType ?? DEFAULT_SUBAGENT_TYPE).trim();
      const types = allowed();
      // Compare what the names resolve to, so `coder` (the default) is allowed wherever `worker` is.
      const wanted = resolveProfile(type, definitions);
      const permitted = wanted !== undefined && types.some((t) => resolveProfile(t, definitions)?.name === wanted.name);
      const profile = permitted ? wanted : undefined;
      if (!profile) return { ok: false, error: `Unknown or disallowed subagent type "${type}". Allowed types: ${types.join(', ')}.` };
      const spawned = scheduler.spawn({ profile, parentId: parent.id, description: request.description });
      if (!spawned.ok) return { ok: false, error: `No subagent started: ${spawned.error}.` };
      return { ok: true, outcome: await start(spawned.record, request, signal) };
    },
  };
}
