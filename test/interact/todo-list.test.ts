import { describe, expect, it } from 'vitest';
import type { TodoItem, TodoStore } from '../../tools/adapters-interaction.js';
import { checkArguments, resultText, type ToolContext } from '../../tools/contract.js';
import { createTodoListTool } from '../../tools/interact/todo-list.js';
import { createMemoryTodoStore } from '../../tools/interact/todo-store.js';
import { buildToolRegistry } from '../../tools/registry.js';
import { makeContext, MemoryTasks, storeOf } from './context.js';

const signal = new AbortController().signal;
const definition = createTodoListTool(createMemoryTodoStore()).def;

async function call(store: TodoStore, input: { todos?: TodoItem[] }, ctx: ToolContext) {
  expect(checkArguments(definition, input)).toBeUndefined();
  return createTodoListTool(store).impl(ctx, input, signal, () => {});
}

describe('todo_list', () => {
  it('sets, reads back and clears a list, separately for each agent', async () => {
    const changes: string[] = [];
    const todos = createMemoryTodoStore((agentId, list) => changes.push(`${agentId}:${list.length}`));
    const alice = makeContext({ agentId: 'alice' });
    const bob = makeContext({ agentId: 'bob' });

    const set = await call(
      todos,
      {
        todos: [
          { title: 'read the code', status: 'done' },
          { title: ' write the fix ', status: 'in_progress' },
          { title: 'run tests', status: 'pending' },
        ],
      },
      alice,
    );
    expect(resultText(set)).toContain('Todo list (1/3 done)');
    await call(todos, { todos: [{ title: 'review', status: 'pending' }] }, bob);

    const aliceList = await call(todos, {}, alice);
    expect(resultText(aliceList)).toBe('Todo list (1/3 done):\n[x] read the code\n[>] write the fix\n[ ] run tests');
    expect(aliceList.details).toEqual({
      todos: [
        { title: 'read the code', status: 'done' },
        { title: 'write the fix', status: 'in_progress' },
        { title: 'run tests', status: 'pending' },
      ],
    });
    expect(resultText(await call(todos, {}, bob))).toContain('[ ] review');

    expect(resultText(await call(todos, { todos: [] }, alice))).toBe('Cleared the todo list.');
    expect(resultText(await call(todos, {}, alice))).toBe('The todo list is empty.');
    expect(todos.get('bob')).toHaveLength(1);
    expect(changes).toEqual(['alice:3', 'bob:1', 'alice:0']);
  });

  it('refuses a bad status and a blank title, naming them', async () => {
    expect(checkArguments(definition, { todos: [{ title: 'x', status: 'started' }] })).toContain('/todos/0/status');
    const blank = await createTodoListTool(createMemoryTodoStore()).impl(
      makeContext(),
      { todos: [{ title: '   ', status: 'pending' }] },
      signal,
      () => {},
    );
    expect(blank.isError).toBe(true);
    expect(resultText(blank)).toContain('todos[0].title "   " is blank');
  });

  it('is sequential, since it writes', () => {
    expect(definition.executionMode).toBe('sequential');
  });

  it('is offered only with a store', () => {
    const tasks = storeOf(new MemoryTasks());
    expect(buildToolRegistry({ tasks }).shared.map((t) => t.def.name)).not.toContain('todo_list');
    expect(buildToolRegistry({ tasks, todos: createMemoryTodoStore() }).shared.map((t) => t.def.name)).toContain(
      'todo_list',
    );
  });
});
