// todo_list: the calling agent's own checklist in the todo store it is made with. Omitted `todos` reads it; a
// list replaces it; [] clears it.
import { Type } from '@sinclair/typebox';
import type { TodoItem, TodoStatus, TodoStore } from '../adapters-interaction.js';
import { defineRuntimeTool, errorResult, textResult, type RuntimeTool, type ToolTraits } from '../contract.js';

export const MAX_TODOS = 100;
export const MAX_TODO_TITLE_CHARS = 300;

const STATUS_MARK: Record<TodoStatus, string> = { pending: '[ ]', in_progress: '[>]', done: '[x]' };

const Parameters = Type.Object(
  {
    todos: Type.Optional(
      Type.Array(
        Type.Object(
          {
            title: Type.String({
              minLength: 1,
              maxLength: MAX_TODO_TITLE_CHARS,
              description: 'What to do, in a few words.',
            }),
            status: Type.Union([Type.Literal('pending'), Type.Literal('in_progress'), Type.Literal('done')], {
              description: 'pending | in_progress | done',
            }),
          },
          { additionalProperties: false },
        ),
        {
          maxItems: MAX_TODOS,
          description: 'The whole list, replacing the previous one. Omit to read the current list; [] clears it.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export function renderTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return 'The todo list is empty.';
  const done = todos.filter((todo) => todo.status === 'done').length;
  const lines = [`Todo list (${done}/${todos.length} done):`];
  for (const todo of todos) lines.push(`${STATUS_MARK[todo.status]} ${todo.title}`);
  return lines.join('\n');
}

/** todo_list's traits: it changes only the agent's own list (read-only to the permission modes), and a subagent keeps none. */
export const TODO_LIST_TRAITS = { readOnly: true, notForSubagents: true } as const satisfies ToolTraits;

export function createTodoListTool(store: TodoStore): RuntimeTool {
  return defineRuntimeTool({
    def: {
      ...TODO_LIST_TRAITS,
      name: 'todo_list',
      description:
        'Keep your own checklist for multi-step work. Pass `todos` (the whole list of {title, status}, status pending | in_progress | done) ' +
        'to replace it, [] to clear it, or omit `todos` to read it back. Mark an item in_progress when you start it and done when it is finished.',
      parameters: Parameters,
      // Sequential: it writes, and two writes in one batch must land in call order.
      executionMode: 'sequential',
    },
    execute: (ctx, input) => {
      if (input.todos === undefined) {
        const todos = store.get(ctx.agentId);
        return textResult(renderTodos(todos), { todos });
      }
      const blank = input.todos.findIndex((todo) => todo.title.trim() === '');
      if (blank >= 0)
        return errorResult(
          `todos[${blank}].title ${JSON.stringify(input.todos[blank]!.title)} is blank; give each item a title.`,
        );
      const todos = input.todos.map((todo) => ({ title: todo.title.trim(), status: todo.status }));
      store.set(ctx.agentId, todos);
      const text = todos.length === 0 ? 'Cleared the todo list.' : `Updated. ${renderTodos(todos)}`;
      return textResult(text, { todos });
    },
  });
}
