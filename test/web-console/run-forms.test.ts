// Starting, stopping and resuming work from the console in Chromium, checked by what was saved: a run from the New
// run form completes and its page shows it; the glob count follows the typing; a 20-item swarm from the New swarm
// form is stopped mid-run and resumed from its page, and its report equals `murmur swarm`'s for the same inputs;
// forged starts are refused; a session held on another machine has Stop disabled, saying why.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumForSuite, openConsole, typeInto, type Console } from './browser-setup.js';
import { screenshotPath } from './helpers.js';
import { myIdentity } from '../../host/process-identity.js';

const available = chromiumForSuite();
const SCRIPT = {
  latencyMs: 0,
  agents: [
    { match: { role: 'worker', prompt: 'Process (\\S+)' }, turns: [{ latencyMs: 1000, text: 'Done $1' }] },
    {
      match: { role: 'main' },
      turns: [{ latencyMs: 200, text: 'Inventory: 3 modules', usage: { input: 90, output: 9 } }],
    },
  ],
};
const ITEMS = Array.from({ length: 20 }, (_, i) => `item${String(i + 1).padStart(2, '0')}`);

let con: Console;
let page: Page;
type Json = Record<string, unknown>;

async function cliJson(args: string[]): Promise<Json> {
  const r = await con.cli(args);
  expect(r.exitCode, r.stderr).toBeLessThan(2);
  return JSON.parse(r.stdout) as Json;
}
const sessions = async () => (await cliJson(['sessions', '--json'])) as unknown as Json[];
const report = (id: string) => cliJson(['report', id, '--json']);
const statusText = () => page.locator('#status').innerText();
const sessionIdOf = (url: string) => /\/sessions\/([^/?#]+)$/.exec(url)![1]!;

describe.skipIf(!available)('starting, stopping and resuming work from the console', () => {
  beforeAll(async () => {
    con = await openConsole(SCRIPT, {}, ['--no-scheduler']);
    page = con.page;
    mkdirSync(path.join(con.workspace, 'src'));
    for (const item of ITEMS) writeFileSync(path.join(con.workspace, 'src', `${item}.ts`), 'export {};\n');
  }, 60_000);
  afterAll(async () => {
    await con?.close();
  });

  it('a run from the New run form completes and its session page shows it; bad input is named at its field', async () => {
    await page.goto(`${con.served.base}/sessions`);
    await page.getByRole('link', { name: 'New run' }).click();
    await page.waitForURL(/\/runs\/new$/);
    await typeInto(page, 'model', 'scripted:/no/such/script.json');
    await page.getByRole('button', { name: 'Start run' }).click();
    await expect.poll(() => page.locator('[data-error=task]').innerText()).toMatch(/task is missing or empty/);
    expect(await page.locator('[data-error=model]').innerText()).toMatch(/does not exist/);
    await page.screenshot({ path: screenshotPath('run-form-errors'), fullPage: true });
    expect(await sessions()).toEqual([]);
    await typeInto(page, 'model', '');
    await typeInto(page, 'task', 'List the modules of this project');
    await page.selectOption('select[name=effort]', 'low');
    await page.selectOption('select[name=permissionMode]', 'auto');
    await page.screenshot({ path: screenshotPath('run-form'), fullPage: true });
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/\/sessions\/[\w-]+$/);
    const id = sessionIdOf(page.url());
    await expect.poll(statusText, { timeout: 20_000 }).toBe('completed');
    await expect.poll(() => page.locator('#tree').innerText()).toContain('Inventory: 3 modules');
    // Once its process has let the session go (a moment after run.end), neither Stop nor Resume is offered.
    await expect.poll(() => page.locator('#session-actions button').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('run-started-session'), fullPage: true });
    const [saved] = await sessions();
    expect(saved).toMatchObject({ id, kind: 'run', status: 'completed', task: 'List the modules of this project' });
    const state = JSON.parse(readFileSync(path.join(con.workspace, '.murmur/sessions', id, 'state.json'), 'utf8'));
    expect(state.settings).toMatchObject({ permissionMode: 'auto', effort: 'low' });
  });

  it('counts the files a glob matches as one types', async () => {
    await page.goto(`${con.served.base}/swarms/new`);
    await page.getByLabel('Files matching a glob').check();
    await page.locator('input[name=glob]').click();
    const count = () => page.locator('#glob-count').innerText();
    await page.keyboard.type('src/item0', { delay: 40 });
    await expect.poll(count).toBe('0 files match');
    await page.keyboard.type('*', { delay: 40 });
    await expect.poll(count).toMatch(/^9 files match: src\/item01\.ts, src\/item02\.ts, /);
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('1*', { delay: 40 });
    await expect.poll(count).toMatch(/^10 files match: src\/item10\.ts, /);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('**/*.ts', { delay: 40 });
    await expect.poll(count).toMatch(/^20 files match: /);
    await page.screenshot({ path: screenshotPath('swarm-form-glob'), fullPage: true });
  });

  it('a 20-item swarm from the New swarm form is stopped and resumed from its page, and reports as murmur swarm does', async () => {
    await page.goto(`${con.served.base}/swarms/new`);
    await typeInto(page, 'template', 'Process {{item}}');
    await page.locator('textarea[name=items]').click();
    await page.keyboard.type(ITEMS.join('\n'));
    expect(await page.locator('#items-count').innerText()).toBe('20 items');
    await typeInto(page, 'maxConcurrency', '4');
    await page.screenshot({ path: screenshotPath('swarm-form'), fullPage: true });
    await page.getByRole('button', { name: 'Start swarm' }).click();
    await page.waitForURL(/\/sessions\/[\w-]+$/);
    const id = sessionIdOf(page.url());
    const stop = page.getByRole('button', { name: 'Stop' });
    await expect.poll(() => stop.isEnabled()).toBe(true);
    // Mid-run: some items done, most not.
    await expect.poll(() => page.locator('.counts').innerText(), { timeout: 20_000 }).toMatch(/completed: [2-9]\b/);
    await page.screenshot({ path: screenshotPath('swarm-running'), fullPage: true });
    await stop.click();
    // Stop asks first (retry-script.ts): confirmed, it stops.
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm stop' }).click();
    await expect.poll(statusText, { timeout: 20_000 }).toBe('aborted');
    const resume = page.getByRole('button', { name: 'Resume' });
    await expect.poll(() => resume.isEnabled()).toBe(true);
    await page.screenshot({ path: screenshotPath('swarm-stopped'), fullPage: true });
    const stopped = await report(id);
    expect(stopped.status).toBe('aborted');
    const outcomes = (stopped.items as Json[]).map((i) => i.outcome);
    expect(outcomes.filter((o) => o === 'completed').length).toBeGreaterThanOrEqual(2);
    expect(outcomes.filter((o) => o === 'aborted').length).toBeGreaterThanOrEqual(8);

    await resume.click();
    await expect.poll(statusText, { timeout: 30_000 }).toBe('completed');
    await page.screenshot({ path: screenshotPath('swarm-resumed'), fullPage: true });
    const fromConsole = await report(id);
    // The same swarm on the command line, in another workspace with the same files.
    const itemsFile = path.join(con.dir, 'items.txt');
    writeFileSync(itemsFile, ITEMS.join('\n'));
    const other = path.join(con.dir, 'ws2');
    cpSync(path.join(con.workspace, 'src'), path.join(other, 'src'), { recursive: true });
    const cli = await cliJson([
      'swarm',
      '--template',
      'Process {{item}}',
      '--items-file',
      itemsFile,
      '--max-concurrency',
      '4',
      '--cwd',
      other,
      '--json',
    ]);
    // Their own sessions: their own ids, starts and durations.
    const { sessionId: a, startedAt: _startedA, durationMs: _tookA, ...mine } = fromConsole;
    const { sessionId: b, startedAt: _startedB, durationMs: _tookB, ...theirs } = cli;
    expect(a).toBe(id);
    expect(b).not.toBe(id);
    expect(mine).toEqual(theirs);
    expect(mine.summary).toEqual({ completed: 20 });
  }, 90_000);

  it('refuses a forged start: no token, or the cookie from another origin, or not JSON', async () => {
    const before = (await sessions()).length;
    const body = JSON.stringify({ template: 'Process {{item}}', items: ['x'] });
    const url = `${con.served.base}/api/swarms`;
    const json = { 'content-type': 'application/json' };
    expect((await fetch(url, { method: 'POST', headers: json, body })).status).toBe(401);
    expect((await fetch(`${con.served.base}/api/runs`, { method: 'POST', headers: json, body })).status).toBe(401);
    const [cookie] = await page.context().cookies();
    const withCookie = { ...json, cookie: `${cookie!.name}=${cookie!.value}` };
    const foreign = await fetch(url, {
      method: 'POST',
      headers: { ...withCookie, origin: 'http://evil.example' },
      body,
    });
    expect(foreign.status).toBe(403);
    const noOrigin = await fetch(url, { method: 'POST', headers: withCookie, body });
    expect(noOrigin.status).toBe(403);
    const plain = await fetch(url, {
      method: 'POST',
      headers: { ...withCookie, origin: con.served.base, 'content-type': 'text/plain' },
      body,
    });
    expect(plain.status).toBe(400);
    const stopForged = await fetch(`${con.served.base}/api/sessions/x/stop`, {
      method: 'POST',
      headers: { ...withCookie, origin: 'http://localhost:1' },
    });
    expect(stopForged.status).toBe(403);
    expect((await sessions()).length).toBe(before);
  });

  it('takes a long list of items (up to 32 MB) on /api/swarms only', async () => {
    const auth = { authorization: `Bearer ${con.served.token}`, 'content-type': 'application/json' };
    // 2 MB of items without a template: read whole (not 413), refused for the template.
    const items = Array.from({ length: 100_000 }, (_, i) => `src/module-${i}.ts`);
    const big = await fetch(`${con.served.base}/api/swarms`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ items }),
    });
    expect(big.status).toBe(400);
    expect(((await big.json()) as { errors: { field: string }[] }).errors.map((e) => e.field)).toEqual(['template']);
    const run = await fetch(`${con.served.base}/api/runs`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ task: 'x'.repeat(2 << 20) }),
    });
    expect(run.status).toBe(413);
    expect(((await run.json()) as { error: string }).error).toMatch(/limit of 1 MB/);
    // The client's next requests go over the same kept-alive connection: it is still there.
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${con.served.base}/api/sessions`, { headers: auth })).status).toBe(200);
  });

  it('says "too large" in words at the field: before sending, and when the console refuses a body', async () => {
    const before = (await sessions()).length;
    await page.goto(`${con.served.base}/runs/new`);
    // 1.1 MB of task, filled at once (typed, it would take minutes); the limit of a run's body is 1 MB.
    await page.locator('textarea[name=task]').fill('x'.repeat(1_150_000));
    await page.getByRole('button', { name: 'Start run' }).click();
    const error = page.locator('[data-error=task]');
    await expect
      .poll(() => error.innerText())
      .toMatch(/^Too large: the form holds 1\.1 MB and the console takes up to 1\.0 MB\. Put the long part in a file/);
    await page.screenshot({ path: screenshotPath('run-form-too-large'), fullPage: true });
    // A page that does not know the limit (one loaded before an upgrade): the console's 413 is read and said.
    await page.evaluate("document.querySelector('#run-form').removeAttribute('data-max-bytes')");
    await page.getByRole('button', { name: 'Start run' }).click();
    await expect
      .poll(() => error.innerText())
      .toMatch(/^Too large: the request body is over this console's limit of 1 MB/);
    expect(await page.locator('#run-form').getAttribute('data-state')).toBe('error');
    expect((await sessions()).length).toBe(before);
  });

  it('disables Stop, saying why, for a session whose lock holder is on another machine', async () => {
    const [done] = await sessions();
    const sessionsDir = path.join(con.workspace, '.murmur/sessions');
    const id = '20260101-000000-away';
    cpSync(path.join(sessionsDir, done!.id as string), path.join(sessionsDir, id), { recursive: true });
    const stateFile = path.join(sessionsDir, id, 'state.json');
    writeFileSync(stateFile, JSON.stringify({ ...JSON.parse(readFileSync(stateFile, 'utf8')), status: 'running' }));
    writeFileSync(path.join(sessionsDir, id, 'events.jsonl'), '');
    const lock = { pid: 4242, host: 'build-box-7', bootId: 'b', startTime: '1', startedAt: Date.now() };
    writeFileSync(path.join(sessionsDir, id, 'owner.lock'), JSON.stringify(lock));
    await page.goto(`${con.served.base}/sessions/${id}`);
    const stop = page.getByRole('button', { name: 'Stop' });
    await expect.poll(() => stop.count()).toBe(1);
    expect(await stop.isDisabled()).toBe(true);
    const note = await page.locator('#control-note').innerText();
    expect(note).toMatch(/pid 4242 on build-box-7, not this machine/);
    await page.screenshot({ path: screenshotPath('session-stop-disabled'), fullPage: true });
    const forced = await fetch(`${con.served.base}/api/sessions/${id}/stop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${con.served.token}` },
    });
    expect(forced.status).toBe(409);
    expect(((await forced.json()) as { error: string }).error).toMatch(/not this machine/);
    // A lock naming a live pid of this machine that started at another time is not its holder: no Stop, no signal.
    const me = myIdentity();
    writeFileSync(path.join(sessionsDir, id, 'owner.lock'), JSON.stringify({ ...me, startTime: '1', startedAt: 1 }));
    const control = await fetch(`${con.served.base}/api/sessions/${id}/control`, {
      headers: { authorization: `Bearer ${con.served.token}` },
    });
    expect(await control.json()).toMatchObject({ status: 'interrupted', running: false, resume: { enabled: true } });
    const notHeld = await fetch(`${con.served.base}/api/sessions/${id}/stop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${con.served.token}` },
    });
    expect(notHeld.status).toBe(409);
    expect(((await notHeld.json()) as { error: string }).error).toMatch(/not running/);
  });
});
