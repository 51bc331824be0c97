// The engine's translation from what a host hands it today (registry switches + interaction ports) to the
// registry's ports: a tool is made exactly when its port exists, and the host's switch lets it through.
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { EventBus, type MurmurEvent } from '../../orchestrator/events.js';
import { toolPortsFrom, type HostToolChoices } from '../../orchestrator/tool-ports.js';
import type { UserChannel } from '../../tools/adapters-interaction.js';
import { defineRuntimeTool } from '../../tools/contract.js';
import { createMemoryTodoStore } from '../../tools/interact/todo-store.js';
import { buildToolRegistry } from '../../tools/registry.js';

const tasks = {
  viewFor: () => {
    throw new Error('unused');
  },
};
const timers = { set: () => ({ timerId: 't-1', dueAt: 0 }) };
const user: UserChannel = { availability: () => ({ canAsk: true }), ask: () => Promise.reject(new Error('unused')) };
const search = { name: 'fake', search: () => Promise.resolve([]) };
const hostTool = (name: string) =>
  defineRuntimeTool({
    def: { name, description: name, parameters: Type.Object({}) },
    execute: () => ({ content: [] }),
    source: 'configured',
  });
const names = (host: HostToolChoices, without: readonly string[] = []) =>
  buildToolRegistry(toolPortsFrom(host, { tasks, timers, bus: new EventBus() }, without)).shared.map((t) => t.def.name);

describe('toolPortsFrom', () => {
  it('gives a tool its port only where the host switched it on and has the port', () => {
    expect(names({ registry: { askUser: true, webSearch: true } })).not.toContain('ask_user_question');
    expect(names({ registry: { askUser: true, webSearch: true }, interaction: { user, search } })).toEqual(
      expect.arrayContaining(['ask_user_question', 'web_search']),
    );
    expect(names({ interaction: { user, search } })).not.toContain('ask_user_question');
    // fetch_url needs only the switch: without a policy of the host's it fetches under the defaults.
    expect(names({ registry: { fetch: true } })).toContain('fetch_url');
  });

  it('always has todo_list and set_timer unless left out; MURMUR_DISABLE_CRON leaves out set_timer and the host’s cron tool', () => {
    expect(names({})).toEqual(expect.arrayContaining(['todo_list', 'set_timer']));
    const host = { registry: { extra: [hostTool('create_scheduled_task'), hostTool('deploy')] } };
    const without = names(host, ['set_timer', 'create_scheduled_task']);
    expect(without).not.toContain('set_timer');
    expect(without).not.toContain('create_scheduled_task');
    expect(without).toContain('deploy');
  });

  it('keeps the host’s todo store, else makes one that reports to the bus', () => {
    const own = createMemoryTodoStore();
    expect(toolPortsFrom({ interaction: { todos: own } }, { tasks, timers, bus: new EventBus() }).todos).toBe(own);
    const bus = new EventBus();
    const events: MurmurEvent[] = [];
    bus.on('todo.update', (e) => events.push(e));
    toolPortsFrom({}, { tasks, timers, bus }).todos!.set('a-1', [{ title: 'x', status: 'pending' }]);
    expect(events).toEqual([
      expect.objectContaining({ type: 'todo.update', agentId: 'a-1', todos: [{ title: 'x', status: 'pending' }] }),
    ]);
  });
});
