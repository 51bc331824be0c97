// `murmur schedule` as a user runs it: exit 2 naming every bad value, the JSON contract, edit keeping
// identity, pause/unpause/rm, ids found across workspaces, and two processes writing the store at once.
import { execFile } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleCommand } from '../../cli/schedule.js';
import { UsageError } from '../../cli/args.js';
import { MURMUR_BIN } from '../murmur-bin.js';

const CLI = MURMUR_BIN;
let home: string;
let ws: string;
let other: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'murmur-cron-cli-home-'));
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'murmur-cron-cli-ws-')));
  other = realpathSync(mkdtempSync(join(tmpdir(), 'murmur-cron-cli-other-')));
});

afterAll(() => {
  for (const dir of [home, ws, other]) rmSync(dir, { recursive: true, force: true });
});

function murmur(args: string[], cwd = ws): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, NO_COLOR: '1' };
  delete env.MURMUR_HOME;
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { cwd, env, timeout: 20_000 }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('murmur schedule: bad input is exit 2 naming the value', () => {
  const cases: [string[], string][] = [
    [['add', '--cron', '0 9 * *', '--prompt', 'x'], '--cron: cron "0 9 * *" has 4 fields; give exactly 5'],
    [
      ['add', '--cron', '0 9 * * mon-fry', '--prompt', 'x'],
      'day-of-week field "mon-fry": "fry" is not a number or name',
    ],
    [['add', '--every', '3y', '--at', '09:00', '--prompt', 'x'], '--every: interval "3y" is not accepted'],
    [['add', '--every', '1d', '--at', '9am', '--prompt', 'x'], '--at: time of day "9am" is not accepted'],
    [
      ['add', '--every', '1d', '--at', '09:00', '--start', '2026-02-30', '--prompt', 'x'],
      '--start: start date "2026-02-30" is not a date',
    ],
    [
      ['add', '--cron', '0 9 * * *', '--until', '2020-01-01', '--prompt', 'x'],
      '--until: cron "0 9 * * *" never fires before the end date 2020-01-01 is over',
    ],
    [
      ['add', '--cron', '0 9 * * *', '--prompt', 'x', '--timezone', 'Europe/Atlantis'],
      '--timezone: unknown time zone "Europe/Atlantis"',
    ],
    [
      ['add', '--cron', '0 9 * * *', '--prompt', 'x', '--max-fires', '0'],
      '--max-fires: max fires "0" is not a positive whole number',
    ],
    [
      ['add', '--cron', '0 9 * * *', '--prompt', 'x', '--permission-mode', 'sudo'],
      '--permission-mode: permission mode "sudo" is not one of manual, auto, yolo',
    ],
    [['add', '--cron', '0 9 * * *', '--prompt', 'x', '--model', 'gpt4'], '--model: unknown model "gpt4"'],
    [
      ['add', '--cron', '? ? 1 * *', '--prompt', 'x'],
      '--cron: cron "? ? 1 * *": field "minute" does not accept "?" (only day-of-month and day-of-week do, meaning "no specific value")',
    ],
    [['preview', '--cron', '0 ? * * *'], '--cron: cron "0 ? * * *": field "hour" does not accept "?"'],
    [['preview', '--cron', '0 9 * ? *'], '--cron: cron "0 9 * ? *": field "month" does not accept "?"'],
    [
      ['add', '--cron', '0 9 * * *', '--prompt', 'x', '--model', 'scripted:/no/such/file.json'],
      '--model: model "scripted:/no/such/file.json": the scripted-model file /no/such/file.json does not exist',
    ],
    [['add', '--cron', '0 9 * * *'], '--prompt: the prompt (what each run does) is missing'],
    [['preview', '--cron', '* * * * *', '--count', 'many'], '--count must be a positive whole number, got "many"'],
    [['show', 'st-nope'], 'no scheduled task "st-nope"'],
    [['resume', 'st-nope'], 'spelled "unpause" here'],
  ];
  // In this process (fast); main.ts turns a UsageError into exit 2, checked once below through the real CLI.
  it.each(cases)('schedule %j', async (args, message) => {
    const home0 = process.env.HOME;
    process.env.HOME = home;
    try {
      await expect(scheduleCommand(args)).rejects.toThrow(UsageError);
      await expect(scheduleCommand(args)).rejects.toThrow(message);
    } finally {
      process.env.HOME = home0;
    }
  });

  it('exits 2 through the real command line, with nothing on stdout', async () => {
    const ran = await murmur(['schedule', 'add', '--cron', '0 9 * * 8', '--prompt', 'x']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('--cron: cron "0 9 * * 8": day-of-week field "8": 8 is out of range 0-7');
    expect(ran.stdout).toBe('');
  });
});

describe('murmur schedule: values checked at add, edit and preview', () => {
  it('refuses "?" outside day-of-month and day-of-week, a missing scripted model file, and stores a zone in its listed spelling', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'murmur-cron-cli-values-')));
    try {
      const missing = await murmur([
        'schedule',
        'add',
        '--cron',
        '0 9 * * *',
        '--prompt',
        'x',
        '--model',
        'scripted:script.json',
        '--cwd',
        dir,
      ]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(
        `--model: model "scripted:script.json": the scripted-model file ${join(dir, 'script.json')} does not exist (a relative FILE is read from the task's workspace, ${dir})`,
      );
      expect(missing.stdout).toBe('');

      writeFileSync(
        join(dir, 'script.json'),
        JSON.stringify({ agents: [{ match: { role: 'main' }, turns: [{ text: 'done' }] }] }),
      );
      const added = await murmur([
        'schedule',
        'add',
        '--cron',
        '0 9 ? * 1-5',
        '--prompt',
        'x',
        '--model',
        'scripted:script.json',
        '--timezone',
        'utc',
        '--cwd',
        dir,
        '--json',
      ]);
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
      const task = JSON.parse(added.stdout) as { id: string; timezone: string; model: string };
      expect(task).toMatchObject({ timezone: 'UTC', model: 'scripted:script.json' });

      const question = await murmur(['schedule', 'edit', task.id, '--cron', '0 ? * * *']);
      expect(question.code).toBe(2);
      expect(question.stderr).toContain(
        '--cron: cron "0 ? * * *": field "hour" does not accept "?" (only day-of-month and day-of-week do, meaning "no specific value")',
      );
      const preview = await murmur(['schedule', 'preview', '--cron', '? ? 1 * *', '--timezone', 'UTC']);
      expect(preview.code).toBe(2);
      expect(preview.stderr).toContain('field "minute" does not accept "?"');

      const kolkata = JSON.parse(
        (await murmur(['schedule', 'edit', task.id, '--timezone', 'Asia/Kolkata', '--json'])).stdout,
      ) as { timezone: string };
      expect(kolkata.timezone).toBe('Asia/Kolkata');
      const berlin = JSON.parse(
        (await murmur(['schedule', 'edit', task.id, '--timezone', 'europe/berlin', '--json'])).stdout,
      ) as { timezone: string };
      expect(berlin.timezone).toBe('Europe/Berlin');
      const unknown = await murmur(['schedule', 'edit', task.id, '--timezone', 'europe/atlantis']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('--timezone: unknown time zone "europe/atlantis"');
      const badModel = await murmur(['schedule', 'edit', task.id, '--model', 'scripted:/no/such/file.json']);
      expect(badModel.code).toBe(2);
      expect(badModel.stderr).toContain(
        '--model: model "scripted:/no/such/file.json": the scripted-model file /no/such/file.json does not exist',
      );
      expect((await murmur(['schedule', 'rm', task.id])).code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('murmur schedule', () => {
  it('adds, lists, shows, edits (keeping identity), pauses, unpauses and removes; ids work from any workspace', async () => {
    const added = await murmur([
      'schedule',
      'add',
      '--cron',
      '0 9 * * 1-5',
      '--prompt',
      'standup notes',
      '--title',
      'Standup',
      '--timezone',
      'Europe/Berlin',
      '--json',
    ]);
    expect(added.code).toBe(0);
    const task = JSON.parse(added.stdout) as Record<string, unknown> & { id: string; next: string[] };
    expect(task).toMatchObject({
      title: 'Standup',
      workspace: ws,
      cron: '0 9 * * 1-5',
      until: null,
      timezone: 'Europe/Berlin',
      recurring: true,
      maxFires: null,
      fires: 0,
      status: 'active',
    });
    expect(task.next).toHaveLength(3);
    for (const t of task.next) expect(t).toMatch(/^\d{4}-\d\d-\d\dT09:00:00\+0[12]:00$/);

    const interval = await murmur([
      'schedule',
      'add',
      '--every',
      '2w',
      '--at',
      '07:30',
      '--start',
      '2031-01-06',
      '--prompt',
      'refactor batch',
      '--max-fires',
      '4',
      '--timezone',
      'UTC',
      '--cwd',
      other,
      '--json',
    ]);
    const second = JSON.parse(interval.stdout) as {
      id: string;
      every: string;
      at: string;
      start: string;
      next: string[];
    };
    expect(second).toMatchObject({
      every: '2w',
      at: '07:30',
      start: '2031-01-06',
      next: ['2031-01-06T07:30:00+00:00', '2031-01-20T07:30:00+00:00', '2031-02-03T07:30:00+00:00'],
    });

    const list = JSON.parse((await murmur(['schedule', 'list', '--json'])).stdout) as { id: string }[];
    expect(list.map((t) => t.id).sort()).toEqual([task.id, second.id].sort());
    expect(JSON.parse((await murmur(['schedule', 'list', '--cwd', other, '--json'])).stdout)).toHaveLength(1);

    // Edited from the other workspace: found through the user-level list.
    const edited = JSON.parse(
      (await murmur(['schedule', 'edit', task.id, '--cron', '30 8 * * 1-5', '--keep', '--json'], other)).stdout,
    ) as Record<string, unknown>;
    expect(edited).toMatchObject({
      id: task.id,
      title: 'Standup',
      cron: '30 8 * * 1-5',
      prompt: 'standup notes',
      kept: true,
    });

    expect((await murmur(['schedule', 'pause', task.id])).stdout).toContain('paused');
    expect(JSON.parse((await murmur(['schedule', 'list', '--status', 'paused', '--json'])).stdout)).toEqual([
      expect.objectContaining({ id: task.id, status: 'paused' }),
    ]);
    await murmur(['schedule', 'unpause', task.id]);
    const shown = JSON.parse((await murmur(['schedule', 'show', task.id, '--json'])).stdout) as {
      status: string;
      history: unknown[];
    };
    expect(shown).toMatchObject({ status: 'active', history: [] });

    const preview = await murmur([
      'schedule',
      'preview',
      '--cron',
      '0 0 1 * *',
      '--timezone',
      'UTC',
      '--count',
      '2',
      '--json',
    ]);
    expect(JSON.parse(preview.stdout)).toHaveLength(2);

    expect((await murmur(['schedule', 'rm', second.id])).code).toBe(0);
    expect((await murmur(['schedule', 'show', second.id])).code).toBe(2);
  });

  it('keeps every change when two processes write the same store at once', async () => {
    const script = join(ws, 'writer.mjs');
    const store = resolve(import.meta.dirname, '../../dist/scheduler/store.js');
    writeFileSync(
      script,
      `import { CronStore } from ${JSON.stringify(store)};\n` +
        `const s = CronStore.forWorkspace(process.argv[2]);\n` +
        `for (let i = 0; i < 15; i++) { const r = s.create({ cron: '0 9 * * *', prompt: 'p' + process.argv[3] + '-' + i }, { createdBy: 'person' }); if (!r.ok) process.exit(3); }\n`,
    );
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'murmur-cron-race-')));
    const run = (n: string) =>
      new Promise<number>((done) =>
        execFile(process.execPath, [script, dir, n], { env: { ...process.env, HOME: home } }, (e) => done(e ? 1 : 0)),
      );
    expect(await Promise.all([run('a'), run('b'), run('c')])).toEqual([0, 0, 0]);
    const list = JSON.parse((await murmur(['schedule', 'list', '--cwd', dir, '--json'])).stdout) as { id: string }[];
    expect(list).toHaveLength(45);
    expect(new Set(list.map((t) => t.id)).size).toBe(45);
    rmSync(dir, { recursive: true, force: true });
  });
});
