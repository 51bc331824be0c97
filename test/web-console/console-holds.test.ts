// Work started from the console in a permission mode that asks is held, not denied, and answered on its page —
// in Chromium, as a person does it, then checked by what was saved (`murmur sessions --json`, `murmur report`,
// state.json, the transcripts): a run from the New run form in manual mode asks for bash, waits for approval, is
// approved on its session page and completes; a swarm from the New swarm form holds at each item's request in turn.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { readSessionTranscripts } from '../../orchestrator/session.js';
import { chromiumForSuite, consoleForSuite, typeInto, type Console } from './browser-setup.js';
import { screenshotPath } from './helpers.js';

const available = chromiumForSuite();
const SCRIPT = {
  agents: [
    {
      match: { role: 'main', prompt: 'Approve me' },
      turns: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo approved-from-the-form' } }] },
        { latencyMs: 1500, text: 'approved and ran' },
      ],
    },
    {
      match: { role: 'worker', prompt: 'Touch (\\S+)' },
      turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo touched-$1' } }] }, { text: 'Touched $1' }],
    },
  ],
};

let con: Console;
let page: Page;
type Json = Record<string, unknown>;

/** What `murmur ARGS --json` printed (a run that did not complete exits 1 and still prints it). */
const cliJson = (args: string[]) =>
  con.cli(args).then((r) => (expect(r.exitCode, r.stderr).toBeLessThan(2), JSON.parse(r.stdout) as unknown));
const sessionOf = async (id: string) => ((await cliJson(['sessions', '--json'])) as Json[]).find((s) => s.id === id);
const statusText = () => page.locator('#status').textContent();
const sessionIdOf = (url: string) => /\/sessions\/([^/?#]+)$/.exec(url)![1]!;
const sessionFile = (id: string, ...rest: string[]) => path.join(con.workspace, '.murmur', 'sessions', id, ...rest);
const stateOf = (id: string) => JSON.parse(readFileSync(sessionFile(id, 'state.json'), 'utf8')) as Json;

/** The page's card for the request, once the session is held; its text. */
async function heldCard(): Promise<string> {
  await expect.poll(statusText, { timeout: 30_000 }).toBe('waiting');
  const card = page.locator('.pending-card').first();
  await card.waitFor();
  return (await card.textContent()) ?? '';
}

describe.skipIf(!available)('work started from the console waits for approval on its page', () => {
  const suite = consoleForSuite(SCRIPT);
  beforeAll(() => {
    con = suite();
    page = con.page;
  });

  it('a run from the New run form in manual mode asks for bash, is approved on its page and completes', async () => {
    await page.goto(`${con.served.base}/sessions`);
    await page.getByRole('link', { name: 'New run' }).click();
    await page.waitForURL(/\/runs\/new$/);
    await typeInto(page, 'task', 'Approve me: print a line');
    await page.selectOption('select[name=permissionMode]', 'manual');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/\/sessions\/[\w-]+$/);
    const id = sessionIdOf(page.url());

    const text = await heldCard();
    expect(text).toContain('echo approved-from-the-form');
    expect(text).toContain('wants to run bash');
    await page.screenshot({ path: screenshotPath('console-run-waiting-for-approval'), fullPage: true });
    // Saved as held: the CLI shows it waiting, and the command did not run.
    expect(await sessionOf(id)).toMatchObject({ status: 'waiting', task: 'Approve me: print a line' });
    expect(stateOf(id).settings).toMatchObject({ permissionMode: 'manual' });
    expect(readFileSync(sessionFile(id, 'agents', 'main', 'transcript.jsonl'), 'utf8')).not.toContain(
      'approved-from-the-form\\n',
    );

    await page.locator('.pending-card').getByRole('button', { name: 'Approve', exact: true }).click();
    await expect.poll(statusText, { timeout: 30_000 }).toBe('completed');
    await expect.poll(() => page.locator('#tree').innerText()).toContain('approved and ran');
    expect(await page.locator('.pending-card').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('console-run-approved'), fullPage: true });
    expect(await sessionOf(id)).toMatchObject({ status: 'completed' });
    const transcript = readFileSync(sessionFile(id, 'agents', 'main', 'transcript.jsonl'), 'utf8');
    expect(transcript).toContain('approved-from-the-form\\n');
    const report = (await cliJson(['report', id, '--json'])) as Json;
    expect(report).toMatchObject({ status: 'completed', result: 'approved and ran' });
  }, 90_000);

  it('a swarm from the New swarm form holds at each item in turn, each approved on its page', async () => {
    await page.goto(`${con.served.base}/swarms/new`);
    await typeInto(page, 'template', 'Touch {{item}}');
    await page.locator('textarea[name=items]').click();
    await page.keyboard.type('alpha\nbeta');
    await typeInto(page, 'maxConcurrency', '1');
    await page.selectOption('select[name=permissionMode]', 'manual');
    await page.getByRole('button', { name: 'Start swarm' }).click();
    await page.waitForURL(/\/sessions\/[\w-]+$/);
    const id = sessionIdOf(page.url());

    // Both items wait at once (a swarm holds many requests): one card each; the run carries on once both are answered.
    await expect.poll(statusText, { timeout: 30_000 }).toBe('waiting');
    const cards = page.locator('.pending-card');
    await expect.poll(() => cards.count(), { timeout: 30_000 }).toBe(2);
    expect(await sessionOf(id)).toMatchObject({ kind: 'swarm', status: 'waiting' });
    expect((await cards.allTextContents()).join(' ')).toMatch(
      /echo touched-alpha[\s\S]*echo touched-beta|echo touched-beta[\s\S]*echo touched-alpha/,
    );
    await page.screenshot({ path: screenshotPath('console-swarm-waiting-for-approval'), fullPage: true });
    await cards.nth(0).getByRole('button', { name: 'Approve', exact: true }).click();
    await expect.poll(() => cards.nth(0).textContent()).toContain('1 more to answer');
    await cards.nth(1).getByRole('button', { name: 'Approve', exact: true }).click();
    await expect.poll(statusText, { timeout: 30_000 }).toBe('completed');
    await page.screenshot({ path: screenshotPath('console-swarm-approved'), fullPage: true });
    const report = (await cliJson(['report', id, '--json'])) as { status: string; items: Json[] };
    expect(report.status).toBe('completed');
    expect(report.items.map((i) => [i.item, i.outcome, i.text])).toEqual([
      ['alpha', 'completed', 'Touched alpha'],
      ['beta', 'completed', 'Touched beta'],
    ]);
    // The items' transcripts are packed: read through the session's reader.
    const transcripts = readSessionTranscripts(sessionFile(id), ['a-1', 'a-2']);
    for (const [agent, item] of [
      ['a-1', 'alpha'],
      ['a-2', 'beta'],
    ])
      expect(JSON.stringify(transcripts.get(agent!)!.messages)).toContain(`touched-${item}\\n`);
    expect(await sessionOf(id)).toMatchObject({ status: 'completed' });
  }, 120_000);
});
