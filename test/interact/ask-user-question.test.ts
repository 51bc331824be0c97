import { describe, expect, it } from 'vitest';
import { Agent } from '../../orchestrator/agent.js';
import { EventBus } from '../../orchestrator/events.js';
import { ScriptedModel } from '../../orchestrator/models/scripted.js';
import { checkArguments, resultText, type ToolContext } from '../../tools/contract.js';
import type { UserChannel } from '../../tools/adapters-interaction.js';
import { createAskUserQuestionTool } from '../../tools/interact/ask-user-question.js';
import { toLoopTools } from '../../tools/loop-tools.js';
import { buildToolRegistry } from '../../tools/registry.js';
import { makeContext, MemoryTasks, ScriptedUser, storeOf } from './context.js';

/** The tool as the registry makes it: with a user channel and the task store. */
const toolFor = (user: UserChannel, tasks = new MemoryTasks()) =>
  createAskUserQuestionTool({ user, tasks: storeOf(tasks) });
const def = toolFor(new ScriptedUser()).def;
const option = (label: string) => ({ label, description: `choose ${label}` });
const question = (overrides: Record<string, unknown> = {}) => ({
  question: 'Which database?',
  options: [option('Postgres'), option('SQLite')],
  ...overrides,
});

function problem(args: unknown): string | undefined {
  const prepared = def.prepareArguments ? def.prepareArguments(args) : args;
  return checkArguments(def, prepared);
}

async function run(
  args: Record<string, unknown>,
  user: UserChannel,
  options: { tasks?: MemoryTasks; ctx?: ToolContext; signal?: AbortSignal } = {},
) {
  const prepared = def.prepareArguments!(args) as never;
  expect(checkArguments(def, prepared)).toBeUndefined();
  return toolFor(user, options.tasks).impl(
    options.ctx ?? makeContext(),
    prepared,
    options.signal ?? new AbortController().signal,
    () => {},
  );
}

describe('ask_user_question validation', () => {
  it('accepts a well-formed call', () => {
    expect(problem({ questions: [question({ header: 'Database', multi_select: true })] })).toBeUndefined();
    expect(
      problem({ questions: [question(), question({ question: 'Which cache?' })], background: false }),
    ).toBeUndefined();
  });

  it.each([
    ['no questions', { questions: [] }, ['questions has 0 entries', '1 to 4']],
    [
      'five questions',
      { questions: [1, 2, 3, 4, 5].map((n) => question({ question: `Q${n}?` })) },
      ['questions has 5 entries', '1 to 4'],
    ],
    ['questions not a list', { questions: 'pick one' }, ['"pick one"', 'list of 1 to 4']],
    [
      'a question without "?"',
      { questions: [question({ question: 'Pick a database' })] },
      ['questions[0].question "Pick a database"', 'must end with "?"'],
    ],
    ['an empty question', { questions: [question({ question: '' })] }, ['questions[0].question', 'non-empty string']],
    [
      'the same question twice',
      { questions: [question(), question()] },
      ['questions[1].question "Which database?"', 'unique'],
    ],
    [
      'one option',
      { questions: [question({ options: [option('Only')] })] },
      ['questions[0].options has 1 options', '2 to 4'],
    ],
    [
      'five options',
      { questions: [question({ options: ['a', 'b', 'c', 'd', 'e'].map(option) })] },
      ['has 5 options', '2 to 4'],
    ],
    [
      'an option without description',
      { questions: [question({ options: [option('A'), { label: 'B' }] })] },
      ['questions[0].options[1].description', 'undefined'],
    ],
    [
      'a blank label',
      { questions: [question({ options: [option('A'), option(' ')] })] },
      ['questions[0].options[1].label', '" "', 'non-empty'],
    ],
    [
      'a label named Other',
      { questions: [question({ options: [option('A'), option('Other')] })] },
      ['"Other" is reserved', 'always added'],
    ],
    [
      'duplicate labels',
      { questions: [question({ options: [option('A'), option('A')] })] },
      ['options[1].label "A" appears twice', 'unique'],
    ],
    [
      'a 13-character header',
      { questions: [question({ header: 'Thirteen char' })] },
      ['header "Thirteen char" has 13 characters', 'at most 12'],
    ],
    ['a header that is not text', { questions: [question({ header: 7 })] }, ['header must be a string, got 7']],
    [
      'multi_select not a boolean',
      { questions: [question({ multi_select: 'yes' })] },
      ['multi_select must be true or false, got "yes"'],
    ],
    [
      'background not a boolean',
      { questions: [question()], background: 'now' },
      ['background must be true or false, got "now"'],
    ],
    [
      'an unknown parameter',
      { questions: [question({ priority: 'high' })] },
      ['"priority" is not a parameter', 'accepted: question, options, header, multi_select'],
    ],
  ])('refuses %s, naming the value and the rule', (_name, args, expected) => {
    const message = problem(args);
    expect(message).toMatch(/^Invalid arguments for tool "ask_user_question": /);
    for (const part of expected) expect(message).toContain(part);
  });

  it('counts a header in characters, not bytes', () => {
    expect(problem({ questions: [question({ header: 'ééééééééééé🙂' })] })).toBeUndefined();
  });

  it('accepts camelCase multiSelect and a stringified question list', () => {
    expect(problem({ questions: JSON.stringify([question({ multiSelect: true })]) })).toBeUndefined();
  });
});

describe('ask_user_question asking', () => {
  it('always adds an "Other" answer, labels the request with the asker, and reports the answers', async () => {
    const user = new ScriptedUser((request) => ({
      kind: 'answered',
      answers: [
        { question: request.questions[0]!.question, selected: ['SQLite'] },
        { question: request.questions[1]!.question, selected: ['Redis', 'Other'], otherText: 'an in-process LRU' },
      ],
    }));
    const ctx = makeContext({ agentId: 'sub-3', role: 'explore', callId: 'c9' });
    const result = await run(
      {
        questions: [
          question({ header: 'DB' }),
          question({ question: 'Which caches?', options: [option('Redis'), option('None')], multi_select: true }),
        ],
      },
      user,
      { ctx },
    );
    expect(result.isError).toBeFalsy();
    const request = user.requests[0]!;
    expect(request).toMatchObject({ agentId: 'sub-3', role: 'explore', callId: 'c9' });
    for (const asked of request.questions) expect(asked.options.at(-1)!.label).toBe('Other');
    expect(request.questions[0]!.options.map((o) => o.label)).toEqual(['Postgres', 'SQLite', 'Other']);
    expect(request.questions[0]!.multiSelect).toBe(false);
    expect(request.questions[0]!.header).toBe('DB');
    expect(request.questions[1]!.multiSelect).toBe(true);
    const text = resultText(result);
    expect(text).toContain('1. Which database? -> SQLite');
    expect(text).toContain('2. Which caches? -> Redis, Other: "an in-process LRU"');
  });

  it('says so when the user declines', async () => {
    const user = new ScriptedUser(() => ({ kind: 'declined', reason: 'closed the prompt' }));
    const result = await run({ questions: [question()] }, user);
    expect(resultText(result)).toContain('declined to answer (closed the prompt)');
  });

  it('tells the agent to ask in its reply text when nobody can answer', async () => {
    // No user channel at all: the registry makes no ask_user_question.
    const tasks = storeOf(new MemoryTasks());
    expect(buildToolRegistry({ tasks }).shared.map((t) => t.def.name)).not.toContain('ask_user_question');
    expect(buildToolRegistry({ tasks, user: new ScriptedUser() }).shared.map((t) => t.def.name)).toContain(
      'ask_user_question',
    );

    const headless = new ScriptedUser(undefined, '--json mode: no terminal');
    const none = await run({ questions: [question()] }, headless);
    expect(none.isError).toBe(true);
    expect(resultText(none)).toContain('Ask the user in your reply text instead');
    const refused = await run({ questions: [question()], background: true }, headless);
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toContain('--json mode: no terminal');
    expect(resultText(refused)).toContain('reply text');
    expect(headless.requests).toHaveLength(0);
  });

  it('starts a background question and returns its task id at once', async () => {
    const user = new ScriptedUser();
    const tasks = new MemoryTasks();
    const result = await run({ questions: [question()], background: true }, user, { tasks });
    expect(result.isError).toBeFalsy();
    const { taskId } = result.details as { taskId: string };
    expect(resultText(result)).toContain(`task ${taskId}`);
    expect(tasks.get(taskId)).toMatchObject({
      kind: 'question',
      status: 'running',
      description: 'Question for the user: Which database?',
    });
    expect(user.requests).toHaveLength(1);

    user.reply({
      kind: 'answered',
      answers: [{ question: 'Which database?', selected: ['Other'], otherText: 'DuckDB' }],
    });
    const done = await tasks.wait(taskId, 5_000);
    expect(done).toMatchObject({ status: 'completed' });
    expect(done!.result).toContain('Which database? -> Other: "DuckDB"');
    expect(await tasks.tail(taskId)).toContain('DuckDB');
  });

  it('returns an error result when the agent is stopped while waiting', async () => {
    const user = new ScriptedUser();
    const controller = new AbortController();
    const pending = run({ questions: [question()] }, user, { signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('withdrawn');
  });

  it('reaches the model as error results in a scripted run without anyone to answer', async () => {
    const model = new ScriptedModel({
      agents: [
        {
          match: { prompt: 'ask' },
          turns: [
            {
              toolCalls: [
                {
                  name: 'ask_user_question',
                  arguments: { questions: [{ question: 'Proceed', options: [option('Yes'), option('No')] }] },
                },
              ],
            },
            { toolCalls: [{ name: 'ask_user_question', arguments: { questions: [question()] } }] },
            { text: 'asked in text' },
          ],
        },
      ],
    });
    const context = { agentId: 'a1', role: 'main', cwd: process.cwd() };
    const tools = toLoopTools([toolFor(new ScriptedUser(undefined, 'no terminal'))], { fallback: false });
    const agent = new Agent(
      { id: 'a1', role: 'main' },
      { system: '', maxTurns: 5, callModel: (r, s) => model.complete(r, s), toolsForTurn: () => tools, context },
      new EventBus(),
    );
    const outcome = await agent.run('ask something');
    expect(outcome.status).toBe('completed');
    const toolMessages = agent.state.messages.filter((m) => m.role === 'tool');
    expect(JSON.stringify(toolMessages[0])).toContain('must end with');
    expect(JSON.stringify(toolMessages[1])).toContain('no terminal');
  });
});
