// enter_plan_mode and exit_plan_mode: an agent first writes a plan to its plan file (nothing else may change
// while it plans), then presents it; the user's answer decides whether it carries it out. The per-agent state
// and the approval live behind the PlanModeAdapter the tools are made with (the permission setup's).
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { PlanDecision, PlanModeAdapter, PlanOption } from '../adapters-interaction.js';
import {
  defineRuntimeTool,
  errorResult,
  pendingResult,
  textResult,
  type RuntimeTool,
  type ToolContext,
  type ToolDefinition,
  type ToolTraits,
} from '../contract.js';
import { isInside } from '../fs/workspace-paths.js';
import { isRecord } from '../util/is-record.js';

export const MIN_PLAN_OPTIONS = 1;
export const MAX_PLAN_OPTIONS = 3;
export const MAX_PLAN_LABEL_CHARS = 80;
/** The answers every plan prompt already offers; an option may not take their names. */
export const RESERVED_PLAN_LABELS = ['Approve', 'Reject', 'Reject and Exit', 'Revise'] as const;
/** More than this is cut when presented (the file keeps it all). */
export const MAX_PLAN_CHARS = 100_000;

/**
 * `<session>/plans/<agentId>.md`; when the session folder lies outside the workspace (MURMUR_HOME elsewhere) or
 * there is none, `<workspace>/.murmur/plans/<agentId>.md`, since write may only touch the workspace.
 */
export function planFilePath(ctx: Pick<ToolContext, 'agentId' | 'cwd' | 'workspace' | 'session'>): string {
  const root = path.resolve(ctx.workspace?.root ?? ctx.cwd);
  const file = `${ctx.agentId.replace(/[^A-Za-z0-9_.-]/g, '_')}.md`;
  const sessionDir = ctx.session ? path.resolve(ctx.session.dir) : undefined;
  if (sessionDir !== undefined && isInside(root, sessionDir)) return path.join(sessionDir, 'plans', file);
  return path.join(root, '.murmur', 'plans', file);
}

export function planModeGuidance(planPath: string): string {
  return [
    'You are now in plan mode.',
    `Your plan file: ${planPath}`,
    '',
    'While in plan mode:',
    '- Explore first: read, grep and glob freely; other tools follow the usual permission rules.',
    '- write and edit may only touch your plan file; task_stop is refused. Change nothing else until the plan is approved.',
    '- Write the plan to the plan file (write): the goal, the files to change and how, the steps in order, how you will verify the result, and risks or open questions.',
    `- When it is ready, call exit_plan_mode alone (no other call in that message) to present it for approval. You may offer ${MIN_PLAN_OPTIONS}-${MAX_PLAN_OPTIONS} alternatives as \`options\` (label and description).`,
    '- The answer comes back as the result of exit_plan_mode: approved (carry it out), an alternative chosen, revise (update the plan and present it again), rejected, or rejected and exit (stop).',
  ].join('\n');
}

/** enter_plan_mode's traits: entering plan mode only limits the agent. */
export const ENTER_PLAN_MODE_TRAITS = { selfChecked: true } as const satisfies ToolTraits;

const enterDefinition: ToolDefinition = {
  ...ENTER_PLAN_MODE_TRAITS,
  name: 'enter_plan_mode',
  description:
    'Enter plan mode before a large or risky change: you explore and write a plan to your plan file (nothing else may change), ' +
    'then present it with exit_plan_mode for the user to approve. Takes no parameters; returns the workflow and the plan file path.',
  parameters: Type.Object({}, { additionalProperties: false }),
  prepareArguments: (raw) => (raw === null || raw === undefined ? {} : raw),
  executionMode: 'sequential',
};

function createEnterPlanModeTool(planMode: PlanModeAdapter): RuntimeTool {
  return defineRuntimeTool({
    def: enterDefinition,
    execute: async (ctx) => {
      const current = planMode.state(ctx.agentId);
      if (current.active && current.planPath) {
        return textResult(`You are already in plan mode.\n\n${planModeGuidance(current.planPath)}`, {
          planPath: current.planPath,
        });
      }
      const planPath = planFilePath(ctx);
      try {
        await mkdir(path.dirname(planPath), { recursive: true });
      } catch (error) {
        return errorResult(
          `Plan mode could not start: the folder of the plan file ${planPath} cannot be created (${(error as NodeJS.ErrnoException).code ?? String(error)}).`,
        );
      }
      planMode.enter(ctx.agentId, planPath);
      return textResult(planModeGuidance(planPath), { planPath });
    },
  });
}

// ---- exit_plan_mode ----

interface ExitArgs {
  options?: PlanOption[];
}

function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}

/** Checks exit_plan_mode's arguments by hand, so each message quotes the bad value and says what is accepted. */
export function checkExitPlanArgs(args: unknown): string | undefined {
  if (!isRecord(args)) return `the arguments must be an object (with optional "options"), got ${quote(args)}`;
  const problems: string[] = [];
  for (const key of Object.keys(args))
    if (key !== 'options') problems.push(`${quote(key)} is not a parameter (accepted: options)`);
  const options = args.options;
  if (options !== undefined) {
    if (!Array.isArray(options))
      problems.push(
        `options must be a list of ${MIN_PLAN_OPTIONS} to ${MAX_PLAN_OPTIONS} alternatives, got ${quote(options)}`,
      );
    else {
      if (options.length < MIN_PLAN_OPTIONS || options.length > MAX_PLAN_OPTIONS) {
        problems.push(
          `options has ${options.length} alternatives; give ${MIN_PLAN_OPTIONS} to ${MAX_PLAN_OPTIONS}, or leave options out`,
        );
      }
      const seen = new Map<string, number>();
      options.forEach((option, index) => {
        const at = `options[${index}]`;
        if (!isRecord(option)) {
          problems.push(`${at} must be an object with label and description, got ${quote(option)}`);
          return;
        }
        for (const key of Object.keys(option))
          if (key !== 'label' && key !== 'description')
            problems.push(`${at}: ${quote(key)} is not a field (accepted: label, description)`);
        const { label, description } = option;
        if (typeof label !== 'string' || label.trim() === '')
          problems.push(`${at}.label must be a non-empty string, got ${quote(label)}`);
        else {
          const trimmed = label.trim();
          const chars = [...trimmed].length;
          if (chars > MAX_PLAN_LABEL_CHARS)
            problems.push(
              `${at}.label is ${chars} characters long; at most ${MAX_PLAN_LABEL_CHARS}: ${quote(trimmed)}`,
            );
          const reserved = RESERVED_PLAN_LABELS.find((word) => word.toLowerCase() === trimmed.toLowerCase());
          if (reserved)
            problems.push(
              `${at}.label ${quote(trimmed)} is reserved (the prompt always offers ${RESERVED_PLAN_LABELS.join(', ')}); name the alternative itself`,
            );
          const key = trimmed.toLowerCase();
          const earlier = seen.get(key);
          if (earlier !== undefined)
            problems.push(`${at}.label ${quote(trimmed)} repeats options[${earlier}].label; labels must be unique`);
          else seen.set(key, index);
        }
        if (typeof description !== 'string' || description.trim() === '')
          problems.push(`${at}.description must be a non-empty string, got ${quote(description)}`);
      });
    }
  }
  return problems.length > 0 ? problems.join('; ') : undefined;
}

const ExitParameters = Type.Object(
  {
    options: Type.Optional(
      Type.Array(
        Type.Object(
          {
            label: Type.String({
              minLength: 1,
              maxLength: MAX_PLAN_LABEL_CHARS,
              description: `A short name for the alternative (at most ${MAX_PLAN_LABEL_CHARS} characters, not ${RESERVED_PLAN_LABELS.join(', ')}).`,
            }),
            description: Type.String({ minLength: 1, description: 'What choosing it means.' }),
          },
          { additionalProperties: false },
        ),
        {
          minItems: MIN_PLAN_OPTIONS,
          maxItems: MAX_PLAN_OPTIONS,
          description: `${MIN_PLAN_OPTIONS}-${MAX_PLAN_OPTIONS} alternatives the user may pick instead of a plain approval.`,
        },
      ),
    ),
  },
  { additionalProperties: false },
);

function answerText(decision: PlanDecision, planPath: string, options: readonly PlanOption[]): string {
  switch (decision.kind) {
    case 'approve':
      return `The user approved your plan. You have left plan mode: carry out the plan now (it is in ${planPath}).`;
    case 'option': {
      const chosen = options.find((o) => o.label === decision.label);
      const what = chosen ? `${JSON.stringify(chosen.label)}: ${chosen.description}` : JSON.stringify(decision.label);
      return `The user chose the alternative ${what}. You have left plan mode: carry out the plan (${planPath}) with this choice.`;
    }
    case 'revise':
      return `The user wants the plan revised: ${JSON.stringify(decision.feedback)}. You are still in plan mode: update the plan file ${planPath} and call exit_plan_mode again.`;
    case 'reject':
      return (
        `The plan was rejected${decision.reason ? `: ${decision.reason}` : ''}. You are still in plan mode and nothing was changed. ` +
        'Rethink the approach and present a new plan, or say in your reply what you need to go on.'
      );
    case 'reject_and_exit':
      return (
        `The user rejected the plan and ended plan mode${decision.reason ? `: ${decision.reason}` : ''}. ` +
        'Do not carry out this plan: stop, and sum up in your reply where things stand.'
      );
  }
}

/** exit_plan_mode's traits: it asks for the plan's approval itself. */
export const EXIT_PLAN_MODE_TRAITS = { selfChecked: true } as const satisfies ToolTraits;

const exitDefinition: ToolDefinition<typeof ExitParameters> = {
  ...EXIT_PLAN_MODE_TRAITS,
  name: 'exit_plan_mode',
  description:
    'Present the plan in your plan file to the user for approval (call it alone in its message). Optional `options`: ' +
    `${MIN_PLAN_OPTIONS}-${MAX_PLAN_OPTIONS} alternatives, each a label (at most ${MAX_PLAN_LABEL_CHARS} characters, not ${RESERVED_PLAN_LABELS.join(', ')}) and a description. ` +
    'The answer comes back as the result: approved or an alternative chosen (plan mode ends: carry it out), revise with feedback or rejected (you stay in plan mode), or rejected and exit (stop).',
  parameters: ExitParameters,
  prepareArguments: (raw) => (raw === null || raw === undefined ? {} : raw),
  validate: checkExitPlanArgs,
  executionMode: 'sequential',
};

function createExitPlanModeTool(planMode: PlanModeAdapter): RuntimeTool {
  return defineRuntimeTool({
    def: exitDefinition,
    execute: async (ctx, input, signal) => {
      const state = planMode.state(ctx.agentId);
      if (!state.active || !state.planPath) {
        return errorResult(
          'You are not in plan mode: call enter_plan_mode first, write your plan to the plan file it names, then call exit_plan_mode.',
        );
      }
      const planPath = state.planPath;
      let plan: string;
      try {
        plan = await readFile(planPath, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT')
          return errorResult(
            `Your plan file ${planPath} does not exist yet: write your plan there first, then call exit_plan_mode again.`,
          );
        return errorResult(`Your plan file ${planPath} could not be read (${code ?? String(error)}).`);
      }
      if (plan.trim() === '')
        return errorResult(
          `Your plan file ${planPath} is empty: write your plan there first, then call exit_plan_mode again.`,
        );
      if (plan.length > MAX_PLAN_CHARS)
        plan = `${plan.slice(0, MAX_PLAN_CHARS)}\n… (cut: the whole plan is in ${planPath})`;
      const options = ((input as ExitArgs).options ?? []).map((o) => ({
        label: o.label.trim(),
        description: o.description.trim(),
      }));
      const decision = await planMode.review(
        { agentId: ctx.agentId, role: ctx.role, callId: ctx.callId, planPath, plan, options },
        signal,
      );
      if (decision.kind === 'waiting') return pendingResult(decision.reason);
      if (decision.kind === 'option' && !options.some((o) => o.label === decision.label)) {
        return errorResult(
          `The answer named the alternative ${JSON.stringify(decision.label)}, which this plan did not offer; the plan is not approved. Call exit_plan_mode again.`,
        );
      }
      if (decision.kind === 'approve' || decision.kind === 'option' || decision.kind === 'reject_and_exit')
        planMode.exit(ctx.agentId);
      return textResult(answerText(decision, planPath, options), { decision, planPath });
    },
  });
}

export const PLAN_MODE_TOOL_NAMES = ['enter_plan_mode', 'exit_plan_mode'] as const;

/** enter_plan_mode and exit_plan_mode over one plan-mode adapter, for the host's registry (the permission setup's tools). */
export function createPlanModeTools(planMode: PlanModeAdapter): RuntimeTool[] {
  return [createEnterPlanModeTool(planMode), createExitPlanModeTool(planMode)];
}
