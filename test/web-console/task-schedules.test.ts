// Schedules said right, in Chromium and checked against what `murmur schedule` prints: a one-shot task reads "once
// on <day> at <time> (<zone>)" on its card, its page and at the command line; Monthly on day 29–31 says, as the day
// is chosen and on the task page, which months it skips; saving settings says "Saved." in a status region; a
// "Run now" row has no lateness, and every row says how long its run ran. A console with its own scheduler (checks
// every 200 ms) runs the Run now.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumForSuite, typeInto, type Console, type Task } from './browser-setup.js';
import { addTask, scheduledConsoleForSuite } from './held-runs.js';
import { screenshotPath } from './helpers.js';

const available = chromiumForSuite();
const SCRIPT = {
  agents: [
    { match: { role: 'main', prompt: 'Slow' }, turns: [{ latencyMs: 3000, text: 'slow report done' }] },
    { match: { role: 'main' }, turns: [{ text: 'done' }] },
  ],
};

let con: Console;
let page: Page;

async function added(...args: string[]): Promise<Task> {
  const r = await con.cli(['schedule', 'add', ...args, '--timezone', 'UTC', '--json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Task;
}
const plainShow = async (id: string) => (await con.cli(['schedule', 'show', id])).stdout;
const card = (title: string) => page.locator('.card', { hasText: title }).locator('.rule');

describe.skipIf(!available)('schedules said right: one-shot, monthly day, saved, run now, durations', () => {
  const suite = scheduledConsoleForSuite(SCRIPT);
  beforeAll(() => {
    con = suite();
    page = con.page;
  });

  it('a one-shot task says "once on" its day and time, on its card, its page and in schedule show and list', async () => {
    const day = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    // The form's "Once" is saved as this interval; `--once` on a cron is the other one-shot.
    const once = await added(
      '--every',
      '1d',
      '--at',
      '14:15',
      '--start',
      day,
      '--until',
      day,
      '--title',
      'Release check',
      '--prompt',
      'p',
    );
    const phrase = `once on ${day} at 14:15 (UTC)`;
    const cron = await added('--cron', '30 6 * * *', '--once', '--title', 'Morning once', '--prompt', 'p');
    const cronDay = (cron.next as string[])[0]!.slice(0, 10);
    const cronPhrase = `once on ${cronDay} at 06:30 (UTC)`;

    await page.goto(`${con.served.base}/tasks`);
    expect(await card('Release check').innerText()).toBe(`${phrase} · next ${day} 14:15 · 0 runs`);
    expect(await card('Morning once').innerText()).toBe(`${cronPhrase} · next ${cronDay} 06:30 · 0 runs`);
    await page.screenshot({ path: screenshotPath('tasks-one-shot'), fullPage: true });
    await page.locator('.card', { hasText: 'Release check' }).click();
    await page.waitForSelector('#task-form[data-preview=done]');
    expect(await page.locator('#task-meta').innerText()).toMatch(
      new RegExp(`^active · ${phrase.replace(/[()]/g, '\\$&')} · next`),
    );
    expect(await page.locator('input[name=kind]:checked').inputValue()).toBe('once');
    await page.screenshot({ path: screenshotPath('task-one-shot'), fullPage: true });

    expect(once.schedule).toBe(phrase);
    expect(cron.schedule).toBe(cronPhrase);
    expect(await plainShow(once.id)).toContain(`  schedule:  ${phrase}\n`);
    const list = (await con.cli(['schedule', 'list'])).stdout;
    expect(list).toContain(`${phrase}  Release check`);
    expect(list).toContain(`${cronPhrase}  Morning once`);
    expect(list).not.toMatch(/\(once\)|until/);
  });

  it('Monthly on day 29–31 says which months it skips as the day is chosen, and on the task page', async () => {
    await page.goto(`${con.served.base}/tasks/new`);
    await typeInto(page, 'title', 'Month end close');
    await page.getByLabel('Monthly', { exact: true }).check();
    const note = page.locator('#predicted-note');
    const said: [string, string][] = [
      ['31', 'Skips February, April, June, September and November: they have no day 31.'],
      ['30', 'Skips February: it has no day 30.'],
      ['29', 'Skips February outside leap years: it has a day 29 only in leap years.'],
      ['28', ''],
      ['31', 'Skips February, April, June, September and November: they have no day 31.'],
    ];
    for (const [day, text] of said) {
      await typeInto(page, 'dom', day);
      await expect.poll(() => note.innerText(), { timeout: 15_000 }).toBe(text);
    }
    expect(await note.isVisible()).toBe(true);
    await page.screenshot({ path: screenshotPath('form-monthly-31'), fullPage: true });
    await typeInto(page, 'prompt', 'Close the month');
    await page.getByRole('button', { name: 'Create task' }).click();
    await page.waitForURL(/\/tasks$/);
    const task = (JSON.parse((await con.cli(['schedule', 'list', '--json'])).stdout) as Task[]).find(
      (t) => t.title === 'Month end close',
    )!;
    expect(task.cron).toBe('0 9 31 * *');
    // What the note says is what the scheduler does: every next run is on a 31st.
    expect((task.next as string[]).map((t) => t.slice(8, 10))).toEqual(['31', '31', '31']);
    await page.goto(`${con.served.base}/tasks/${task.id}?tab=history`);
    expect(await page.locator('#schedule-note').innerText()).toBe(said[0]![1]);
    await page.screenshot({ path: screenshotPath('task-monthly-31'), fullPage: true });
    expect(await plainShow(task.id)).toContain(`  note:      ${said[0]![1]}\n`);
  });

  it('saving settings says "Saved." in a status region, once', async () => {
    const task = await addTask(con, 'Quarterly audit', 'Audit');
    await page.goto(`${con.served.base}/tasks/${task.id}`);
    const status = page.getByRole('status');
    expect(await status.innerText()).toBe('');
    await typeInto(page, 'title', 'Quarterly audit, renamed');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status.innerText(), { timeout: 15_000 }).toBe('Saved.');
    expect(await status.isVisible()).toBe(true);
    expect(page.url()).not.toContain('saved=1');
    expect(await page.locator('h1').innerText()).toBe('Quarterly audit, renamed');
    expect((await con.show(task.id)).title).toBe('Quarterly audit, renamed');
    await page.screenshot({ path: screenshotPath('task-saved'), fullPage: true });
    // A reload does not say it again; an edit takes it away.
    await page.reload();
    await page.waitForSelector('#task-form[data-preview=done]');
    expect(await status.innerText()).toBe('');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status.innerText(), { timeout: 15_000 }).toBe('Saved.');
    await typeInto(page, 'prompt', 'Audit again');
    expect(await status.innerText()).toBe('');
  });

  it('a Run now row has no lateness; each row says how long it ran, "running" while it runs', async () => {
    const task = await addTask(con, 'Slow on demand', 'Slow report');
    await page.goto(`${con.served.base}/tasks/${task.id}?tab=history`);
    await page.getByRole('button', { name: 'Run now' }).click();
    const row = page.locator('#history tr[data-run]').first();
    const cells = () => row.locator('td').allTextContents();
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 30_000 }).toBe('running');
    expect(await page.locator('#history th').allTextContents()).toEqual([
      'Trigger',
      'Planned',
      'Started',
      'Lateness',
      'Duration',
      'State',
      'Session',
      'Result',
    ]);
    expect((await cells()).slice(3, 5)).toEqual(['—', 'running']);
    await page.screenshot({ path: screenshotPath('history-run-now-running'), fullPage: true });
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 45_000 }).toBe('succeeded');
    const [trigger, , , late, took] = await cells();
    expect([trigger, late]).toEqual(['run now', '—']);
    // The scripted turn alone takes 3 s.
    expect(took).toMatch(/^(\d+ s|\d+ min \d+ s)$/);
    expect(Number(took!.split(' ')[0])).toBeGreaterThanOrEqual(took!.includes('min') ? 1 : 3);
    await page.screenshot({ path: screenshotPath('history-run-now-done'), fullPage: true });
    const shown = await con.show(task.id);
    const [run] = shown.history as { trigger: string; started: string; ended?: string }[];
    expect(run).toMatchObject({ trigger: 'run-now', ended: expect.any(String) });
    expect(await plainShow(task.id)).toMatch(/ run-now +succeeded +— +took \d+ (s|min \d+ s) +session /);
  }, 90_000);
});
