import { describe, expect, it } from 'vitest';
import type { TodoItem } from '../../tools/adapters-interaction.js';
import { checkArguments, resultText } from '../../tools/contract.js';
import { todoListTool } from '../../tools/interact/todo-list.js';
import { createMemoryTodoStore } from '../../tools/interact/todo-store.js';
import { makeContext } from './context.js';

const signal = new AbortController().signal;

async function call(input: { todos?: TodoItem[] }, ctx: ReturnType<typeof makeContext>) {
  expect(checkArguments(todoListTool.def, input)).toBeUndefined();
  return todoListTool.impl(ctx, input, signal, () => {});
}

describe('todo_list', () => {
  it('sets, reads back and clears a list, separately for each agent', async () => {
    const changes: string[] = [];
    const todos = createMemoryTodoStore((agentId, list) => changes.push(`${agentId}:${list.length}`));
    const alice = makeContext({ agentId: 'alice', todos });
    const bob = makeContext({ agentId: 'bob', todos });

    const set = await call({ todos: [{ title: 'read the code', status: 'done' }, { title: ' write the fix ', status: 'in_progress' }, { title: 'run tests', status: 'pending' }] }, alice);
    expect(resultText(set)).toContain('Todo list (1/3 done)');
    await call({ todos: [{ title: 'review', status: 'pending' }] }, bob);

    const aliceList = await call({}, alice);
    expect(resultText(aliceList)).toBe('Todo list (1/3 done):\n[x] read the code\n[>] write the fix\n[ ] run tests');
    expect(aliceList.details).toEqual({ todos: [{ title: 'read the code', status: 'done' }, { title: 'write the fix', status: 'in_progress' }, { title: 'run tests', status: 'pending' }] });
    expect(resultText(await call({}, bob))).toContain('[ ] review');

    expect(resultText(await call({ todos: [] }, alice))).toBe('Cleared the todo list.');
    expect(resultText(await call({}, alice))).toBe('The todo list is empty.');
    expect(todos.get('bob')).toHaveLength(1);
    expect(changes).toEqual(['alice:3', 'bob:1', 'alice:0']);
  });

  it('refuses a bad status and a blank title, naming them', async () => {
    expect(checkArguments(todoListTool.def, { todos: [{ title: 'x', status: 'started' }] })).toContain('/todos/0/status');
    const blank = await todoListTool.impl(makeContext({ todos: createMemoryTodoStore() }), { todos: [{ title: '   ', status: 'pending' }] }, signal, () => {});
    expect(blank.isError).toBe(true);
    expect(resultText(blank)).toContain('todos[0].title "   " is blank');
  });

  it('is sequential, since it writes', () => {
    expect(todoListTool.def.executionMode).toBe('sequential');
  });

  it('says so when no store is available', async () => {
    const result = await call({}, makeContext());
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('not available');
  });
});
