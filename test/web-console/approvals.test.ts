// Approvals and questions answered in Chromium, with no terminal: a manual-mode scheduled task whose run asks
// for bash is started with Run now, its History row moves live from "waiting for approval" to "succeeded", and
// the card on its session page is answered as a person would (Approve; Deny with a reason, which the agent sees;
// Always allow, saved with the session so a later identical call in a later resume is not asked; a question).
// Checked by what was saved: `murmur schedule show`, `murmur sessions --json`, state.json and the transcripts.
import { seriousViolations } from './axe.js';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumForSuite, type Console, type Task } from './browser-setup.js';
import { addTask, lastRunWhen, runsOf, scheduledConsoleForSuite, type Run } from './held-runs.js';
import { screenshotPath } from './helpers.js';

const available = chromiumForSuite();

export const APPROVAL_SCRIPT = {
  agents: [
    {
      match: { prompt: 'Approve me' },
      turns: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo approved-run' } }] },
        { latencyMs: 4000, text: 'approved and ran' },
      ],
    },
    {
      match: { prompt: 'Deny me' },
      turns: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'rm -rf build' } }] },
        { text: 'carried on without it' },
      ],
    },
    {
      match: { prompt: 'Always' },
      turns: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo always-ok' } }] },
        { toolCalls: [{ name: 'write', arguments: { path: 'notes.md', content: 'noted\n' } }] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo always-ok' } }] },
        { text: 'always done' },
      ],
    },
    {
      match: { prompt: 'Ask me' },
      turns: [
        {
          toolCalls: [
            {
              name: 'ask_user_question',
              arguments: {
                questions: [
                  {
                    question: 'Which database?',
                    header: 'DB',
                    options: [
                      { label: 'Postgres', description: 'the server one' },
                      { label: 'SQLite', description: 'a file' },
                    ],
                  },
                ],
              },
            },
          ],
        },
        { text: 'thanks for answering' },
      ],
    },
  ],
};

let con: Console;
let page: Page;

const add = (title: string, prompt: string) => addTask(con, title, prompt, ['--permission-mode', 'manual']);
const runs = (id: string) => runsOf(con, id);
const finished = (task: Task) => lastRunWhen(con, task, /^(succeeded|failed|interrupted)$/);
const sessionFile = (sid: string, ...rest: string[]) => path.join(con.workspace, '.murmur', 'sessions', sid, ...rest);
const stateOf = (sid: string) =>
  JSON.parse(readFileSync(sessionFile(sid, 'state.json'), 'utf8')) as { status: string; sessionRules?: string[] };
const transcript = (sid: string) => readFileSync(sessionFile(sid, 'agents', 'main', 'transcript.jsonl'), 'utf8');

/** Another tab, logged in with the link. */
async function secondPage(): Promise<Page> {
  const other = await con.browser.newPage({ viewport: { width: 1280, height: 800 } });
  other.setDefaultTimeout(15_000);
  await other.goto(con.served.link);
  return other;
}

/** Run now, clicked on the task's History tab; returns the held run, seen live (the page is never reloaded). */
async function runUntilHeld(task: Task, history: Page): Promise<Run> {
  await history.goto(`${con.served.base}/tasks/${task.id}?tab=history`);
  await history.getByRole('button', { name: 'Run now' }).click();
  await history.waitForURL(/tab=history/);
  const row = history.locator('#history tr[data-run]').first();
  await expect.poll(() => row.getAttribute('data-state'), { timeout: 30_000 }).toBe('waiting-for-approval');
  const [run] = (await runs(task.id)).slice(-1);
  expect(run).toMatchObject({ state: 'waiting-for-approval' });
  return run!;
}

async function openCard(run: Run): Promise<void> {
  await page.goto(`${con.served.base}/sessions/${run.sessionId}`);
  await expect.poll(() => page.locator('#status').textContent()).toBe('waiting');
  await page.locator('.pending-card').first().waitFor();
}

/** A task added and run until held, and the page open at its session's card. */
async function heldCard(title: string, prompt: string): Promise<{ task: Task; run: Run }> {
  const task = await add(title, prompt);
  const history = await secondPage();
  const run = await runUntilHeld(task, history);
  await history.close();
  await openCard(run);
  return { task, run };
}

describe.skipIf(!available)('approvals and questions answered in the console', () => {
  const suite = scheduledConsoleForSuite(APPROVAL_SCRIPT);
  beforeAll(() => {
    con = suite();
    page = con.page;
  });

  it('approves a held bash call in the browser; the History row goes live from waiting to succeeded', async () => {
    const task = await add('Approve in the browser', 'Approve me');
    const history = await secondPage();
    const run = await runUntilHeld(task, history);
    await history.screenshot({ path: screenshotPath('history-waiting-for-approval'), fullPage: true });
    // Saved as waiting (the run's status; the History row keeps the scheduler's "waiting-for-approval"), and shown
    // so by the CLI and the sessions list in its own colour.
    expect(stateOf(run.sessionId).status).toBe('waiting');
    const listed = JSON.parse((await con.cli(['sessions', '--json'])).stdout) as { id: string; status: string }[];
    expect(listed.find((s) => s.id === run.sessionId)?.status).toBe('waiting');
    await page.goto(`${con.served.base}/sessions`);
    const cell = page.locator('tr', { hasText: run.sessionId }).locator('.state');
    expect(await cell.textContent()).toBe('waiting');
    expect(
      await cell.evaluate(
        (el) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(el).color,
      ),
    ).toBe('rgb(161, 92, 0)');

    await page.bringToFront();
    await openCard(run);
    const card = page.locator('.pending-card');
    await expect.poll(() => card.textContent()).toContain('echo approved-run');
    expect(await card.textContent()).toContain('wants to run bash');
    expect(await card.textContent()).toMatch(/Why asked: .+/);
    await page.screenshot({ path: screenshotPath('session-approval-card'), fullPage: true });
    // The card is a page a person acts on: no serious or critical accessibility violation there either.
    expect(await seriousViolations(page)).toEqual([]);
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    // The page follows the resumed run live: running (its elapsed time ticking), then completed.
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toBe('running');
    const before = await page.locator('#meta').textContent();
    await expect
      .poll(
        async () =>
          (await page.locator('#status').textContent()) === 'running' ? page.locator('#meta').textContent() : 'ended',
        { timeout: 3_000 },
      )
      .not.toBe(before);
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toBe('completed');

    const done = await finished(task);
    expect(done).toMatchObject({ state: 'succeeded', sessionId: run.sessionId });
    expect(done.summary).toBe('approved and ran (after an answer in the console)');
    expect(transcript(run.sessionId)).toContain('approved-run');
    // The History page, never reloaded, shows the outcome.
    const row = history.locator(`#history tr[data-run="${run.id}"]`);
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 15_000 }).toBe('succeeded');
    await history.screenshot({ path: screenshotPath('history-succeeded-live'), fullPage: true });
    await history.close();
  }, 120_000);

  it('denies with a reason, which the agent sees in its transcript', async () => {
    const { task, run } = await heldCard('Deny in the browser', 'Deny me');
    const card = page.locator('.pending-card');
    await card.getByLabel(/Reason, told to the agent/).click();
    await page.keyboard.type('not the build folder, it is shared');
    await card.getByRole('button', { name: 'Deny' }).click();
    const done = await finished(task);
    expect(done.state).toBe('succeeded');
    const text = transcript(run.sessionId);
    expect(text).toContain('the user denied this call');
    expect(text).toContain('not the build folder, it is shared');
    expect(text).toContain('carried on without it');
  }, 120_000);

  it('always allow is saved with the session; the same call in a later resume is not asked', async () => {
    const { task, run } = await heldCard('Always allow in the browser', 'Always');
    await page
      .locator('.pending-card')
      .getByRole('button', { name: /Always allow/ })
      .click();
    // The resume runs the bash call, then holds again at the write: a new card on the same page.
    await expect.poll(() => page.locator('.pending-card').textContent(), { timeout: 30_000 }).toContain('notes.md');
    expect(stateOf(run.sessionId)).toMatchObject({
      status: 'waiting',
      sessionRules: ['bash(echo always-ok)'],
    });
    expect(existsSync(path.join(con.workspace, 'murmur.toml'))).toBe(false);
    await page.screenshot({ path: screenshotPath('session-approval-second-card'), fullPage: true });
    await page.locator('.pending-card').getByRole('button', { name: 'Approve', exact: true }).click();
    const done = await finished(task);
    expect(done).toMatchObject({ state: 'succeeded' });
    expect(done.summary).toContain('always done');
    // The second `echo always-ok` ran without a card: two results, no third hold.
    const events = readFileSync(sessionFile(run.sessionId, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; tool?: string; isError?: boolean; message?: string });
    // Held once (its answer settled the call in the first resume); the second call ran in the second resume.
    const asked = events.filter((e) => e.message?.startsWith('waiting for a person: bash: echo always-ok'));
    expect(asked).toHaveLength(1);
    const ran = events.filter((e) => e.type === 'tool.end' && e.tool === 'bash' && !e.isError);
    expect(ran).toHaveLength(2);
    expect(stateOf(run.sessionId)).toMatchObject({ status: 'completed', sessionRules: ['bash(echo always-ok)'] });
    expect(readFileSync(path.join(con.workspace, 'notes.md'), 'utf8')).toBe('noted\n');
  }, 120_000);

  it('answers an ask_user_question card', async () => {
    const { task, run } = await heldCard('Question in the browser', 'Ask me');
    const card = page.locator('.pending-card');
    expect(await card.textContent()).toContain('Which database?');
    await page.screenshot({ path: screenshotPath('session-question-card'), fullPage: true });
    await card.getByLabel('SQLite').check();
    await card.getByRole('button', { name: 'Answer' }).click();
    const done = await finished(task);
    expect(done).toMatchObject({ state: 'succeeded' });
    expect(transcript(run.sessionId)).toContain('Which database? -> SQLite');
  }, 120_000);
});
