// A todo list set with todo_list shows in the view model and at the top of the agent's transcript pane.
import { describe, expect, it } from 'vitest';
import { EventBus } from '../../orchestrator/events.js';
import { createMemoryTodoStore } from '../../tools/interact/todo-store.js';
import { initialSnapshot, reduce } from '../../dashboards/view-model.js';
import { renderTranscript } from '../../dashboards/tui-render.js';

describe('todo lists on the dashboard', () => {
  it('folds todo.update events into the agent and draws them above the transcript', () => {
    const bus = new EventBus(() => 1000);
    const snapshot = initialSnapshot({ now: 0 });
    bus.on('*', (e) => reduce(snapshot, e));
    bus.emit({ type: 'agent.start', agentId: 'a-1', role: 'worker', prompt: 'migrate' });
    const store = createMemoryTodoStore((agentId, todos) =>
      bus.emit({ type: 'todo.update', agentId, todos: todos.map((t) => ({ ...t })) }),
    );
    store.set('a-1', [
      { title: 'read the file', status: 'done' },
      { title: 'convert requires', status: 'in_progress' },
      { title: 'run the tests', status: 'pending' },
    ]);
    const agent = snapshot.agents.get('a-1')!;
    expect(agent.todos?.map((t) => t.status)).toEqual(['done', 'in_progress', 'pending']);
    const pane = renderTranscript(agent, 2000, 30, 80).join('\n');
    expect(pane).toContain('☑ read the file');
    expect(pane).toContain('▶ convert requires');
    expect(pane).toContain('☐ run the tests');
    expect(pane).toContain('todo list: 1/3 done');
  });
});
