// README "Use it from code", example 3: a custom tool for workers.
import { createMurmur, defineTool, textResult, Type } from '../../../api/index.js';

const tickets: Record<string, string> = { 'PAY-12': 'Refunds round to the cent, not down.' };

const lookupTicket = defineTool({
  def: {
    name: 'lookup_ticket',
    description: 'The text of a ticket in our tracker, by id (e.g. PAY-12).',
    parameters: Type.Object({ id: Type.String({ pattern: '^[A-Z]+-\\d+$' }) }),
    executionMode: 'parallel',
    readOnly: true, // changes nothing: runs without asking in any permission mode
  },
  execute: (_ctx, { id }) => textResult(tickets[id] ?? `No ticket ${id}.`),
});

export const closed: string[] = [];

const closeTicket = defineTool({
  def: {
    name: 'close_ticket',
    description: 'Closes a ticket once its fix is in.',
    parameters: Type.Object({ id: Type.String() }),
    // Payment tickets close only with a person's yes, even in auto mode.
    needsApproval: ({ id }) => id.startsWith('PAY-'),
  },
  execute: (_ctx, { id }) => {
    closed.push(id);
    return textResult(`Closed ${id}.`);
  },
});

export async function fixTickets(cwd: string, ids: string[]) {
  const murmur = await createMurmur({
    cwd,
    permissionMode: 'auto',
    tools: [
      { tool: lookupTicket, roles: ['worker'] },
      { tool: closeTicket, roles: ['worker'] },
    ],
    onApproval: (request) => {
      console.log(`${request.tool}: ${request.summary} (${request.reason}) -> yes`);
      return { kind: 'allow_once' };
    },
  });
  try {
    return await murmur.swarm({
      template: 'Read ticket {{item}} with lookup_ticket, fix it, then close it.',
      items: ids,
      role: 'worker',
    });
  } finally {
    await murmur.close();
  }
}
