// task_list, task_output and task_stop: the background tasks of the calling agent, made with the task store.
import { Type } from '@sinclair/typebox';
import type { TaskInfo } from '../adapters.js';
import { defineRuntimeTool, errorResult, textResult, type RuntimeTool, type ToolTraits } from '../contract.js';
import type { TaskStore } from '../ports.js';

const OUTPUT_INLINE_BYTES = 32 * 1024;

export const TASK_TOOL_NAMES = ['task_list', 'task_output', 'task_stop'] as const;

/** task_list's traits: it only lists the agent's background tasks. */
export const TASK_LIST_TRAITS = { readOnly: true, controlsTasks: true } as const satisfies ToolTraits;

/** task_output's traits: it only reads a background task's status and output. */
export const TASK_OUTPUT_TRAITS = { readOnly: true, controlsTasks: true } as const satisfies ToolTraits;

/** task_stop's traits: it stops a running task, so it asks like any tool that changes things. */
export const TASK_STOP_TRAITS = { controlsTasks: true } as const satisfies ToolTraits;

function describeTask(info: TaskInfo): string {
  const agent = info.meta?.agentId ? ` agent=${info.meta.agentId}` : '';
  return `${info.taskId} [${info.kind}] ${info.status}${agent} — ${info.description}`;
}

/** task_list, task_output and task_stop, in that order. */
export function createTaskTools(tasks: TaskStore): RuntimeTool[] {
  return [createTaskListTool(tasks), createTaskOutputTool(tasks), createTaskStopTool(tasks)];
}

function createTaskListTool(store: TaskStore): RuntimeTool {
  return defineRuntimeTool({
    def: {
      ...TASK_LIST_TRAITS,
      name: 'task_list',
      description: 'List your background tasks (commands and subagents started with run_in_background).',
      parameters: Type.Object({
        active_only: Type.Optional(Type.Boolean({ description: 'Only running tasks (default true).' })),
        limit: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 100, description: 'At most this many, newest last (default 20).' }),
        ),
      }),
      executionMode: 'parallel',
    },
    execute(ctx, input) {
      const tasks = store
        .viewFor(ctx.agentId)
        .list({ activeOnly: input.active_only ?? true, limit: input.limit ?? 20 });
      if (tasks.length === 0)
        return textResult(
          input.active_only === false ? 'You have no background tasks.' : 'You have no running background tasks.',
        );
      return textResult(tasks.map(describeTask).join('\n'), tasks);
    },
  });
}

function createTaskOutputTool(store: TaskStore): RuntimeTool {
  return defineRuntimeTool({
    def: {
      ...TASK_OUTPUT_TRAITS,
      name: 'task_output',
      description:
        'Status and the latest output of one background task (at most the last 32 KB inline; output_path holds the full log, read it with read). ' +
        'With block=true, wait for the task to end (up to timeout seconds).',
      parameters: Type.Object({
        task_id: Type.String({ minLength: 1 }),
        block: Type.Optional(Type.Boolean({ description: 'Wait for the task to end (default false).' })),
        timeout: Type.Optional(
          Type.Number({ minimum: 0, maximum: 3600, description: 'Seconds to wait when blocking (default 30).' }),
        ),
      }),
      executionMode: 'parallel',
    },
    async execute(ctx, input, signal) {
      const tasks = store.viewFor(ctx.agentId);
      let info = tasks.get(input.task_id);
      if (!info) return errorResult(`No background task "${input.task_id}" of yours. Use task_list to see your tasks.`);
      if (input.block && info.status === 'running')
        info = (await tasks.wait(input.task_id, (input.timeout ?? 30) * 1000, signal)) ?? info;
      const output = await tasks.tail(input.task_id, OUTPUT_INLINE_BYTES);
      const lines = [
        `task_id: ${info.taskId}`,
        `status: ${info.status}`,
        `output_path: ${info.outputPath}`,
        ...(info.result !== undefined ? [`result: ${info.result}`] : []),
        `output (last ${OUTPUT_INLINE_BYTES / 1024} KB at most):`,
        output || '(no output yet)',
      ];
      return textResult(lines.join('\n'), info);
    },
  });
}

function createTaskStopTool(store: TaskStore): RuntimeTool {
  return defineRuntimeTool({
    def: {
      ...TASK_STOP_TRAITS,
      name: 'task_stop',
      description:
        'Stop one of your background tasks. Safe on a task that already ended. A stopped task sends no completion notification.',
      parameters: Type.Object({
        task_id: Type.String({ minLength: 1 }),
        reason: Type.Optional(Type.String({ description: 'Why (default "Stopped by TaskStop").' })),
      }),
    },
    execute(ctx, input) {
      const tasks = store.viewFor(ctx.agentId);
      const before = tasks.get(input.task_id);
      if (!before)
        return errorResult(`No background task "${input.task_id}" of yours. Use task_list to see your tasks.`);
      if (before.status !== 'running')
        return textResult(`Task ${input.task_id} had already ended (${before.status}); nothing to stop.`, before);
      const info = tasks.stop(input.task_id, input.reason ?? 'Stopped by TaskStop');
      return textResult(`Stopped task ${input.task_id}.`, info);
    },
  });
}
