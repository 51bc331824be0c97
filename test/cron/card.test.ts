// The scheduled-task card on the two askers people see: the dashboard's modal and the terminal prompt. A card
// is approved or rejected one at a time: no "allow always" is offered.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { approvalModal, terminalAsker } from '../../cli/approvals.js';
import type { ApprovalRequest } from '../../orchestrator/permissions/asker.js';
import { describeCron } from '../../scheduler/cron-fields.js';

const card =
  'Title:           Nightly audit\nSchedule:        at 03:00 every day (time zone UTC)\nPrompt:\n  Audit the deps';
const request: ApprovalRequest = {
  requester: { agentId: 'a-2', role: 'planner', chain: [{ agentId: 'main', role: 'main' }] },
  callId: 'c1',
  tool: 'create_scheduled_task',
  summary: 'create the scheduled task "Nightly audit"',
  detail: card,
  card,
  reason: 'create_scheduled_task always asks, in every permission mode',
  alwaysRules: [],
};

describe('the scheduled-task card', () => {
  it('fills the dashboard modal, with approve and reject only', () => {
    const modal = approvalModal(request);
    expect(modal.title).toBe('a-2 (planner) ← main asks to run create_scheduled_task');
    expect(modal.body).toContain(card);
    expect(modal.choices.map((c) => c.key)).toEqual(['y', 'n']);
  });

  it('is printed whole on the terminal; y approves, n rejects with feedback', async () => {
    const run = async (lines: string[]) => {
      const input = new PassThrough();
      const output = new PassThrough();
      let shown = '';
      output.on('data', (chunk: Buffer) => {
        shown += chunk.toString();
        if (/(: |\] )$/.test(shown) && lines.length > 0) {
          const line = lines.shift()!;
          setImmediate(() => input.write(`${line}\n`));
        }
      });
      const answer = await terminalAsker({ input, output }).approve(request, new AbortController().signal);
      return { answer, shown };
    };
    const yes = await run(['a', 'y']);
    expect(yes.answer).toEqual({ kind: 'allow_once' });
    expect(yes.shown).toContain('  Title:           Nightly audit\n  Schedule:        at 03:00 every day');
    expect(yes.shown).toContain('y) approve   n) reject');
    expect(yes.shown).toContain('Please answer y, n');
    expect((await run(['n', 'weekly is enough'])).answer).toEqual({ kind: 'deny', feedback: 'weekly is enough' });
  });
});

describe('describeCron', () => {
  it('says common schedules in plain words', () => {
    expect(describeCron('* * * * *')).toBe('every minute');
    expect(describeCron('*/15 * * * *')).toBe('every 15 minutes');
    expect(describeCron('0 9 * * 1-5')).toBe('at 09:00 on Monday through Friday');
    expect(describeCron('30 2 * * *')).toBe('at 02:30 every day');
    expect(describeCron('0 0 1 1 *')).toBe('at 00:00 on January 1');
    expect(describeCron('30 6 24 dec ?')).toBe('at 06:30 on December 24');
    expect(describeCron('0 0 1 1,7 *')).toBe('at 00:00 on day 1 of the month in January, July');
    expect(describeCron('*/10 9-17 * * 1-5')).toBe(
      'every 10 minutes during hours 9 through 17 on Monday through Friday',
    );
    expect(describeCron('5 * * * *')).toBe('at minute 5 of every hour');
    expect(describeCron('0 */2 * * *')).toBe('at minute 0 of every 2 hours');
  });
});
