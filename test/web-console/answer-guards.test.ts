// What may not answer a held session, and runs that explain themselves, in Chromium against `murmur serve`: an
// answer without the token or from a foreign origin is refused and nothing is recorded; answering a session that
// another process runs is refused naming it; a run that failed before its session started shows the reason on
// its History row and its log opens; a session link to no session (yet) and an unreadable session say why.
import { seriousViolations } from './axe.js';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { myIdentity } from '../../host/process-identity.js';
import { chromiumForSuite, type Console, type Task } from './browser-setup.js';
import { addTask, lastRunWhen, runsOf, scheduledConsoleForSuite } from './held-runs.js';
import { screenshotPath } from './helpers.js';

const available = chromiumForSuite();

const SCRIPT = {
  agents: [
    {
      match: { prompt: 'Guard me' },
      turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo guarded' } }] }, { text: 'guarded' }],
    },
  ],
};

let con: Console;
let page: Page;

const add = (title: string, prompt: string, extra: string[] = []) => addTask(con, title, prompt, extra);
const settled = (task: Task) => lastRunWhen(con, task, /succeeded|failed|waiting-for-approval|interrupted/);

/** What the session waits for: its saved state's interruptions. */
const waitingFor = (sid: string) =>
  (
    JSON.parse(readFileSync(path.join(con.workspace, '.murmur', 'sessions', sid, 'state.json'), 'utf8')) as {
      interruptions: { callId: string; answer?: unknown }[];
    }
  ).interruptions;

describe.skipIf(!available)('answers only from the console, and failed runs that explain themselves', () => {
  const suite = scheduledConsoleForSuite(SCRIPT);
  beforeAll(() => {
    con = suite();
    page = con.page;
  });

  it('refuses a forged answer (no token, a foreign origin) and an answer to a session another process runs', async () => {
    const task = await add('Guarded', 'Guard me', ['--permission-mode', 'manual']);
    expect((await con.cli(['schedule', 'run-now', task.id])).exitCode).toBe(0);
    const run = await settled(task);
    expect(run.state).toBe('waiting-for-approval');
    const { callId } = waitingFor(run.sessionId)[0]!;
    const url = `${con.served.base}/api/sessions/${run.sessionId}/answers`;
    const body = JSON.stringify({ callId, kind: 'allow_once' });
    // No token at all.
    const bare = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(bare.status).toBe(401);
    // The browser's cookie, sent from another origin (a page on another local port).
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const foreign = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie,
        origin: 'http://127.0.0.1:1',
        'sec-fetch-site': 'same-site',
      },
      body,
    });
    expect(foreign.status).toBe(403);
    // A form post (not JSON) from the console's own origin is not an answer either.
    const form = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', cookie, origin: con.served.base },
      body,
    });
    expect(form.status).toBe(400);
    // Another process runs the session (its owner.lock names a live process: this test's).
    const lock = path.join(con.workspace, '.murmur', 'sessions', run.sessionId, 'owner.lock');
    writeFileSync(lock, JSON.stringify({ ...myIdentity(), startedAt: Date.now() }));
    await page.goto(`${con.served.base}/sessions/${run.sessionId}`);
    await expect.poll(() => page.locator('#pending').textContent()).toContain(`pid ${process.pid}`);
    expect(await page.locator('.pending-card button[data-kind=allow_once]').isDisabled()).toBe(true);
    const busy = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${con.served.token}` },
      body,
    });
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as { error: string }).error).toContain(`pid ${process.pid}`);
    rmSync(lock);
    // Nothing was recorded: the call still waits for its answer.
    expect(waitingFor(run.sessionId)[0]!.answer).toBeUndefined();
    expect((await runsOf(con, task.id)).at(-1)!.state).toBe('waiting-for-approval');
  }, 90_000);

  it('shows why a run failed on its History row, and its log opens', async () => {
    const script = path.join(con.workspace, 'gone.json');
    writeFileSync(script, JSON.stringify({ agents: [] }));
    const task = await add('Fails at once', 'Anything', ['--model', 'scripted:gone.json']);
    rmSync(script);
    await page.goto(`${con.served.base}/tasks/${task.id}?tab=history`);
    await page.getByRole('button', { name: 'Run now' }).click();
    const row = page.locator('#history tr[data-run]').first();
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 30_000 }).toBe('failed');
    const result = await row.locator('td.result').textContent();
    expect(result).toContain('gone.json');
    expect(result).not.toContain('(see its log)');
    await page.screenshot({ path: screenshotPath('history-failed-reason'), fullPage: true });
    await row.getByRole('link', { name: 'log' }).click();
    await page.waitForURL(/\/runs\/.+\/log$/);
    expect(await page.locator('pre.log').textContent()).toContain('gone.json');
    await page.screenshot({ path: screenshotPath('run-log'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    const runId = (await runsOf(con, task.id)).at(-1)!.id;
    const plain = await fetch(`${con.served.base}/api/tasks/${task.id}/runs/${runId}/log`, {
      headers: { authorization: `Bearer ${con.served.token}` },
    });
    expect(plain.headers.get('content-type')).toContain('text/plain');
    expect(await plain.text()).toContain('gone.json');
  }, 90_000);

  it('says why a session cannot be shown: not there yet, or its state unreadable (as murmur sessions says)', async () => {
    const missing = await page.goto(`${con.served.base}/sessions/20990101-000000-nothing`);
    expect(missing?.status()).toBe(404);
    expect(await page.locator('main .notice').textContent()).toContain('There is no session');
    expect(await page.locator('link[rel=stylesheet]').count()).toBe(1);
    await page.screenshot({ path: screenshotPath('session-missing'), fullPage: true });
    const broken = path.join(con.workspace, '.murmur', 'sessions', '20990101-000000-broken');
    mkdirSync(broken, { recursive: true });
    writeFileSync(path.join(broken, 'state.json'), '{"version": 1, ');
    const cli = JSON.parse((await con.cli(['sessions', '--json'])).stdout) as { id: string; problem?: string }[];
    const problem = cli.find((s) => s.id === '20990101-000000-broken')!.problem!;
    expect(problem).toMatch(/not valid JSON/);
    await page.goto(`${con.served.base}/sessions`);
    expect(await page.locator('tr', { hasText: '20990101-000000-broken' }).textContent()).toContain(problem);
    await page.screenshot({ path: screenshotPath('sessions-unreadable'), fullPage: true });
    await page.goto(`${con.served.base}/sessions/20990101-000000-broken`);
    expect(await page.locator('main .notice').textContent()).toContain(problem);
  }, 60_000);
});
