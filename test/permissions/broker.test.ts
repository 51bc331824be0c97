// The approval broker behind the setup: one prompt at a time from any number of agents, "allow always" for the
// session, withdrawn requests, the user's denial with feedback, and questions through the same single place.
import { describe, expect, it } from 'vitest';
import { ApprovalBroker, isUnanswered } from '../../orchestrator/permissions/broker.js';
import { createPermissionSetup } from '../../orchestrator/permissions/setup.js';
import { EventBus, type MurmurEvent } from '../../orchestrator/events.js';
import { agentRecord, check, FakeUser, gate, text } from './helpers.js';

const ROOT = '/work/project';

describe('the approval broker', () => {
  it('shows one request at a time, in order, while the callers wait', async () => {
    const order: string[] = [];
    const user = new FakeUser({
      approve: async (request) => {
        order.push(request.requester.agentId);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { kind: 'allow_once' };
      },
    });
    const setup = createPermissionSetup({ workspaceRoot: ROOT, asker: user });
    const results = await Promise.all(
      ['a-1', 'a-2', 'a-3'].map((id) =>
        check(setup, 'bash', { command: `echo ${id}` }, { agent: agentRecord(id, 'worker') }),
      ),
    );
    expect(results).toEqual([undefined, undefined, undefined]);
    expect(order).toEqual(['a-1', 'a-2', 'a-3']);
    expect(user.maxShown).toBe(1);
    expect(setup.broker.waiting).toBe(0);
  });

  it('"allow always" adds a session rule that also settles identical requests already queued', async () => {
    const first = gate<void>();
    const user = new FakeUser({
      approve: async () => {
        await first.promise;
        return { kind: 'allow_always' };
      },
    });
    const setup = createPermissionSetup({ workspaceRoot: ROOT, asker: user });
    const calls = ['a-1', 'a-2', 'a-3'].map((id) =>
      check(setup, 'bash', { command: 'npm test' }, { agent: agentRecord(id, 'worker') }),
    );
    const other = check(setup, 'bash', { command: 'npm publish' }, { agent: agentRecord('a-4', 'worker') });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(setup.broker.waiting).toBe(4);
    first.open();
    expect(await Promise.all([...calls, other])).toEqual([undefined, undefined, undefined, undefined]);
    // The user saw the first npm test and npm publish, not the queued duplicates.
    expect(user.approvals.map((a) => a.summary)).toEqual(['bash: npm test', 'bash: npm publish']);
    expect(setup.sessionRules()).toEqual(['bash(npm test)', 'bash(npm publish)']);
    expect(await check(setup, 'bash', { command: 'npm test' })).toBeUndefined();
    expect(user.approvals).toHaveLength(2);
  });

  it('drops a request whose agent is stopped while it waits, without showing it', async () => {
    const first = gate<void>();
    const user = new FakeUser({
      approve: async () => {
        await first.promise;
        return { kind: 'allow_once' };
      },
    });
    const setup = createPermissionSetup({ workspaceRoot: ROOT, asker: user });
    const shown = check(setup, 'bash', { command: 'echo one' });
    const controller = new AbortController();
    const queued = check(setup, 'bash', { command: 'echo two' }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const refused = await queued;
    expect(text(refused)).toContain(
      'Not run: bash: echo two needed approval, but the request was withdrawn because the agent was stopped',
    );
    first.open();
    expect(await shown).toBeUndefined();
    expect(user.approvals.map((a) => a.summary)).toEqual(['bash: echo one']);
  });

  it("passes the user's denial and feedback back to the model; a dismissed prompt runs nothing", async () => {
    let answer: 'deny' | 'dismiss' = 'deny';
    const user = new FakeUser({
      approve: () => (answer === 'deny' ? { kind: 'deny', feedback: 'use pnpm instead' } : undefined),
    });
    const bus = new EventBus();
    const logs: MurmurEvent[] = [];
    bus.on('log', (event) => logs.push(event));
    const setup = createPermissionSetup({ workspaceRoot: ROOT, asker: user, bus });
    const denied = await check(setup, 'bash', { command: 'npm install' });
    expect(denied?.isError).toBe(true);
    expect(text(denied)).toBe(
      'Not run: the user denied this call (bash: npm install). The user said: "use pnpm instead" Do not retry it as is; adjust your approach or ask the user what they want.',
    );
    answer = 'dismiss';
    expect(text(await check(setup, 'bash', { command: 'npm install' }))).toContain(
      'the prompt was dismissed without an answer',
    );
    expect(logs.map((e) => (e.type === 'log' ? e.message : ''))).toContain(
      'waiting for approval: bash: npm install (main)',
    );
  });

  it('is a plain queue without an asker: every request is unanswered at once', async () => {
    const broker = new ApprovalBroker(undefined);
    const reply = await broker.question(
      { agentId: 'main', role: 'main', callId: 'c', questions: [] },
      { agentId: 'main', role: 'main', chain: [] },
      new AbortController().signal,
    );
    expect(isUnanswered(reply)).toBe(true);
  });
});

describe('questions from ask_user_question', () => {
  it('go through the same single place, labelled with the parent chain', async () => {
    const records = new Map([
      ['main', agentRecord('main', 'main')],
      ['a-1', agentRecord('a-1', 'lead', { parentId: 'main' })],
    ]);
    const first = gate<void>();
    const user = new FakeUser({
      approve: async () => {
        await first.promise;
        return { kind: 'allow_once' };
      },
      question: () => ({ kind: 'answered', answers: [{ question: 'Which?', selected: ['A'] }] }),
    });
    const setup = createPermissionSetup({ workspaceRoot: ROOT, asker: user, agents: (id) => records.get(id) });
    expect(setup.userChannel.availability()).toEqual({ canAsk: true });
    const approval = check(setup, 'bash', { command: 'make' });
    while (setup.broker.waiting === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    const question = setup.userChannel.ask(
      {
        agentId: 'a-1',
        role: 'lead',
        callId: 'q1',
        questions: [{ question: 'Which?', options: [{ label: 'A', description: 'a' }], multiSelect: false }],
      },
      new AbortController().signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    // The question waits behind the approval on screen.
    expect(user.questions).toHaveLength(0);
    first.open();
    await approval;
    expect(await question).toEqual({ kind: 'answered', answers: [{ question: 'Which?', selected: ['A'] }] });
    expect(user.questions[0]!.requester).toEqual({
      agentId: 'a-1',
      role: 'lead',
      chain: [{ agentId: 'main', role: 'main' }],
    });
    expect(user.maxShown).toBe(1);
  });

  it('a question the user leaves unanswered comes back declined', async () => {
    const user = new FakeUser({ question: () => undefined });
    const setup = createPermissionSetup({ workspaceRoot: ROOT, asker: user });
    const reply = await setup.userChannel.ask(
      { agentId: 'main', role: 'main', callId: 'q', questions: [] },
      new AbortController().signal,
    );
    expect(reply).toEqual({ kind: 'declined', reason: 'the prompt was dismissed without an answer' });
  });
});
