// The askers of cli/approvals.ts: the terminal prompt (over real streams), the dashboard modal (with a stand-in
// for the dashboard's ask, which picks keys as a person would), and which asker a run gets.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { approvalModal, dashboardAsker, askerForScreen, planModal, terminalAsker } from '../../cli/approvals.js';
import type { ModalPrompt } from '../../dashboards/tui.js';
import type { ApprovalRequest, PlanApprovalRequest, Requester } from '../../orchestrator/permissions/asker.js';
import type { QuestionRequest } from '../../tools/adapters-interaction.js';

const requester: Requester = {
  agentId: 'a-2',
  role: 'worker',
  chain: [
    { agentId: 'a-1', role: 'lead' },
    { agentId: 'main', role: 'main' },
  ],
};

const approval: ApprovalRequest = {
  requester,
  callId: 'c1',
  tool: 'bash',
  summary: 'bash: npm install left-pad',
  detail: '{"command":"npm install left-pad"}',
  reason: 'bash runs commands',
  alwaysRules: ['bash(npm install left-pad)'],
};

const planRequest: PlanApprovalRequest = {
  requester: { agentId: 'main', role: 'main', chain: [] },
  agentId: 'main',
  role: 'main',
  callId: 'c2',
  planPath: '/w/.murmur/plans/main.md',
  plan: '# Plan\n1. Rename\n2. Test\n',
  options: [{ label: 'Small steps', description: 'One module at a time' }],
};

const question: QuestionRequest = {
  agentId: 'main',
  role: 'main',
  callId: 'c3',
  questions: [
    {
      question: 'Which database?',
      header: 'DB',
      options: [
        { label: 'Postgres', description: 'relational' },
        { label: 'SQLite', description: 'a file' },
        { label: 'Other', description: 'type your own' },
      ],
      multiSelect: false,
    },
    {
      question: 'Which checks?',
      options: [
        { label: 'Lint', description: 'eslint' },
        { label: 'Tests', description: 'vitest' },
        { label: 'Other', description: 'type your own' },
      ],
      multiSelect: true,
    },
  ],
};

/** A terminal whose user types `lines`, one each time a prompt ends (a line ending in ": ", "? " or "] "). */
function terminal(lines: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => {
    shown += chunk.toString();
    if (/(: |\? |\] )$/.test(shown) && lines.length > 0) {
      const line = lines.shift()!;
      setImmediate(() => input.write(`${line}\n`));
    }
  });
  return { streams: { input, output }, shown: () => shown };
}

describe('the terminal asker', () => {
  it('shows who asks and the exact call; y, a and n answer; n takes feedback', async () => {
    const signal = new AbortController().signal;
    const once = terminal(['maybe', 'y']);
    expect(await terminalAsker(once.streams).approve(approval, signal)).toEqual({ kind: 'allow_once' });
    expect(once.shown()).toContain('a-2 (worker) ← a-1 (lead) ← main wants to run:\n  bash: npm install left-pad');
    expect(once.shown()).toContain('allow always for this session (bash(npm install left-pad))');
    expect(once.shown()).toContain('Please answer y, a, n');
    expect(await terminalAsker(terminal(['a']).streams).approve(approval, signal)).toEqual({ kind: 'allow_always' });
    expect(await terminalAsker(terminal(['n', 'use pnpm']).streams).approve(approval, signal)).toEqual({
      kind: 'deny',
      feedback: 'use pnpm',
    });
  });

  it('answers questions with numbers, several for multi-select, and free text for Other', async () => {
    const t = terminal(['3', 'MySQL', '1, 2']);
    const reply = await terminalAsker(t.streams).question(
      question,
      { agentId: 'main', role: 'main', chain: [] },
      new AbortController().signal,
    );
    expect(reply).toEqual({
      kind: 'answered',
      answers: [
        { question: 'Which database?', selected: ['Other'], otherText: 'MySQL' },
        { question: 'Which checks?', selected: ['Lint', 'Tests'] },
      ],
    });
    expect(t.shown()).toContain('[DB] Which database?');
    expect(t.shown()).toContain('  o) Other: type your own');
    const declined = await terminalAsker(terminal(['']).streams).question(
      question,
      requester,
      new AbortController().signal,
    );
    expect(declined).toEqual({ kind: 'declined', reason: 'the user left the question unanswered' });
  });

  it('presents the whole plan; revise takes feedback, an option is picked by its number', async () => {
    const signal = new AbortController().signal;
    const t = terminal(['r', 'add a rollback step']);
    expect(await terminalAsker(t.streams).plan(planRequest, signal)).toEqual({
      kind: 'revise',
      feedback: 'add a rollback step',
    });
    expect(t.shown()).toContain('main presents a plan (/w/.murmur/plans/main.md):\n\n# Plan\n1. Rename\n2. Test\n');
    expect(t.shown()).toContain('1) Small steps: One module at a time');
    expect(await terminalAsker(terminal(['1']).streams).plan(planRequest, signal)).toEqual({
      kind: 'option',
      label: 'Small steps',
    });
    expect(await terminalAsker(terminal(['x', '']).streams).plan(planRequest, signal)).toEqual({
      kind: 'reject_and_exit',
    });
    expect(await terminalAsker(terminal(['n', 'too big']).streams).plan(planRequest, signal)).toEqual({
      kind: 'reject',
      reason: 'too big',
    });
  });

  it('gives up when the agent is stopped or the input ends', async () => {
    const controller = new AbortController();
    const pending = terminalAsker(terminal([]).streams).approve(approval, controller.signal);
    controller.abort();
    expect(await pending).toBeUndefined();
    const ended = terminal([]);
    const waiting = terminalAsker(ended.streams).approve(approval, new AbortController().signal);
    ended.streams.input.end();
    expect(await waiting).toBeUndefined();
  });
});

describe('the dashboard asker', () => {
  function modal(keys: (string | undefined)[]) {
    const prompts: ModalPrompt[] = [];
    const ask = async (prompt: ModalPrompt) => {
      prompts.push(prompt);
      return keys.shift();
    };
    return { asker: dashboardAsker(ask), prompts };
  }

  it('shows a modal with the agent id, role, parent chain and the exact call', async () => {
    const { asker, prompts } = modal(['a']);
    expect(await asker.approve(approval, new AbortController().signal)).toEqual({ kind: 'allow_always' });
    expect(prompts[0]).toEqual(approvalModal(approval));
    expect(prompts[0]!.title).toBe('a-2 (worker) ← a-1 (lead) ← main asks to run bash');
    expect(prompts[0]!.body).toContain('bash: npm install left-pad');
    expect(prompts[0]!.choices.map((c) => c.key)).toEqual(['y', 'a', 'n']);
    expect(await modal(['n']).asker.approve(approval, new AbortController().signal)).toEqual({ kind: 'deny' });
    expect(await modal([undefined]).asker.approve(approval, new AbortController().signal)).toBeUndefined();
  });

  it('asks each question with one key per option; multi-select toggles until done', async () => {
    const { asker, prompts } = modal(['2', '1', '2', '2', 'd']);
    const reply = await asker.question(question, requester, new AbortController().signal);
    expect(reply).toEqual({
      kind: 'answered',
      answers: [
        { question: 'Which database?', selected: ['SQLite'] },
        { question: 'Which checks?', selected: ['Lint'] },
      ],
    });
    expect(prompts[0]!.title).toBe('a-2 (worker) ← a-1 (lead) ← main asks: [DB] Which database?');
    expect(prompts[0]!.choices.map((c) => c.key)).toEqual(['1', '2', 'o']);
    expect(prompts[2]!.choices[0]!.label).toBe('[x] Lint');
    expect(await modal([undefined]).asker.question(question, requester, new AbortController().signal)).toEqual({
      kind: 'declined',
      reason: 'the user closed the question',
    });
  });

  it('offers Approve, the options, Revise, Reject and Reject and Exit for a plan', async () => {
    const { asker, prompts } = modal(['1']);
    expect(await asker.plan(planRequest, new AbortController().signal)).toEqual({
      kind: 'option',
      label: 'Small steps',
    });
    expect(prompts[0]).toEqual(planModal(planRequest));
    expect(prompts[0]!.choices.map((c) => `${c.key}:${c.label}`)).toEqual([
      'y:Approve',
      '1:Small steps',
      'r:Revise',
      'n:Reject',
      'x:Reject and Exit',
    ]);
    expect(prompts[0]!.body).toContain('Full plan: /w/.murmur/plans/main.md');
    expect(await modal(['y']).asker.plan(planRequest, new AbortController().signal)).toEqual({ kind: 'approve' });
    expect((await modal(['r']).asker.plan(planRequest, new AbortController().signal))?.kind).toBe('revise');
  });
});

describe('choosing the asker', () => {
  const tty = Object.assign(new PassThrough(), { isTTY: true });
  const pipe = new PassThrough();

  it('has nobody to ask with --json, in MCP server mode, or without a terminal', () => {
    expect(askerForScreen({ mode: 'quiet', screen: undefined, stdin: tty })).toEqual({
      headlessReason: 'the run prints JSON (--json), so nobody is asked',
    });
    expect(askerForScreen({ mode: 'lines', screen: undefined, stdin: tty, mcpServer: true }).asker).toBeUndefined();
    expect(askerForScreen({ mode: 'lines', screen: undefined, stdin: pipe })).toEqual({
      headlessReason: 'stdin is not a terminal, so nobody can answer',
    });
  });

  it('uses the dashboard modal on the dashboard, and the terminal prompt otherwise', async () => {
    const prompts: ModalPrompt[] = [];
    const screen = {
      mode: 'dashboard' as const,
      stop: () => undefined,
      ask: async (prompt: ModalPrompt) => (prompts.push(prompt), 'y'),
    };
    const { asker } = askerForScreen({ mode: 'dashboard', screen, stdin: tty, stderr: new PassThrough() });
    expect(await asker!.approve(approval, new AbortController().signal)).toEqual({ kind: 'allow_once' });
    expect(prompts).toHaveLength(1);
    expect(askerForScreen({ mode: 'lines', screen: undefined, stdin: tty }).asker).toBeDefined();
  });
});
