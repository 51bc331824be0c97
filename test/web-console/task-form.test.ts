// The scheduled-task form in Chromium, used as a person uses it — clicking the kind, typing the title, the time,
// the dates and the instruction, choosing from the selects — and then checked by what was saved: for every kind
// of schedule, `murmur schedule show ID --json` of the task the form made equals that of the task
// `murmur schedule add` makes from the same choices. Also: a task's zone survives an edit of its title, a cleared
// time is an error in plain words, and the first submit error stays on screen.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { localDateText, localTime } from '../../scheduler/schedule.js';
import { chromiumForSuite, consoleForSuite, typeInto as typeIn, type Console, type Task } from './browser-setup.js';
import { screenshotPath } from './helpers.js';

const available = chromiumForSuite();
let page: Page;
let con: () => Console;

async function ids(): Promise<string[]> {
  const r = await con().cli(['schedule', 'list', '--json', '--cwd', con().workspace]);
  return (JSON.parse(r.stdout) as Task[]).map((t) => t.id);
}
/** What must be equal between two tasks made from the same choices (not their id, birth or history). */
function definition(task: Task): Record<string, unknown> {
  const { id: _id, createdAt: _createdAt, history: _history, ...rest } = task;
  return rest;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** The local date and time `hours` (and `days`) from now in `zone`: far from any fire time of now. */
function later(zone: string, hours: number, days = 0): { date: string; time: string; h: number; m: number } {
  const t = Date.now() + hours * 3_600_000 + days * 86_400_000;
  const { hour: h, minute: m } = localTime(t, zone);
  return { date: localDateText(t, zone), time: `${pad(h)}:${pad(m)}`, h, m };
}
const typeInto = (name: string, text: string) => typeIn(page, name, text);

/** Chromium's time field (en-US: hh:mm AM/PM), clicked on its first segment and typed segment by segment. */
async function typeTime(time: string): Promise<void> {
  const [h, m] = time.split(':').map(Number) as [number, number];
  await page.locator('input[name=time]').click({ position: { x: 6, y: 8 } });
  await page.keyboard.type(`${pad(h % 12 || 12)}${pad(m)}${h < 12 ? 'A' : 'P'}`);
  expect(await page.inputValue('input[name=time]')).toBe(time);
}
/** Chromium's date field (en-US: mm/dd/yyyy). */
async function typeDate(name: string, date: string): Promise<void> {
  const [y, mo, d] = date.split('-');
  await page.locator(`input[name=${name}]`).click({ position: { x: 6, y: 8 } });
  await page.keyboard.type(`${mo}${d}${y}`);
  expect(await page.inputValue(`input[name=${name}]`)).toBe(date);
}

interface Choices {
  title: string;
  kind: string;
  zone: string;
  fill: () => Promise<void>;
  /** The flags of `murmur schedule add` for the same choices. */
  flags: string[];
  permissionMode?: string;
  effort?: string;
}

/** Makes the task through the form, then the same with the CLI, and gives both as `schedule show --json`. */
async function bothWays(choices: Choices): Promise<[Task, Task]> {
  const before = new Set(await ids());
  await page.goto(`${con().served.base}/tasks/new`);
  await typeInto('title', choices.title);
  await page.getByLabel(choices.kind, { exact: true }).check();
  await choices.fill();
  await page.selectOption('select[name=timezone]', choices.zone);
  if (choices.permissionMode) await page.selectOption('select[name=permissionMode]', choices.permissionMode);
  if (choices.effort) await page.selectOption('select[name=effort]', choices.effort);
  await typeInto('prompt', `Check the ${choices.title}`);
  await page.waitForSelector('#task-form[data-preview=done]');
  expect(await page.locator('#predicted .next').innerText()).toContain(choices.zone);
  await page.screenshot({ path: screenshotPath(`form-${choices.title.replace(/\W+/g, '-')}`), fullPage: true });
  await page.getByRole('button', { name: 'Create task' }).click();
  await page.waitForURL(/\/tasks$/);
  const made = (await ids()).filter((id) => !before.has(id));
  expect(made).toHaveLength(1);
  const extra = [
    ...(choices.permissionMode ? ['--permission-mode', choices.permissionMode] : []),
    ...(choices.effort ? ['--effort', choices.effort] : []),
  ];
  const added = await con().cli([
    'schedule',
    'add',
    ...choices.flags,
    '--title',
    choices.title,
    '--prompt',
    `Check the ${choices.title}`,
    '--timezone',
    choices.zone,
    ...extra,
    '--cwd',
    con().workspace,
    '--json',
  ]);
  expect(added.exitCode, added.stderr).toBe(0);
  return [await con().show(made[0]!), await con().show((JSON.parse(added.stdout) as Task).id)];
}

describe.skipIf(!available)('the scheduled-task form in Chromium saves what it shows', () => {
  con = consoleForSuite();
  beforeAll(() => {
    page = con().page;
  });

  const cases: (() => Choices)[] = [
    () => {
      const m = (new Date().getUTCMinutes() + 30) % 60;
      return {
        title: 'hourly',
        kind: 'Hourly',
        zone: 'UTC',
        fill: async () => {
          await typeInto('minute', String(m));
          await typeInto('maxFires', '5');
        },
        flags: ['--cron', `${m} * * * *`, '--max-fires', '5'],
      };
    },
    () => {
      const t = later('Asia/Kolkata', 6);
      const until = later('Asia/Kolkata', 0, 40).date;
      return {
        title: 'daily',
        kind: 'Daily',
        zone: 'Asia/Kolkata',
        fill: async () => {
          await typeTime(t.time);
          await typeDate('until', until);
        },
        flags: ['--cron', `${t.m} ${t.h} * * *`, '--until', until],
      };
    },
    () => {
      const t = later('Europe/Kyiv', 7);
      return {
        title: 'weekday',
        kind: 'Every weekday',
        zone: 'Europe/Kyiv',
        permissionMode: 'auto',
        effort: 'high',
        fill: () => typeTime(t.time),
        flags: ['--cron', `${t.m} ${t.h} * * 1-5`],
      };
    },
    () => {
      // The case: Weekly with an end date once saved `until: null`.
      const t = later('America/Argentina/Buenos_Aires', 8);
      const until = later('UTC', 0, 300).date;
      return {
        title: 'weekly',
        kind: 'Weekly',
        zone: 'America/Argentina/Buenos_Aires',
        fill: async () => {
          await page.selectOption('select[name=day]', '5');
          await typeTime(t.time);
          await typeDate('until', until);
        },
        flags: ['--cron', `${t.m} ${t.h} * * 5`, '--until', until],
      };
    },
    () => {
      const t = later('Asia/Ho_Chi_Minh', 9);
      return {
        title: 'monthly',
        kind: 'Monthly',
        zone: 'Asia/Ho_Chi_Minh',
        fill: async () => {
          await typeInto('dom', '31');
          await typeTime(t.time);
        },
        flags: ['--cron', `${t.m} ${t.h} 31 * *`],
        permissionMode: 'manual',
      };
    },
    ...(
      [
        ['3', 'd', 'days'],
        ['2', 'w', 'weeks'],
        ['2', 'mo', 'months'],
      ] as const
    ).map(([n, unit, words]) => () => {
      const start = later('UTC', 0, 2).date;
      const until = later('UTC', 0, 200).date;
      return {
        title: `every ${n} ${words}`,
        kind: 'Custom',
        zone: 'UTC',
        fill: async () => {
          await typeInto('everyN', n);
          await page.selectOption('select[name=everyUnit]', unit);
          await typeDate('start', start);
          await typeDate('until', until);
          await typeTime('10:15');
          if (unit === 'mo') await typeInto('maxFires', '4');
        },
        flags: [
          '--every',
          `${n}${unit}`,
          '--at',
          '10:15',
          '--start',
          start,
          '--until',
          until,
          ...(unit === 'mo' ? ['--max-fires', '4'] : []),
        ],
      };
    }),
    () => {
      const day = later('Europe/Berlin', 0, 3).date;
      return {
        title: 'once',
        kind: 'Once',
        zone: 'Europe/Berlin',
        fill: async () => {
          await typeDate('date', day);
          await typeTime('16:45');
        },
        flags: ['--every', '1d', '--at', '16:45', '--start', day, '--until', day],
      };
    },
  ];

  it.each(cases.map((make) => [make().title, make] as const))(
    '%s: the form and murmur schedule add make the same task',
    async (_title, make) => {
      const choices = make();
      const [fromForm, fromCli] = await bothWays(choices);
      expect(definition(fromForm)).toEqual(definition(fromCli));
      expect(fromForm.timezone).toBe(choices.zone);
      expect(fromForm.title).toBe(choices.title);
    },
    30_000,
  );

  it('shows only the fields of the chosen kind, and sends nothing typed into the others', async () => {
    await page.goto(`${con().served.base}/tasks/new`);
    const shown = async () =>
      (await page
        .locator('.schedule label[data-for]')
        .evaluateAll((els) =>
          els
            .filter((el) => (el as unknown as { offsetParent: unknown }).offsetParent !== null)
            .map((el) => (el as unknown as { dataset: { for: string } }).dataset.for),
        )) as string[];
    const kinds = {
      Hourly: ['minute', 'until', 'maxFires'],
      Daily: ['time', 'until', 'maxFires'],
      'Every weekday': ['time', 'until', 'maxFires'],
      Weekly: ['day', 'time', 'until', 'maxFires'],
      Monthly: ['dom', 'time', 'until', 'maxFires'],
      Custom: ['everyN', 'everyUnit', 'start', 'time', 'until', 'maxFires'],
      Once: ['date', 'time'],
    };
    for (const [kind, fields] of Object.entries(kinds)) {
      await page.getByLabel(kind, { exact: true }).check();
      const visible = await page.locator('.schedule :is(input, select)').evaluateAll((els) =>
        els
          .filter((el) => (el as unknown as { offsetParent: unknown }).offsetParent !== null)
          .map((el) => (el as unknown as { name: string }).name)
          .filter((n) => n !== 'kind' && n !== 'timezone'),
      );
      expect(visible, kind).toEqual(fields);
      expect((await shown()).length, kind).toBe(fields.filter((f) => f !== 'everyUnit').length);
    }
    // Typed under Custom and Hourly, then Weekly chosen: only Weekly's fields are sent.
    await page.getByLabel('Custom', { exact: true }).check();
    await typeInto('everyN', '5');
    await page.getByLabel('Hourly', { exact: true }).check();
    await typeInto('minute', '7');
    await page.getByLabel('Weekly', { exact: true }).check();
    await page.selectOption('select[name=day]', '2');
    await typeTime('06:30');
    await typeInto('title', 'only weekly');
    await typeInto('prompt', 'Check only weekly');
    await page.screenshot({ path: screenshotPath('form-weekly-only'), fullPage: true });
    const before = new Set(await ids());
    await page.getByRole('button', { name: 'Create task' }).click();
    await page.waitForURL(/\/tasks$/);
    const id = (await ids()).find((i) => !before.has(i))!;
    expect(await con().show(id)).toMatchObject({ cron: '30 6 * * 2', until: null, maxFires: null, recurring: true });
  });
});
