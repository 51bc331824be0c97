// The askers: where the user answers permission requests, questions and plans. On the dashboard a modal shows
// the agent's id, role and parent chain with the exact call; in plain mode a prompt on the terminal (only when
// stdin is a TTY); headless (--json, MCP server mode, no terminal) there is none and the policy answers.
// The permission setup's broker queues requests, so an asker only ever shows one at a time.
import { createInterface } from 'node:readline/promises';
import type { ModalChoice, ModalPrompt } from '../dashboards/tui.js';
import {
  describeRequester,
  type AgentLabel,
  type ApprovalRequest,
  type Asker,
  type PlanApprovalRequest,
  type QuestionRequest,
  type Requester,
} from '../host/asker.js';
import type {
  ApprovalAnswer,
  PlanDecision,
  QuestionAnswer,
  QuestionReply,
  UserQuestion,
} from '../protocol/interruptions.js';
import type { Screen, ScreenMode } from './screen.js';

export type { AgentLabel, Requester };

const OTHER = 'Other';
const PLAN_EXCERPT_LINES = 12;
const PLAN_EXCERPT_CHARS = 1_200;

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function planExcerpt(plan: string): string {
  const lines = plan.trimEnd().split('\n');
  let text = lines.slice(0, PLAN_EXCERPT_LINES).join('\n');
  if (lines.length > PLAN_EXCERPT_LINES || text.length > PLAN_EXCERPT_CHARS)
    text = `${cut(text, PLAN_EXCERPT_CHARS)}\n…`;
  return text;
}

// ---- the dashboard: one modal per request, answered with one key ----

type ModalAsk = (prompt: ModalPrompt, signal?: AbortSignal) => Promise<string | undefined>;

export function approvalModal(request: ApprovalRequest): ModalPrompt {
  const always =
    request.alwaysRules.length > 0
      ? [{ key: 'a', label: cut(`allow always: ${request.alwaysRules.join(', ')}`, 70) }]
      : [];
  return {
    title: `${describeRequester(request.requester)} asks to run ${request.tool}`,
    body: `${request.card ?? request.summary}\nWhy: ${request.reason}`,
    choices: [
      { key: 'y', label: request.card ? 'approve' : 'allow once' },
      ...always,
      { key: 'n', label: request.card ? 'reject' : 'deny' },
    ],
  };
}

export function planModal(request: PlanApprovalRequest): ModalPrompt {
  const choices: ModalChoice[] = [{ key: 'y', label: 'Approve' }];
  request.options.forEach((option, index) => choices.push({ key: String(index + 1), label: cut(option.label, 40) }));
  choices.push({ key: 'r', label: 'Revise' }, { key: 'n', label: 'Reject' }, { key: 'x', label: 'Reject and Exit' });
  const alternatives = request.options.map((o, i) => `${i + 1}. ${o.label}: ${o.description}`).join('\n');
  return {
    title: `${describeRequester(request.requester)} presents a plan`,
    body: `${planExcerpt(request.plan)}\nFull plan: ${request.planPath}${alternatives ? `\n${alternatives}` : ''}`,
    choices,
  };
}

async function modalQuestion(
  ask: ModalAsk,
  question: UserQuestion,
  requester: Requester,
  signal: AbortSignal,
): Promise<QuestionAnswer | undefined> {
  const listed = question.options
    .map((o, i) => `${o.label === OTHER ? 'o' : i + 1}. ${o.label}: ${o.description}`)
    .join('\n');
  const keyOf = (label: string, index: number) => (label === OTHER ? 'o' : String(index + 1));
  const title = `${describeRequester(requester)} asks: ${question.header ? `[${question.header}] ` : ''}${question.question}`;
  if (!question.multiSelect) {
    const choices = question.options.map((o, i) => ({ key: keyOf(o.label, i), label: cut(o.label, 30) }));
    const key = await ask({ title, body: listed, choices }, signal);
    const picked = question.options.find((o, i) => keyOf(o.label, i) === key);
    return picked ? { question: question.question, selected: [picked.label] } : undefined;
  }
  // Several picks with one key each: toggle options until "done".
  const selected = new Set<string>();
  for (;;) {
    const choices = question.options.map((o, i) => ({
      key: keyOf(o.label, i),
      label: `${selected.has(o.label) ? '[x]' : '[ ]'} ${cut(o.label, 26)}`,
    }));
    choices.push({ key: 'd', label: 'done' });
    const key = await ask({ title, body: `${listed}\nPick any, then d.`, choices }, signal);
    if (key === undefined) return undefined;
    if (key === 'd')
      return {
        question: question.question,
        selected: question.options.map((o) => o.label).filter((l) => selected.has(l)),
      };
    const option = question.options.find((o, i) => keyOf(o.label, i) === key);
    if (option) {
      if (selected.has(option.label)) selected.delete(option.label);
      else selected.add(option.label);
    }
  }
}

/** Answers through the dashboard's modal. It takes keys, not text: "Other" and "Revise" come back without a note. */
export function dashboardAsker(ask: ModalAsk): Asker {
  return {
    async approve(request, signal) {
      const key = await ask(approvalModal(request), signal);
      if (key === 'y') return { kind: 'allow_once' };
      if (key === 'a') return { kind: 'allow_always' };
      if (key === 'n') return { kind: 'deny' };
      return undefined;
    },
    async question(request, requester, signal) {
      const answers: QuestionAnswer[] = [];
      for (const question of request.questions) {
        const answer = await modalQuestion(ask, question, requester, signal);
        if (!answer) return signal.aborted ? undefined : { kind: 'declined', reason: 'the user closed the question' };
        answers.push(answer);
      }
      return { kind: 'answered', answers };
    },
    async plan(request, signal) {
      const key = await ask(planModal(request), signal);
      if (key === undefined) return undefined;
      if (key === 'y') return { kind: 'approve' };
      if (key === 'n') return { kind: 'reject', reason: 'the user rejected it' };
      if (key === 'x') return { kind: 'reject_and_exit', reason: 'the user rejected it' };
      if (key === 'r')
        return {
          kind: 'revise',
          feedback:
            'the user asked for a revision (no note: the dashboard takes no text); look for gaps and risks, and make the plan more concrete',
        };
      const option = request.options[Number(key) - 1];
      return option ? { kind: 'option', label: option.label } : undefined;
    },
  };
}

// ---- the terminal: a prompt on stderr, answers typed on stdin ----

export interface TerminalStreams {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
}

type Lines = (query: string) => Promise<string | undefined>;

/**
 * Runs one request's dialogue on its own readline interface (closed afterwards, so stdin is released between
 * prompts). `ask` resolves with one typed line, or undefined when aborted or the input ended.
 */
async function dialogue<T>(
  streams: TerminalStreams,
  signal: AbortSignal,
  talk: (ask: Lines) => Promise<T>,
): Promise<T> {
  const rl = createInterface({ input: streams.input, output: streams.output, terminal: streams.input.isTTY === true });
  // In raw mode Ctrl-C reaches readline, not the process: pass it on, so the run's interrupt handler still aborts.
  rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  let closed = false;
  const ended = new Promise<undefined>((resolve) =>
    rl.once('close', () => {
      closed = true;
      resolve(undefined);
    }),
  );
  const ask: Lines = async (query) => {
    if (closed || signal.aborted) return undefined;
    try {
      return await Promise.race([rl.question(query, { signal }), ended]);
    } catch {
      return undefined;
    }
  };
  try {
    return await talk(ask);
  } finally {
    rl.close();
  }
}

/** Asks until the answer is one of `accepted` (lower-cased); undefined when aborted or the input ended. */
async function choose(
  ask: Lines,
  out: NodeJS.WritableStream,
  query: string,
  accepted: readonly string[],
): Promise<string | undefined> {
  for (;;) {
    const line = await ask(query);
    if (line === undefined) return undefined;
    const answer = line.trim().toLowerCase();
    if (accepted.includes(answer)) return answer;
    out.write(`Please answer ${accepted.filter((a) => a.length <= 2).join(', ')}.\n`);
  }
}

function banner(title: string): string {
  return `\n── ${title} ${'─'.repeat(Math.max(3, 60 - title.length))}\n`;
}

async function terminalQuestion(
  ask: Lines,
  out: NodeJS.WritableStream,
  question: UserQuestion,
): Promise<QuestionAnswer | 'declined' | undefined> {
  out.write(`${question.header ? `[${question.header}] ` : ''}${question.question}\n`);
  question.options.forEach((o, i) => out.write(`  ${o.label === OTHER ? 'o' : i + 1}) ${o.label}: ${o.description}\n`));
  const numbers = question.options.map((_o, i) => i + 1);
  const hint = question.multiSelect ? 'numbers separated by commas, o for Other' : 'a number, o for Other';
  for (;;) {
    const line = await ask(`Your answer (${hint}; empty to decline): `);
    if (line === undefined) return undefined;
    const text = line.trim().toLowerCase();
    if (text === '') return 'declined';
    const picks = text.split(/[\s,]+/).filter(Boolean);
    const labels: string[] = [];
    let bad = false;
    for (const pick of picks) {
      const index = pick === 'o' ? question.options.findIndex((o) => o.label === OTHER) : Number(pick) - 1;
      const option = question.options[index];
      if (!option || (pick !== 'o' && !numbers.includes(index + 1))) bad = true;
      else if (!labels.includes(option.label)) labels.push(option.label);
    }
    if (bad || labels.length === 0 || (!question.multiSelect && labels.length > 1)) {
      out.write(`Please answer with ${hint}.\n`);
      continue;
    }
    const answer: QuestionAnswer = { question: question.question, selected: labels };
    if (labels.includes(OTHER)) {
      const other = await ask('Your own answer: ');
      if (other === undefined) return undefined;
      return { ...answer, otherText: other.trim() };
    }
    return answer;
  }
}

export function terminalAsker(streams: TerminalStreams): Asker {
  const out = streams.output;
  return {
    approve: (request, signal) =>
      dialogue(streams, signal, async (ask): Promise<ApprovalAnswer | undefined> => {
        out.write(banner('approval needed'));
        out.write(
          `${describeRequester(request.requester)} wants to run:\n  ${request.card ? request.card.split('\n').join('\n  ') : request.summary}\nWhy asked: ${request.reason}\n`,
        );
        // A card (a scheduled task) is approved one at a time: no "allow always".
        const always = request.alwaysRules.length > 0;
        out.write(
          always
            ? `  y) allow once   a) allow always for this session (${request.alwaysRules.join(', ')})   n) deny\n`
            : '  y) approve   n) reject\n',
        );
        const answer = await choose(
          ask,
          out,
          always ? 'Allow? [y/a/n] ' : 'Approve? [y/n] ',
          always ? ['y', 'yes', 'a', 'always', 'n', 'no'] : ['y', 'yes', 'n', 'no'],
        );
        if (answer === undefined) return undefined;
        if (answer.startsWith('y')) return { kind: 'allow_once' };
        if (answer.startsWith('a')) return { kind: 'allow_always' };
        const feedback = await ask('Tell the agent why or what to do instead (optional): ');
        return feedback?.trim() ? { kind: 'deny', feedback: feedback.trim() } : { kind: 'deny' };
      }),
    question: (request: QuestionRequest, requester, signal) =>
      dialogue(streams, signal, async (ask): Promise<QuestionReply | undefined> => {
        out.write(banner('question'));
        out.write(`${describeRequester(requester)} asks:\n`);
        const answers: QuestionAnswer[] = [];
        for (const question of request.questions) {
          const answer = await terminalQuestion(ask, out, question);
          if (answer === undefined) return undefined;
          if (answer === 'declined') return { kind: 'declined', reason: 'the user left the question unanswered' };
          answers.push(answer);
        }
        return { kind: 'answered', answers };
      }),
    plan: (request, signal) =>
      dialogue(streams, signal, async (ask): Promise<PlanDecision | undefined> => {
        out.write(banner('plan for approval'));
        out.write(
          `${describeRequester(request.requester)} presents a plan (${request.planPath}):\n\n${request.plan.trimEnd()}\n\n`,
        );
        request.options.forEach((o, i) => out.write(`  ${i + 1}) ${o.label}: ${o.description}\n`));
        out.write('  y) Approve   r) Revise (with feedback)   n) Reject   x) Reject and Exit\n');
        const keys = ['y', 'r', 'n', 'x', ...request.options.map((_o, i) => String(i + 1))];
        const answer = await choose(ask, out, `Your answer [${keys.join('/')}] `, keys);
        if (answer === undefined) return undefined;
        if (answer === 'y') return { kind: 'approve' };
        if (answer === 'r') {
          const feedback = await ask('What should change? ');
          if (feedback === undefined) return undefined;
          return {
            kind: 'revise',
            feedback: feedback.trim() || 'no note given; look for gaps and risks, and make the plan more concrete',
          };
        }
        if (answer === 'n' || answer === 'x') {
          const reason = await ask('Why (optional)? ');
          if (reason === undefined) return undefined;
          const kind = answer === 'n' ? 'reject' : 'reject_and_exit';
          return reason.trim() ? { kind, reason: reason.trim() } : { kind };
        }
        const option = request.options[Number(answer) - 1];
        return option ? { kind: 'option', label: option.label } : undefined;
      }),
  };
}

// ---- choosing the asker for a run ----

export interface ScreenAskerOptions {
  /** The screen mode (known before the screen starts). */
  mode: ScreenMode;
  /** The screen (made before the engine, drawn after it); its modal is looked up at prompt time. */
  screen: Pick<Screen, 'ask'> | undefined;
  /** `murmur mcp serve`: the client, not a person, is on the other end. */
  mcpServer?: boolean;
  stdin?: TerminalStreams['input'];
  stderr?: NodeJS.WritableStream;
}

export interface ScreenAsker {
  /** Undefined when nobody can answer: the permission setup then answers by policy at once. */
  asker?: Asker;
  /** Why nobody can answer (for the messages to the model). */
  headlessReason?: string;
}

/**
 * The dashboard's modal on the dashboard; a terminal prompt in plain mode when stdin is a TTY; none with
 * --json (quiet), in MCP server mode or without a terminal.
 */
export function askerForScreen(options: ScreenAskerOptions): ScreenAsker {
  const stdin = options.stdin ?? process.stdin;
  const stderr = options.stderr ?? process.stderr;
  if (options.mcpServer) return { headlessReason: 'murmur runs as an MCP server, where no person can answer' };
  if (options.mode === 'quiet') return { headlessReason: 'the run prints JSON (--json), so nobody is asked' };
  if (stdin.isTTY !== true) return { headlessReason: 'stdin is not a terminal, so nobody can answer' };
  const terminal = terminalAsker({ input: stdin, output: stderr });
  if (options.mode !== 'dashboard') return { asker: terminal };
  // The dashboard may stop mid-run (it falls back to plain lines): then the terminal prompt takes over.
  const pick = (): Asker => {
    const ask = options.screen?.ask;
    return ask ? dashboardAsker(ask) : terminal;
  };
  return {
    asker: {
      approve: (request, signal) => pick().approve(request, signal),
      question: (request, requester, signal) => pick().question(request, requester, signal),
      plan: (request, signal) => pick().plan(request, signal),
    },
  };
}
