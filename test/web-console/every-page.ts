// Every page of the console, seeded so each has something to show: a verified swarm (timeline, item filter, agent
// tree, transcripts), a swarm of one item whose only agent fails after one tool call, scheduled tasks that are
// active, paused, failed (their History and a run's log), a run held for approval (its card on the session page),
// the page without the token and `murmur report --html`. For the suites that visit them all (legible.test.ts).
import { expect } from 'vitest';
import type { Console, Task } from './browser-setup.js';
import type { Run } from './held-runs.js';
import { murmur } from './helpers.js';
import { runVerifiedSwarm, VERIFY_SCRIPT } from './verified-swarm.js';

/** The verified swarm's model, plus a failing item, a held bash call and a task's answer. */
export const EVERY_PAGE_SCRIPT = {
  ...VERIFY_SCRIPT,
  agents: [
    // One tool call with bad arguments and no turn left: the agent fails (1 agent, 1 tool call).
    { match: { prompt: 'Break (\\S+)' }, turns: [{ toolCalls: [{ name: 'read', arguments: { nope: 1 } }] }] },
    {
      match: { prompt: 'Approve me' },
      turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo approved' } }] }, { text: 'ran it' }],
    },
    { match: { prompt: 'Say done' }, turns: [{ text: 'done' }] },
    ...VERIFY_SCRIPT.agents,
  ],
};

export interface PageToVisit {
  name: string;
  /** A path on the console, or an absolute URL (the report's file). */
  url: string;
  /** Without the console's cookie (the page that says how to get the link). */
  stranger?: boolean;
  /** What shows once the page's script has drawn it. */
  ready?: string;
}

export interface Seeded {
  swarm: string;
  broken: string;
  held: string;
  report: string;
  pages: PageToVisit[];
}

async function addTask(con: Console, title: string, prompt: string, extra: string[] = []): Promise<Task> {
  const r = await con.cli(['schedule', 'add', '--cron', '0 0 1 1 *', '--title', title, '--prompt', prompt, ...extra]);
  expect(r.exitCode, r.stderr).toBe(0);
  const listed = JSON.parse((await con.cli(['schedule', 'list', '--json'])).stdout) as Task[];
  return listed.find((t) => t.title === title)!;
}

/** The task's last run once its state matches (a plain loop: expect.poll works only inside a test). */
async function lastRunWhen(con: Console, task: Task, done: RegExp): Promise<Run> {
  for (const until = Date.now() + 45_000; Date.now() < until; await new Promise((r) => setTimeout(r, 150))) {
    const last = ((await con.show(task.id)).history as Run[]).at(-1);
    if (last && done.test(last.state)) return last;
  }
  throw new Error(`the last run of ${task.title} never reached ${done}`);
}

async function swarmOf(con: Console, template: string, items: string[]): Promise<string> {
  const r = await con.cli(['swarm', '--template', template, '--items', ...items, '--no-dashboard', '--json']);
  return (JSON.parse(r.stdout) as { sessionId: string }).sessionId;
}

/** Runs and tasks for every page (needs a console whose scheduler runs: Run now and the held run). */
export async function seedEveryPage(con: Console): Promise<Seeded> {
  const active = await addTask(con, 'Weekly audit', 'Say done');
  const failing = await addTask(con, 'Nightly check that fails', 'Nothing answers this');
  const paused = await addTask(con, 'Paused report', 'Say done');
  const held = await addTask(con, 'Needs approval', 'Approve me', ['--permission-mode', 'manual']);
  expect((await con.cli(['schedule', 'pause', paused.id])).exitCode).toBe(0);
  for (const t of [active, failing, held]) expect((await con.cli(['schedule', 'run-now', t.id])).exitCode).toBe(0);
  const [swarm, broken] = await Promise.all([runVerifiedSwarm(con), swarmOf(con, 'Break {{item}}', ['only.ts'])]);
  const [done, failed, waiting] = await Promise.all([
    lastRunWhen(con, active, /^succeeded$/),
    lastRunWhen(con, failing, /^failed$/),
    lastRunWhen(con, held, /^waiting-for-approval$/),
  ]);
  const report = await murmur(['report', swarm, '--html'], con.workspace, con.env);
  expect(report.exitCode, String(report.stderr)).toBe(0);
  const timeline = 'canvas.timeline-canvas[data-items]';
  const pages: PageToVisit[] = [
    { name: 'tasks', url: '/tasks' },
    ...['active', 'paused', 'failed', 'ended'].map((s) => ({ name: `tasks-${s}`, url: `/tasks?status=${s}` })),
    { name: 'task-new', url: '/tasks/new' },
    { name: 'task-settings', url: `/tasks/${active.id}?tab=settings` },
    { name: 'task-history', url: `/tasks/${active.id}?tab=history` },
    { name: 'task-history-failed', url: `/tasks/${failing.id}?tab=history` },
    { name: 'run-log', url: `/tasks/${failing.id}/runs/${failed.id}/log` },
    { name: 'sessions', url: '/sessions' },
    { name: 'session-swarm', url: `/sessions/${swarm}`, ready: timeline },
    { name: 'session-swarm-completed', url: `/sessions/${swarm}?state=completed`, ready: timeline },
    { name: 'session-one-failed', url: `/sessions/${broken}`, ready: timeline },
    { name: 'session-approval', url: `/sessions/${waiting.sessionId}`, ready: '.pending-card' },
    { name: 'session-done', url: `/sessions/${done.sessionId}` },
    { name: 'session-missing', url: '/sessions/no-such-session' },
    { name: 'transcript', url: `/sessions/${swarm}/agents/a-1` },
    { name: 'transcript-failed', url: `/sessions/${broken}/agents/a-1` },
    { name: 'run-new', url: '/runs/new' },
    { name: 'swarm-new', url: '/swarms/new' },
    { name: 'no-token', url: '/tasks', stranger: true },
    { name: 'report', url: `file://${String(report.stdout).trim()}`, ready: timeline },
  ];
  return { swarm, broken, held: waiting.sessionId, report: String(report.stdout).trim(), pages };
}
