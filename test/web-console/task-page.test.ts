// A scheduled task's page and the list in Chromium, checked by what was saved: editing only the title keeps a
// zone Node's own list lacks; a cleared time is an error in plain words and saves nothing; the first submit
// error stays on screen while the live timeline updates; Delete asks, naming the task; paused and ended tasks
// show no next run (and an ended one no future times); the Ended filter. Then the console without its token:
// a page for a browser, the documented empty 401 for scripts, and a favicon.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CronStore } from '../../scheduler/store.js';
import { chromiumForSuite, consoleForSuite, typeInto as typeIn, type Console, type Task } from './browser-setup.js';
import { screenshotPath } from './helpers.js';

const available = chromiumForSuite();
let con: Console;
let page: Page;

const cli = (args: string[]) => con.cli(args);
const show = (id: string) => con.show(id);
async function add(...args: string[]): Promise<Task> {
  const r = await cli(['schedule', 'add', ...args, '--cwd', con.workspace, '--json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Task;
}
async function count(): Promise<number> {
  return (JSON.parse((await cli(['schedule', 'list', '--json', '--cwd', con.workspace])).stdout) as Task[]).length;
}
const typeInto = (name: string, text: string) => typeIn(page, name, text);
/** Every error line on the page, joined. */
const errors = () =>
  page
    .locator('[data-error]')
    .allInnerTexts()
    .then((t) => t.filter(Boolean).join(' | '));

describe.skipIf(!available)('a scheduled task in the console, checked by what was saved', () => {
  const suite = consoleForSuite();
  beforeAll(() => {
    con = suite();
    page = con.page;
  });

  it('keeps the zone when only the title is edited (Asia/Kolkata, and a zone the list lacks)', async () => {
    for (const zone of ['Asia/Kolkata', 'Europe/Kyiv', 'US/Pacific-New']) {
      const task = await add('--cron', '0 9 * * *', '--timezone', zone, '--title', `Report ${zone}`, '--prompt', 'p');
      await page.goto(`${con.served.base}/tasks/${task.id}`);
      expect(await page.inputValue('select[name=timezone]')).toBe(zone);
      await typeInto('title', `Renamed ${zone}`);
      if (zone === 'Asia/Kolkata') await page.screenshot({ path: screenshotPath('task-edit-zone'), fullPage: true });
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/saved=1/);
      const saved = await show(task.id);
      expect(saved.timezone).toBe(zone);
      expect(saved.title).toBe(`Renamed ${zone}`);
      const { title: _a, kept: _b, history: _c, ...rest } = saved;
      const { title: _d, kept: _e, ...before } = task;
      expect(rest).toEqual(before);
    }
  });

  it('a cleared Monthly or Daily time is an error in plain words, and nothing is saved', async () => {
    for (const kind of ['Monthly', 'Daily']) {
      const before = await count();
      await page.goto(`${con.served.base}/tasks/new`);
      await typeInto('title', `No time ${kind}`);
      await page.getByLabel(kind, { exact: true }).check();
      await page.locator('input[name=time]').fill('');
      await typeInto('prompt', 'Check something');
      await page.getByRole('button', { name: 'Create task' }).click();
      await expect.poll(errors).toMatch(/Choose the time of day it runs/);
      const text = await errors();
      expect(text).not.toMatch(/cron|\*|\?/);
      expect(await page.locator('[data-error=time]').isVisible()).toBe(true);
      await page.waitForTimeout(500);
      expect(page.url()).toMatch(/\/tasks\/new$/);
      expect(await count()).toBe(before);
      if (kind === 'Monthly') await page.screenshot({ path: screenshotPath('form-time-cleared'), fullPage: true });
    }
  });

  it('keeps the first submit error on screen while the live timeline updates', async () => {
    await page.goto(`${con.served.base}/tasks/new`);
    await typeInto('title', 'Empty instruction');
    await typeInto('prompt', '   ');
    // A schedule edit right before the click: its live preview answers after the submit's error.
    await page.selectOption('select[name=timezone]', 'Asia/Kolkata');
    await page.getByRole('button', { name: 'Create task' }).click();
    await expect.poll(errors).toMatch(/prompt .* is missing or empty/);
    await page.waitForSelector('#task-form[data-preview=done]');
    await page.waitForTimeout(600);
    expect(await errors()).toMatch(/prompt .* is missing or empty/);
    expect(await page.locator('#predicted .next').innerText()).toContain('Asia/Kolkata');
    await page.screenshot({ path: screenshotPath('form-first-error'), fullPage: true });
    // Editing the instruction is what clears its error.
    await typeInto('prompt', 'Now there is one');
    expect(await errors()).toBe('');
  });

  it('deletes a task only after a confirmation that names it', async () => {
    const task = await add('--cron', '0 9 * * 1', '--title', 'Doomed weekly audit', '--prompt', 'p');
    await page.goto(`${con.served.base}/tasks/${task.id}`);
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await page.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toContain('"Doomed weekly audit"');
    expect((await cli(['schedule', 'show', task.id, '--json'])).exitCode).toBe(0);
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.accept();
    });
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/tasks$/);
    expect(await page.locator('.card', { hasText: 'Doomed weekly audit' }).count()).toBe(0);
    expect((await cli(['schedule', 'show', task.id, '--json'])).exitCode).toBe(2);
  });

  it('paused and ended tasks show no next run; an ended one has no future times; the Ended filter', async () => {
    const paused = await add('--cron', '0 9 * * *', '--title', 'Paused daily', '--prompt', 'p');
    expect((await cli(['schedule', 'pause', paused.id])).exitCode).toBe(0);
    const ended = await add('--cron', '0 9 * * *', '--once', '--title', 'Ended once', '--prompt', 'p');
    // Its one fire, as the scheduler records it.
    CronStore.forWorkspace(con.workspace, { env: con.env }).mutate((tasks) => {
      const t = tasks.find((x) => x.id === ended.id)!;
      t.fires = 1;
      t.ended = { at: Date.now(), reason: 'once' };
    });
    await page.goto(`${con.served.base}/tasks`);
    const rule = (title: string) => page.locator('.card', { hasText: title }).locator('.rule').innerText();
    expect(await rule('Paused daily')).toMatch(/ · paused · 0 runs$/);
    expect(await rule('Ended once')).toMatch(/ · ended · 1 run$/);
    await page.getByRole('link', { name: 'Ended', exact: true }).click();
    await page.waitForURL(/status=ended/);
    expect(await page.locator('.card').allInnerTexts()).toEqual([expect.stringContaining('Ended once')]);
    await page.screenshot({ path: screenshotPath('tasks-ended'), fullPage: true });
    await page.locator('.card', { hasText: 'Ended once' }).click();
    await page.waitForSelector('#task-form[data-preview=done]');
    expect(await page.locator('#predicted .next').innerText()).toBe('next: none');
    expect(await page.locator('#predicted .after').innerText()).toBe('then: none');
    expect(await page.locator('#predicted-note').innerText()).toMatch(/^Ended: its one run is done/);
    expect(await page.locator('.meta').first().innerText()).not.toMatch(/next/);
    await page.screenshot({ path: screenshotPath('task-ended'), fullPage: true });
    await page.goto(`${con.served.base}/tasks/${paused.id}`);
    await page.waitForSelector('#task-form[data-preview=done]');
    expect(await page.locator('#predicted-note').innerText()).toMatch(/^Paused/);
  });

  it('without the token: a browser gets a page saying how to get the link, scripts an empty 401; the favicon is open', async () => {
    const stranger = await con.browser.newPage();
    const res = await stranger.goto(`${con.served.base}/tasks`);
    expect(res?.status()).toBe(401);
    const text = await stranger.locator('main').innerText();
    expect(text).toContain('murmur serve');
    expect(text).toMatch(/murmur console: http:\/\/127\.0\.0\.1:\d+\/\?token=…/);
    await stranger.screenshot({ path: screenshotPath('no-token'), fullPage: true });
    const icon = await stranger.goto(`${con.served.base}/favicon.ico`);
    expect(icon?.status()).toBe(200);
    expect(icon?.headers()['content-type']).toBe('image/svg+xml');
    await stranger.close();
    const variants: Record<string, string>[] = [
      { accept: 'text/html' },
      { accept: 'application/json' },
      { accept: 'text/html', authorization: 'Bearer wrong' },
    ];
    for (const headers of variants) {
      for (const route of ['/api/tasks', '/tasks']) {
        const r = await fetch(`${con.served.base}${route}`, { headers });
        const isPage = headers.accept === 'text/html' && !('authorization' in headers) && route === '/tasks';
        expect(r.status, `${route} ${JSON.stringify(headers)}`).toBe(401);
        expect((await r.text()) === '', `${route} ${JSON.stringify(headers)}`).toBe(!isPage);
      }
    }
    // The pages carry the icon inline (no request for it).
    expect(await page.locator('link[rel=icon]').getAttribute('href')).toMatch(/^data:image\/svg\+xml,/);
  });
});
