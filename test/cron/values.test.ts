// Bad values refused where a task is added, edited or previewed (and never when the store is read): "?" outside
// day-of-month and day-of-week, zones stored in their listed spelling (never renamed to another alias), and a
// scripted model whose file is missing or not a script.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkCron, describeCron } from '../../scheduler/cron-fields.js';
import { checkModel } from '../../scheduler/model-check.js';
import { CronStore, previewSchedule } from '../../scheduler/store.js';
import { describeSchedule } from '../../scheduler/task-view.js';
import { normalizeTimeZone, timeZoneNames } from '../../scheduler/time-zones.js';
import { checkSchedule, checkTaskInput } from '../../scheduler/validate.js';
import type { ScheduledTask } from '../../scheduler/types.js';

const T0 = Date.parse('2026-06-01T08:00:00Z');
const SCRIPT = JSON.stringify({ agents: [{ match: { role: 'main' }, turns: [{ text: 'done' }] }] });
let ws: string;
let home: string;

beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'murmur-cron-values-')));
  home = mkdtempSync(join(tmpdir(), 'murmur-cron-values-home-'));
});

afterEach(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

function store(): CronStore {
  return CronStore.forWorkspace(ws, { env: { HOME: home }, now: () => T0 });
}

describe('"?" in a cron', () => {
  it.each([
    ['? ? 1 * *', 'minute', 'every minute'],
    ['0 ? 1 * *', 'hour', 'every hour'],
    ['0 9 1 ? *', 'month', 'every month'],
    ['0,? 9 * * *', 'minute', 'every minute'],
    ['?/5 9 * * *', 'minute', 'every minute'],
  ])('refuses %j naming the field %s', (cron, field, every) => {
    expect(checkCron(cron)).toBe(
      `cron ${JSON.stringify(cron)}: field "${field}" does not accept "?" (only day-of-month and day-of-week do, meaning "no specific value"); write * for ${every}`,
    );
  });

  it('keeps "?" alone in day-of-month and day-of-week, and refuses it in a list, range or step there', () => {
    expect(checkCron('0 9 ? * 1-5')).toBeUndefined();
    expect(checkCron('0 9 1 * ?')).toBeUndefined();
    expect(checkCron('0 9 ?/2 * *')).toBe(
      'cron "0 9 ?/2 * *": field "day-of-month" accepts "?" (no specific value) only on its own, not in "?/2"',
    );
    expect(checkCron('0 9 * * 1,?')).toBe(
      'cron "0 9 * * 1,?": field "day-of-week" accepts "?" (no specific value) only on its own, not in "1,?"',
    );
    expect(describeCron('0 9 ? * 1-5')).toBe('at 09:00 on Monday through Friday');
    expect(describeCron('0 9 ? * *')).toBe('at 09:00 every day');
    expect(describeCron('30 6 1 * ?')).toBe('at 06:30 on day 1 of the month');
  });

  it('is refused at add, edit and preview, with the field named', () => {
    const added = store().create({ cron: '? ? 1 * *', prompt: 'p', timezone: 'UTC' }, { createdBy: 'person' });
    expect(added).toMatchObject({
      ok: false,
      errors: [{ field: 'cron', message: expect.stringContaining('field "minute" does not accept "?"') }],
    });

    const ok = store().create({ cron: '0 9 1 * *', prompt: 'p', timezone: 'UTC' }, { createdBy: 'person' });
    if (!ok.ok) throw new Error(JSON.stringify(ok.errors));
    const edited = store().update(ok.value.id, { cron: '0 ? 1 * *' });
    expect(edited).toMatchObject({
      ok: false,
      errors: [{ field: 'cron', message: expect.stringContaining('field "hour" does not accept "?"') }],
    });
    expect(store().get(ok.value.id)!.schedule).toEqual({ kind: 'cron', cron: '0 9 1 * *' });

    expect(previewSchedule({ cron: '0 9 1 ? *', timezone: 'UTC' }, T0)).toMatchObject({
      ok: false,
      errors: [{ field: 'cron', message: expect.stringContaining('field "month" does not accept "?"') }],
    });
    expect(previewSchedule({ cron: '0 9 ? * 1', timezone: 'UTC' }, T0)).toEqual({
      ok: true,
      value: ['2026-06-01T09:00:00+00:00', '2026-06-08T09:00:00+00:00', '2026-06-15T09:00:00+00:00'],
    });
  });

  it('still loads a stored task that has one (checks are for add, edit and preview), described without "undefined"', () => {
    const ok = store().create({ cron: '0 9 1 * *', prompt: 'p', timezone: 'UTC' }, { createdBy: 'person' });
    if (!ok.ok) throw new Error(JSON.stringify(ok.errors));
    const s = store();
    const file = JSON.parse(readFileSync(s.tasksFile, 'utf8')) as { version: number; tasks: ScheduledTask[] };
    file.tasks[0]!.schedule = { kind: 'cron', cron: '? ? 1 * *' };
    writeFileSync(s.tasksFile, JSON.stringify(file));

    const loaded = store().list();
    expect(loaded.map((t) => t.schedule)).toEqual([{ kind: 'cron', cron: '? ? 1 * *' }]);
    expect(store().get(ok.value.id)).toBeDefined();
    expect(describeSchedule(loaded[0]!)).not.toContain('undefined');
    expect(describeSchedule(loaded[0]!)).toContain('? ? 1 * *');
    // Pausing is no edit of the definition: it still works on such a task.
    expect(store().pause(ok.value.id)?.paused).toBe(true);
    // An edit re-checks the whole definition, so it names the cron to fix…
    expect(store().update(ok.value.id, { title: 'x' })).toMatchObject({ ok: false, errors: [{ field: 'cron' }] });
    // …and an edit that fixes it is accepted.
    expect(store().update(ok.value.id, { cron: '* * 1 * *' })).toMatchObject({
      ok: true,
      value: { schedule: { kind: 'cron', cron: '* * 1 * *' } },
    });
  });
});

describe('time zones', () => {
  it('lists the IANA names (current and backward links) and what Intl lists, all of them accepted', () => {
    const names = timeZoneNames();
    for (const zone of [
      'Asia/Kolkata',
      'Asia/Calcutta',
      'Europe/Kyiv',
      'Europe/Kiev',
      'Asia/Ho_Chi_Minh',
      'Asia/Saigon',
      'America/Argentina/Buenos_Aires',
      'Etc/UTC',
      'Etc/GMT',
      'Etc/GMT+5',
      'GMT',
      'UTC',
      'Europe/Berlin',
      'Europe/Belfast',
      'US/Eastern',
    ]) {
      expect(names, zone).toContain(zone);
    }
    for (const zone of Intl.supportedValuesOf('timeZone')) expect(names).toContain(zone);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(names);
    for (const zone of names) expect(() => new Intl.DateTimeFormat('en', { timeZone: zone }), zone).not.toThrow();
  });

  it('stores a zone typed in another case in its listed spelling, and never renames a correct one', () => {
    expect(normalizeTimeZone('utc')).toBe('UTC');
    expect(normalizeTimeZone(' europe/berlin ')).toBe('Europe/Berlin');
    expect(normalizeTimeZone('ASIA/KOLKATA')).toBe('Asia/Kolkata');
    expect(normalizeTimeZone('etc/gmt+5')).toBe('Etc/GMT+5');
    for (const zone of [
      'Asia/Kolkata',
      'Asia/Calcutta',
      'Europe/Kyiv',
      'Europe/Kiev',
      'Asia/Ho_Chi_Minh',
      'America/Argentina/Buenos_Aires',
      'Etc/UTC',
      'UTC',
      'GMT',
    ]) {
      expect(normalizeTimeZone(zone)).toBe(zone);
    }
    expect(normalizeTimeZone('Mars/Olympus')).toBeUndefined();
    expect(normalizeTimeZone('')).toBeUndefined();
  });

  it('accepts, as typed, a zone Intl accepts that the list lacks', () => {
    // A name tzdata dropped (2020b) that Node's ICU still accepts: kept exactly as given, never renamed.
    expect(timeZoneNames()).not.toContain('US/Pacific-New');
    expect(normalizeTimeZone('US/Pacific-New')).toBe('US/Pacific-New');
    expect(normalizeTimeZone('us/pacific-new')).toBe('us/pacific-new');
  });

  it('saves and previews with the listed spelling; an unknown zone is an error naming it', () => {
    const added = store().create({ cron: '0 9 * * *', prompt: 'p', timezone: 'utc' }, { createdBy: 'person' });
    expect(added).toMatchObject({ ok: true, value: { timezone: 'UTC' } });
    if (!added.ok) return;
    expect(store().update(added.value.id, { timezone: 'europe/berlin' })).toMatchObject({
      ok: true,
      value: { timezone: 'Europe/Berlin' },
    });
    expect(store().update(added.value.id, { timezone: 'Asia/Kolkata' })).toMatchObject({
      ok: true,
      value: { timezone: 'Asia/Kolkata' },
    });
    expect(store().get(added.value.id)!.timezone).toBe('Asia/Kolkata');
    expect(checkSchedule({ cron: '0 9 * * *', timezone: 'asia/ho_chi_minh' }, T0)).toMatchObject({
      ok: true,
      value: { timezone: 'Asia/Ho_Chi_Minh' },
    });
    expect(previewSchedule({ cron: '0 9 * * *', timezone: 'asia/kolkata' }, T0, 1)).toEqual({
      ok: true,
      value: ['2026-06-02T09:00:00+05:30'],
    });
    expect(checkSchedule({ cron: '0 9 * * *', timezone: 'Mars/Olympus' }, T0)).toEqual({
      ok: false,
      errors: [
        {
          field: 'timezone',
          message:
            'unknown time zone "Mars/Olympus"; give an IANA name such as "Europe/Berlin", "America/New_York" or "UTC"',
        },
      ],
    });
  });
});

describe("a task's model", () => {
  it("checks the spec's form", () => {
    expect(checkModel('gpt4', ws)).toContain('unknown model "gpt4"; accepted forms: openai:MODEL');
    expect(checkModel('nope:thing', ws)).toContain('unknown model "nope:thing"');
    expect(checkModel('openai:', ws)).toContain('lacks a model name after "openai:"');
    expect(checkModel('scripted:', ws)).toContain('lacks a file after "scripted:"');
    for (const spec of ['openai:gpt-4.1', 'anthropic:claude-sonnet-4-6', 'ollama:llama3.1:8b'])
      expect(checkModel(spec, ws)).toBeUndefined();
  });

  it('reads a scripted:FILE the way murmur run does, a relative FILE from the workspace', () => {
    writeFileSync(join(ws, 'script.json'), SCRIPT);
    expect(checkModel('scripted:script.json', ws)).toBeUndefined();
    expect(checkModel(`scripted:${join(ws, 'script.json')}`, '/')).toBeUndefined();

    expect(checkModel('scripted:/no/such/file.json', ws)).toBe(
      'model "scripted:/no/such/file.json": the scripted-model file /no/such/file.json does not exist',
    );
    expect(checkModel('scripted:missing.json', ws)).toBe(
      `model "scripted:missing.json": the scripted-model file ${join(ws, 'missing.json')} does not exist (a relative FILE is read from the task's workspace, ${ws})`,
    );

    writeFileSync(join(ws, 'broken.json'), '{ "agents": [');
    expect(checkModel('scripted:broken.json', ws)).toMatch(
      new RegExp(
        `^model "scripted:broken.json": the scripted-model file ${join(ws, 'broken.json')} is not valid JSON: `,
      ),
    );
    writeFileSync(join(ws, 'wrong.json'), JSON.stringify({ turns: [] }));
    expect(checkModel('scripted:wrong.json', ws)).toMatch(
      new RegExp(`^model "scripted:wrong.json": ${join(ws, 'wrong.json')}: not a valid scripted-model file \\(`),
    );
    mkdirSync(join(ws, 'folder.json'));
    expect(checkModel('scripted:folder.json', ws)).toContain(
      `cannot read the scripted-model file ${join(ws, 'folder.json')}: EISDIR`,
    );
  });

  it("is checked at add and edit against the task's workspace, not the process's folder", () => {
    const missing = store().create(
      { cron: '0 9 * * *', prompt: 'p', timezone: 'UTC', model: 'scripted:script.json' },
      { createdBy: 'person' },
    );
    expect(missing).toMatchObject({
      ok: false,
      errors: [
        {
          field: 'model',
          message: expect.stringContaining(`the scripted-model file ${join(ws, 'script.json')} does not exist`),
        },
      ],
    });

    writeFileSync(join(ws, 'script.json'), SCRIPT);
    const added = store().create(
      { cron: '0 9 * * *', prompt: 'p', timezone: 'UTC', model: 'scripted:script.json' },
      { createdBy: 'person' },
    );
    expect(added).toMatchObject({ ok: true, value: { model: 'scripted:script.json' } });
    if (!added.ok) return;
    expect(store().update(added.value.id, { model: 'scripted:/no/such/file.json' })).toMatchObject({
      ok: false,
      errors: [
        {
          field: 'model',
          message: 'model "scripted:/no/such/file.json": the scripted-model file /no/such/file.json does not exist',
        },
      ],
    });
    expect(store().get(added.value.id)!.model).toBe('scripted:script.json');

    expect(
      checkTaskInput({ cron: '0 9 * * *', prompt: 'p', timezone: 'UTC', model: 'scripted:script.json' }, T0, ws),
    ).toMatchObject({ ok: true });
    expect(
      checkTaskInput({ cron: '0 9 * * *', prompt: 'p', timezone: 'UTC', model: 'scripted:script.json' }, T0, home),
    ).toMatchObject({ ok: false, errors: [{ field: 'model' }] });
  });
});
