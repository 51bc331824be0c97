// The ports through which built-in tools reach what the engine owns. A tool that needs a port receives it when it
// is made (`createTaskTools(tasks)`, `createSetTimerTool(timers)`…, as pi-mono's `createReadTool(cwd, { operations })`),
// so no tool checks for a missing one, and the registry (registry.ts) makes exactly the tools whose ports it is
// given. Where each port lives:
//   ask       UserChannel        adapters-interaction.ts  (ask_user_question)
//   plan      PlanModeAdapter    adapters-interaction.ts  (enter_plan_mode, exit_plan_mode)
//   approve   ApprovalPort       here                     (create_scheduled_task)
//   tasks     TaskStore          here                     (task_*; bash and ask_user_question in the background)
//   timers    TimerPort          here                     (set_timer)
//   todos, skills, web, search   adapters-interaction.ts  (todo_list, skill, fetch_url, web_search)
//   subagents, swarm             adapters.ts              (agent, agent_swarm: made per agent, their ports are its own)
// The engine's side of the tool-call pipeline (the permission gate, the result budget) is in
// orchestrator/runtime-ports.ts.
import type { BackgroundTasks } from './adapters.js';

/**
 * The background task store, seen one owner at a time: each call passes the calling agent's id.
 * Contract: `viewFor` never throws. In a view, `start` throws only when the task's log cannot be created (the tool
 * call then fails with that message); `list`, `get`, `stop` never throw; `wait` and `tail` never reject. A task of
 * another owner is invisible: `get` and `wait` give undefined, `tail` '', `stop` does nothing.
 */
export interface TaskStore {
  viewFor(agentId: string): BackgroundTasks;
}

/** A timer that set_timer registered. */
export interface TimerHandle {
  timerId: string;
  /** Epoch milliseconds. */
  dueAt: number;
}

/**
 * Timers: a message delivered to the agent's inbox once, after the delay (several due at once collapse into one
 * message). Contract: `set` never throws; the delay is already checked and rounded by the tool (1 to 1440 minutes).
 */
export interface TimerPort {
  set(agentId: string, delayMinutes: number, message: string): TimerHandle;
}

/** What a person is asked to approve: who asks, and a card in plain words. */
export interface ConfirmRequest {
  agentId: string;
  role: string;
  callId: string;
  /** One line: what would happen. */
  summary: string;
  /** The card shown to the person (plain words, several lines). */
  card: string;
}

export type ConfirmAnswer =
  | { kind: 'approved' }
  | { kind: 'rejected'; feedback?: string }
  | { kind: 'unavailable'; reason: string }
  /** Held for a person who is not here now (an interruption): the call stays open until a resume answers it. */
  | { kind: 'waiting'; reason: string };

/**
 * approve: asks a person to approve one action, exempt from the permission mode, the rules and a headless
 * "allow" policy (create_scheduled_task's card). Only the asking call waits. Contract: never rejects — nobody to
 * answer, a dismissed prompt or an aborted signal all resolve `unavailable` with the reason.
 */
export interface ApprovalPort {
  confirm(request: ConfirmRequest, signal: AbortSignal): Promise<ConfirmAnswer>;
}
