// An in-memory TodoStore the engine can hand to its agents; `onChange` lets it emit an event for the dashboard.
import type { TodoItem, TodoStore } from '../adapters-interaction.js';

export function createMemoryTodoStore(onChange?: (agentId: string, todos: readonly TodoItem[]) => void): TodoStore {
  const lists = new Map<string, readonly TodoItem[]>();
  return {
    get: (agentId) => lists.get(agentId) ?? [],
    set(agentId, todos) {
      // Copies, so a caller mutating its array later does not change what the dashboard shows.
      const copy = Object.freeze(todos.map((todo) => Object.freeze({ title: todo.title, status: todo.status })));
      if (copy.length === 0) lists.delete(agentId);
      else lists.set(agentId, copy);
      onChange?.(agentId, copy);
    },
  };
}
