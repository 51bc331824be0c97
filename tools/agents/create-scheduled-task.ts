// create_scheduled_task: an agent proposes routine work that outlives this run — a prompt run on a cron
// schedule in this workspace. It always asks a person (in every permission mode, yolo included; allow rules
// and a headless "allow" policy do not skip it): the card says in plain words what would run, when, where
// and how. The store, the checks and the card live behind the adapter the host makes it with; the approval is
// the approve port (ApprovalPort).
import { Type } from '@sinclair/typebox';
import {
  defineRuntimeTool,
  errorResult,
  pendingResult,
  textResult,
  type RuntimeTool,
  type ToolTraits,
} from '../contract.js';
import type { ApprovalPort } from '../ports.js';

export type { ConfirmAnswer, ConfirmRequest } from '../ports.js';

export const CREATE_SCHEDULED_TASK = 'create_scheduled_task';

export interface ScheduledTaskArgs {
  cron: string;
  prompt: string;
  recurring?: boolean;
  timezone?: string;
  max_fires?: number;
  permission_mode?: 'manual' | 'auto' | 'yolo';
  title?: string;
  model?: string;
  effort?: 'low' | 'medium' | 'high';
  reason?: string;
}

/**
 * The scheduled-task store as the tool sees it, and the approval (`confirm`: asks the person, exempt from modes,
 * rules and the headless policy). Contract: `prepare` never throws; `create` answers a failure as `{ error }`.
 */
export interface ScheduledTaskAdapter extends ApprovalPort {
  /** Checks the arguments: errors naming the parameter, or the card for the person and how to create the task. */
  prepare(args: ScheduledTaskArgs): PreparedTask | Promise<PreparedTask>;
}

export type PreparedTask =
  | { ok: false; errors: string[] }
  | {
      ok: true;
      summary: string;
      card: string;
      create(): { id: string; next: readonly string[] } | { error: string };
    };

const Parameters = Type.Object(
  {
    cron: Type.String({
      description:
        'When: a standard 5-field cron "minute hour day-of-month month day-of-week", e.g. "0 9 * * 1-5" (09:00 on weekdays).',
    }),
    prompt: Type.String({
      minLength: 1,
      description: 'The instruction each run executes (shown verbatim to the person approving).',
    }),
    recurring: Type.Optional(
      Type.Boolean({ description: 'Default true: fire on every match. false: run once at the next match, then end.' }),
    ),
    timezone: Type.Optional(
      Type.String({ description: "An IANA time zone (e.g. Europe/Berlin); default the machine's." }),
    ),
    max_fires: Type.Optional(
      Type.Integer({ minimum: 1, description: 'End a recurring task after this many fires (absent: no cap).' }),
    ),
    permission_mode: Type.Optional(
      Type.Union([Type.Literal('manual'), Type.Literal('auto'), Type.Literal('yolo')], {
        description: 'As for a new session: manual (default), auto or yolo.',
      }),
    ),
    title: Type.Optional(Type.String({ description: 'A short name (default: the first line of the prompt).' })),
    model: Type.Optional(
      Type.String({
        description: "A model spec as on the command line (openai:MODEL, anthropic:MODEL…); default this run's model.",
      }),
    ),
    effort: Type.Optional(
      Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')], {
        description: 'Reasoning effort for the runs.',
      }),
    ),
    reason: Type.Optional(Type.String({ description: 'Why this task should exist (shown on the approval card).' })),
  },
  { additionalProperties: false },
);

/** create_scheduled_task's traits: it asks a person itself, every time, whatever the mode and rules. */
export const CREATE_SCHEDULED_TASK_TRAITS = { selfChecked: true } as const satisfies ToolTraits;

export function createScheduledTaskTool(adapter: ScheduledTaskAdapter): RuntimeTool {
  return defineRuntimeTool({
    def: {
      ...CREATE_SCHEDULED_TASK_TRAITS,
      name: CREATE_SCHEDULED_TASK,
      description:
        'Create a scheduled task in this workspace: `prompt` runs as a new murmur session on the `cron` schedule (5 fields), until ended. ' +
        'A person must approve it every time (the card shows the schedule, next run times, model, permission mode and prompt); the result is the new task id, ' +
        'or the reason it was rejected. Use it only when the user wants recurring or later work; for a reminder within this run use set_timer.',
      parameters: Parameters,
      executionMode: 'sequential',
    },
    execute: async (ctx, input, signal) => {
      const prepared = await adapter.prepare(input as ScheduledTaskArgs);
      if (!prepared.ok) return errorResult(`Not created: ${prepared.errors.join('; ')}.`);
      const answer = await adapter.confirm(
        { agentId: ctx.agentId, role: ctx.role, callId: ctx.callId, summary: prepared.summary, card: prepared.card },
        signal,
      );
      if (answer.kind === 'waiting') return pendingResult(answer.reason);
      if (answer.kind === 'unavailable') {
        return errorResult(
          `Not created: a scheduled task needs a person's approval, and ${answer.reason}. Nothing was scheduled; tell the user the command to create it themselves (murmur schedule add …).`,
          { approval: 'unavailable' },
        );
      }
      if (answer.kind === 'rejected') {
        const why = answer.feedback?.trim()
          ? ` The user said: ${JSON.stringify(answer.feedback.trim())}`
          : ' No reason was given.';
        return errorResult(`Not created: the user rejected the scheduled task.${why} Do not propose it again as is.`, {
          approval: 'rejected',
        });
      }
      const created = prepared.create();
      if ('error' in created) return errorResult(`Not created: ${created.error}`);
      return textResult(
        `Scheduled task ${created.id} created. Next runs: ${created.next.join(', ') || '(none left)'}. People manage it with murmur schedule show|pause|rm ${created.id}.`,
        { taskId: created.id },
      );
    },
  });
}
