// README "Use it from code", example 3: a custom tool for workers.
import { createMurmur, defineTool, textResult, Type } from '../../../api/index.js';

const tickets: Record<string, string> = { 'PAY-12': 'Refunds round to the cent, not down.' };

const lookupTicket = defineTool({
  def: {
    name: 'lookup_ticket',
    description: 'The text of a ticket in our tracker, by id (e.g. PAY-12).',
    parameters: Type.Object({ id: Type.String({ pattern: '^[A-Z]+-\\d+$' }) }),
    executionMode: 'parallel',
  },
  execute: (_ctx, { id }) => textResult(tickets[id] ?? `No ticket ${id}.`),
});

export async function fixTickets(cwd: string, ids: string[]) {
  const murmur = await createMurmur({
    cwd,
    permissionMode: 'auto',
    permissions: { allow: ['lookup_ticket'] },
    tools: [{ tool: lookupTicket, roles: ['worker'] }],
  });
  try {
    return await murmur.swarm({ template: 'Read ticket {{item}} with lookup_ticket and fix it.', items: ids, role: 'worker' });
  } finally {
    await murmur.close();
  }
}
