// Shared by the browser suites of held runs: a console with its scheduler (checks every 200 ms) for a describe
// block, scheduled tasks added with the CLI, and a task's last run as `murmur schedule show` stores it.
import { afterAll, beforeAll, expect } from 'vitest';
import { openConsole, type Console, type Task } from './browser-setup.js';

export interface Run {
  id: string;
  state: string;
  sessionId: string;
  summary: string;
}

/** `murmur serve` with its scheduler on a scripted model, for one describe block. */
export function scheduledConsoleForSuite(script: unknown): () => Console {
  let con: Console | undefined;
  beforeAll(async () => {
    con = await openConsole(script, { MURMUR_CRON_CHECK_MS: '200' });
  }, 60_000);
  afterAll(async () => {
    await con?.close();
  });
  return () => con!;
}

/** A task that fires never on its own (1 January), made with `murmur schedule add`. */
export async function addTask(con: Console, title: string, prompt: string, extra: string[] = []): Promise<Task> {
  const r = await con.cli(['schedule', 'add', '--cron', '0 0 1 1 *', '--title', title, '--prompt', prompt, ...extra]);
  expect(r.exitCode, r.stderr).toBe(0);
  const listed = JSON.parse((await con.cli(['schedule', 'list', '--json'])).stdout) as Task[];
  return listed.find((t) => t.title === title)!;
}

/** The task's runs as stored. */
export async function runsOf(con: Console, id: string): Promise<Run[]> {
  return (await con.show(id)).history as Run[];
}

/** Waits until the task's last run is in a state that `done` accepts, and returns it. */
export async function lastRunWhen(con: Console, task: Task, done: RegExp): Promise<Run> {
  let last: Run | undefined;
  await expect
    .poll(
      async () => {
        last = (await runsOf(con, task.id)).at(-1);
        return last?.state ?? '';
      },
      { timeout: 45_000 },
    )
    .toMatch(done);
  return last!;
}
