// Plan mode's state per agent and the limits it puts on calls. The limits are vetoes: they run before the
// permission rules and no allow rule (and no mode) lifts them.
import path from 'node:path';
import type { PlanModeState } from '../../tools/adapters-interaction.js';
import { builtinToolsWhere } from '../../tools/builtin-traits.js';
import type { ToolCall } from '../types.js';
import type { CallSubject } from './subject.js';

export class PlanModeStore {
  private readonly states = new Map<string, { planPath: string }>();

  state(agentId: string): PlanModeState {
    const entry = this.states.get(agentId);
    return entry ? { active: true, planPath: entry.planPath } : { active: false };
  }

  enter(agentId: string, planPath: string): void {
    this.states.set(agentId, { planPath: path.resolve(planPath) });
  }

  exit(agentId: string): void {
    this.states.delete(agentId);
  }
}

/** The built-in tools plan mode keeps to the plan file: those that change the file their path names (`writesPath`). */
export const PLAN_WRITERS: ReadonlySet<string> = builtinToolsWhere((t) => t.writesPath === true);

/** Whether a write or edit goes to the plan file itself (compared as absolute, normalised paths). */
export function isPlanFileWrite(subject: CallSubject, state: PlanModeState): boolean {
  return (
    state.active &&
    PLAN_WRITERS.has(subject.tool) &&
    subject.path !== undefined &&
    subject.path.absolute === state.planPath
  );
}

/** The refusal for a call plan mode forbids, or undefined. */
export function planModeVeto(subject: CallSubject, state: PlanModeState): string | undefined {
  if (!state.active) return undefined;
  if (PLAN_WRITERS.has(subject.tool) && !isPlanFileWrite(subject, state)) {
    const target = subject.path?.input ?? '(no path)';
    return (
      `You are in plan mode: ${subject.tool} may only touch your plan file ${state.planPath}, so ${JSON.stringify(target)} was not changed. ` +
      'Write the plan there, then call exit_plan_mode to present it; make the change after the plan is approved.'
    );
  }
  if (subject.tool === 'task_stop') {
    return 'You are in plan mode: task_stop is refused until your plan is approved. Finish the plan and call exit_plan_mode.';
  }
  return undefined;
}

export const EXIT_PLAN_ALONE_MESSAGE =
  "exit_plan_mode must be the only tool call in its message, so you read the user's answer before acting on the plan. " +
  'Nothing in this message was run: call exit_plan_mode alone.';

/** A batch veto: exit_plan_mode shares its message with no other call. */
export function exitPlanAloneVeto(calls: readonly ToolCall[]): string | undefined {
  if (calls.length < 2) return undefined;
  return calls.some((c) => c.name === 'exit_plan_mode') ? EXIT_PLAN_ALONE_MESSAGE : undefined;
}
