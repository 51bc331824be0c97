// Saved state keeps its promise across versions: a session saved by every past format (test/fixtures/saved-state/,
// one folder per version and kind, cut by kill -9 mid-run) is resumed by today's `murmur resume` to the end; and a
// state file that is broken or from a newer murmur is refused with a message naming it, before anything runs.
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSavedState, SAVED_STATE_VERSION } from '../../orchestrator/saved-state.js';
import { ROOT } from '../murmur-bin.js';
import { murmur } from '../cli/helpers.js';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'saved-state');
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The fixture laid out as a workspace: its files, and its session under .murmur/sessions/, paths filled in. */
function workspaceFrom(fixture: string): { dir: string; id: string } {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'murmur-saved-state-')));
  dirs.push(dir);
  const source = path.join(FIXTURES, fixture);
  const id = readFileSync(path.join(source, 'session-id'), 'utf8').trim();
  for (const name of readdirSync(source)) {
    if (name === 'session' || name === 'session-id') continue;
    cpSync(path.join(source, name), path.join(dir, name), { recursive: true });
  }
  const session = path.join(dir, '.murmur', 'sessions', id);
  cpSync(path.join(source, 'session'), session, { recursive: true });
  const fill = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const file = path.join(folder, name);
      if (statSync(file).isDirectory()) fill(file);
      else writeFileSync(file, readFileSync(file, 'utf8').replaceAll('${WORKSPACE}', dir));
    }
  };
  fill(session);
  return { dir, id };
}

describe('sessions saved by every past version', () => {
  const versions = readdirSync(FIXTURES);

  it("has a fixture of a run and of a swarm for every version up to today's", () => {
    for (let v = 1; v <= SAVED_STATE_VERSION; v++)
      expect(versions).toEqual(expect.arrayContaining([`v${v}-run`, `v${v}-swarm`]));
  });

  it.each(versions.filter((v) => v.endsWith('-run')))(
    'resumes the interrupted run of %s to the end',
    async (fixture) => {
      const { dir, id } = workspaceFrom(fixture);
      const ran = await murmur(['resume', id, '--json'], { cwd: dir });
      expect(ran.stderr).toBe('');
      expect(JSON.parse(ran.stdout)).toMatchObject({ status: 'completed', result: 'done writing' });
      expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('first\n');
    },
  );

  it.each(versions.filter((v) => v.endsWith('-swarm')))(
    'resumes the interrupted swarm of %s: only the unfinished items run',
    async (fixture) => {
      const { dir, id } = workspaceFrom(fixture);
      const before = readdirSync(dir).filter((name) => name.endsWith('.done'));
      const ran = await murmur(['resume', id, '--json'], { cwd: dir });
      expect(ran.stderr).toBe('');
      const report = JSON.parse(ran.stdout) as {
        summary: Record<string, number>;
        items: { item: string; outcome: string }[];
      };
      expect(report.items.every((item) => item.outcome === 'completed')).toBe(true);
      const after = readdirSync(dir).filter((name) => name.endsWith('.done'));
      expect(after.length).toBe(report.items.length);
      expect(after.length).toBeGreaterThan(before.length);
    },
  );
});

describe('a v1 session held for a person', () => {
  it('loads as waiting, its held call an interruption: without an answer it waits; approved, the call runs once', async () => {
    const { dir, id } = workspaceFrom('v1-held');
    const waiting = await murmur(['resume', id, '--json'], { cwd: dir });
    expect(waiting.code, waiting.stderr).toBe(75);
    const report = JSON.parse(waiting.stdout) as {
      status: string;
      interruptions: { agentId: string; callId: string }[];
    };
    expect(report).toMatchObject({ status: 'waiting', interruptions: [{ agentId: 'main', callId: 'call_1_1' }] });
    expect(existsSync(path.join(dir, 'notes.txt'))).toBe(false);

    const approved = await murmur(['resume', id, '--approve', 'call_1_1', '--json'], { cwd: dir });
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ status: 'completed', result: 'done writing' });
    expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('first\n');
  });
});

describe("a v1 session held at a subagent's call", () => {
  it("goes on with that subagent once approved (found by its parent's agent call), never a second one", async () => {
    const { dir, id } = workspaceFrom('v1-held-subagent');
    const waiting = await murmur(['resume', id, '--json'], { cwd: dir });
    expect(waiting.code, waiting.stderr).toBe(75);
    const held = JSON.parse(waiting.stdout) as { interruptions: unknown[]; agents: { id: string }[] };
    expect(held.interruptions).toEqual([expect.objectContaining({ agentId: 'a-1', callId: 'call_2_1' })]);
    expect(held.agents.map((a) => a.id)).toEqual(['main', 'a-1']);

    const approved = await murmur(['resume', id, '--approve', 'call_2_1', '--json'], { cwd: dir });
    expect(approved.code, approved.stderr).toBe(0);
    const report = JSON.parse(approved.stdout) as { status: string; result: string; agents: unknown[] };
    expect(report).toMatchObject({ status: 'completed', result: 'done writing' });
    expect(report.agents).toEqual([
      expect.objectContaining({ id: 'main', status: 'completed' }),
      expect.objectContaining({ id: 'a-1', status: 'completed' }),
    ]);
    expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('first\n');
  });
});

describe('a state file murmur cannot resume', () => {
  it('names the file and the problem', () => {
    expect(parseSavedState([], 'state.json')).toEqual({
      ok: false,
      error: "state.json is not a session's saved state (not a JSON object)",
    });
    expect(parseSavedState({ version: 'one' }, 'state.json')).toEqual({
      ok: false,
      error: 'state.json has no valid "version" (got "one")',
    });
    const newer = parseSavedState({ version: SAVED_STATE_VERSION + 1 }, 'state.json');
    expect(newer.ok ? '' : newer.error).toContain(`saved by a newer murmur (state version ${SAVED_STATE_VERSION + 1})`);
    const broken = parseSavedState(
      { version: 1, id: 'x', kind: 'run', status: 'running', agents: [{ id: 'main' }], tasks: [] },
      'state.json',
    );
    expect(broken.ok ? '' : broken.error).toContain('an agent entry lacks "id", "profile" or "depth"');
  });

  it('is refused by murmur resume with exit 2, and the file is left as it was', async () => {
    const { dir, id } = workspaceFrom('v1-run');
    const file = path.join(dir, '.murmur', 'sessions', id, 'state.json');
    const text = readFileSync(file, 'utf8').replace('"version": 1', `"version": ${SAVED_STATE_VERSION + 1}`);
    writeFileSync(file, text);
    const ran = await murmur(['resume', id], { cwd: dir });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('was saved by a newer murmur');
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(existsSync(path.join(dir, 'notes.txt'))).toBe(true);
  });
});
