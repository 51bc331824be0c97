// The scheduled-task pages' last details, in Chromium and checked by what was saved: the model select offers every
// model the command line can name (the configured default, the providers' defaults, the models tasks use) and
// "Other…" saves a typed spec; a run of missed fires shows how many it stands for; an early one-shot fire says how
// early; the header's run count follows the History table live. A `murmur scheduler` with a shifted clock
// (MURMUR_CRON_CLOCK_OFFSET_MS) makes the fires, next to a console without its own scheduler.
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import type { Page } from 'playwright-core';
import { chromiumForSuite, consoleForSuite, typeInto, type Console, type Task } from './browser-setup.js';
import { addTask, lastRunWhen, runsOf } from './held-runs.js';
import { MAIN, screenshotPath } from './helpers.js';
import { CronStore } from '../../scheduler/store.js';
import { jitterMs } from '../../scheduler/firing.js';
import { stateHome } from '../../orchestrator/session.js';

const available = chromiumForSuite();
const SCRIPT = { agents: [{ match: { role: 'main' }, turns: [{ text: 'fired and done' }] }] };
const MIN = 60_000;

let con: Console;
let page: Page;

const listed = async () => JSON.parse((await con.cli(['schedule', 'list', '--json'])).stdout) as Task[];

/** `murmur scheduler --cwd` on the console's workspace, its clock `offsetMs` ahead, until `until` resolves. */
async function schedulerWhile(offsetMs: number, until: () => Promise<unknown>): Promise<void> {
  const child = execa(process.execPath, [MAIN, 'scheduler', '--cwd', con.workspace], {
    reject: false,
    cwd: con.workspace,
    env: { ...con.env, MURMUR_CRON_CHECK_MS: '200', MURMUR_CRON_CLOCK_OFFSET_MS: String(Math.round(offsetMs)) },
    extendEnv: false,
    stdin: 'ignore',
  });
  try {
    await until();
  } finally {
    child.kill('SIGTERM');
    await child;
  }
}

describe.skipIf(!available)('scheduled tasks: models, missed and early fires, a live header', () => {
  const suite = consoleForSuite(SCRIPT);
  beforeAll(() => {
    con = suite();
    page = con.page;
  });

  it('offers every model the CLI can name, and saves one typed under "Other…"', async () => {
    await addTask(con, 'Uses a model', 'x', ['--model', 'openai:gpt-4o-mini']);
    await page.goto(`${con.served.base}/tasks/new`);
    const labels = await page.locator('select[name=model] option').allTextContents();
    const configured = con.env.MURMUR_MODEL!;
    expect(labels[0]).toBe(`workspace default (now ${configured})`);
    expect(labels).toContain(`${configured} — the default, from MURMUR_MODEL`);
    expect(labels).toContain('openai:gpt-4o-mini — used by a task');
    expect(labels).toContain("openai:gpt-4.1 — OpenAI's default; needs OPENAI_API_KEY");
    expect(labels).toContain("anthropic:claude-sonnet-4-6 — Anthropic's default; needs ANTHROPIC_API_KEY");
    expect(labels.at(-1)).toBe('Other…');
    expect(await page.locator('input[name=modelOther]').isVisible()).toBe(false);

    const other = path.join(con.dir, 'other-script.json');
    copyFileSync(path.join(con.dir, 'script.json'), other);
    await typeInto(page, 'title', 'Typed model');
    await page.locator('input[name=kind][value=daily]').check();
    await typeInto(page, 'time', '07:15');
    await typeInto(page, 'prompt', 'Summarise the logs');
    await page.selectOption('select[name=model]', 'other');
    expect(await page.locator('input[name=modelOther]').isVisible()).toBe(true);
    // Left empty, it is named before anything is sent.
    await page.getByRole('button', { name: 'Create task' }).click();
    await expect.poll(() => page.locator('[data-error=model]').innerText()).toMatch(/Type the model/);
    await page.locator('input[name=modelOther]').click();
    await page.keyboard.type(`scripted:${other}`);
    await page.screenshot({ path: screenshotPath('task-form-model-other'), fullPage: true });
    await page.getByRole('button', { name: 'Create task' }).click();
    await page.waitForURL(/\/tasks$/);
    const saved = await con.show((await listed()).find((t) => t.title === 'Typed model')!.id);
    expect(saved).toMatchObject({ model: `scripted:${other}`, cron: '15 7 * * *' });
    // Its Settings tab shows the saved model chosen.
    await page.goto(`${con.served.base}/tasks/${saved.id}?tab=settings`);
    expect(await page.locator('select[name=model]').inputValue()).toBe(`scripted:${other}`);
    // The New run form suggests the same models.
    await page.goto(`${con.served.base}/runs/new`);
    const suggested = await page
      .locator('#model-list option')
      .evaluateAll((els) => els.map((el) => (el as unknown as { value: string }).value));
    expect(suggested).toEqual(expect.arrayContaining([configured, 'openai:gpt-4.1', `scripted:${other}`]));
  }, 60_000);

  it('a run standing for missed fires says how many on its row; the header counts it live', async () => {
    const added = await con.cli([
      'schedule',
      'add',
      '--cron',
      '* * * * *',
      '--title',
      'Every minute',
      '--prompt',
      'Tick',
    ]);
    expect(added.exitCode, added.stderr).toBe(0);
    const task = (await listed()).find((t) => t.title === 'Every minute')!;
    await page.goto(`${con.served.base}/tasks/${task.id}?tab=history`);
    const meta = page.locator('#task-meta');
    expect(await meta.textContent()).toContain('· 0 runs ·');
    // The scheduler comes back 3.5 minutes after the task was armed: the missed fires are one run.
    await schedulerWhile(3.5 * MIN, () => lastRunWhen(con, task, /^(succeeded|failed)$/));
    const [run] = (await runsOf(con, task.id)) as unknown as { coalescedCount?: number; state: string }[];
    expect(run!.coalescedCount).toBeGreaterThanOrEqual(3);
    const row = page.locator('#history tr[data-run]').first();
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 15_000 }).toBe(run!.state);
    // The row's trigger is drawn with its state, but on a loaded machine a read can fall between the two.
    await expect
      .poll(() => row.locator('.trigger').textContent())
      .toBe(`scheduled (${run!.coalescedCount} fires in one)`);
    await expect.poll(() => meta.textContent()).toContain('· 1 run ·');
    await page.screenshot({ path: screenshotPath('history-coalesced-live-count'), fullPage: true });
    await con.cli(['schedule', 'pause', task.id]);
  }, 60_000);

  it('an early one-shot fire (at :00 or :30) is recorded early, and says by how much', async () => {
    // The next :00 or :30 at least 5 minutes away, as a one-shot cron.
    const half = 30 * MIN;
    const ideal = Math.ceil((Date.now() + 5 * MIN) / half) * half;
    const d = new Date(ideal);
    const cron = `${d.getUTCMinutes()} ${d.getUTCHours()} ${d.getUTCDate()} ${d.getUTCMonth() + 1} *`;
    const r = await con.cli(['schedule', 'add', '--cron', cron, '--once', '--title', 'Early bird', '--prompt', 'Go']);
    expect(r.exitCode, r.stderr).toBe(0);
    const task = (await listed()).find((t) => t.title === 'Early bird')!;
    const stored = new CronStore(con.workspace, stateHome(con.workspace, con.env)).get(task.id)!;
    const jitter = jitterMs(stored, ideal);
    expect(jitter).toBeLessThanOrEqual(0);
    // The scheduler's clock set to 2 s before the jittered fire time.
    await schedulerWhile(ideal + jitter - 2000 - Date.now(), () => lastRunWhen(con, task, /^(succeeded|failed)$/));
    const [run] = (await runsOf(con, task.id)) as unknown as { lateMs: number }[];
    // It fired at its jittered time (the scheduler checks every 200 ms once it is up), before the ideal one.
    expect(run!.lateMs).toBeGreaterThanOrEqual(jitter);
    expect(run!.lateMs).toBeLessThanOrEqual(jitter + 5000);
    await page.goto(`${con.served.base}/tasks/${task.id}?tab=history`);
    const cells = await page.locator('#history tr[data-run] td').allTextContents();
    const seconds = Math.round(-run!.lateMs / 1000);
    expect(cells[3]).toBe(seconds >= 1 ? `${seconds} s early` : 'on time');
    await page.screenshot({ path: screenshotPath('history-early-one-shot'), fullPage: true });
    const shown = await con.cli(['schedule', 'show', task.id]);
    expect(shown.stdout).toMatch(seconds >= 1 ? new RegExp(`early ${seconds} s`) : /late 0 s/);
  }, 60_000);
});
