// End to end: the built CLI, a real `murmur scheduler` process, the scripted model, HOME and MURMUR_HOME in
// temp folders. The service's clock offset and check interval (documented test knobs) keep it to seconds.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jitterMs } from '../../scheduler/firing.js';
import { MURMUR_BIN } from '../murmur-bin.js';

const CLI = MURMUR_BIN;

let ws: string;
let home: string;
let state: string;
const started: (ChildProcess & { output: () => string })[] = [];

beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'murmur-cron-ws-')));
  home = mkdtempSync(join(tmpdir(), 'murmur-cron-home-'));
  state = mkdtempSync(join(tmpdir(), 'murmur-cron-state-'));
});

afterEach(() => {
  for (const child of started.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of [ws, home, state]) rmSync(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    MURMUR_HOME: state,
    NO_COLOR: '1',
    MURMUR_CRON_CHECK_MS: '200',
    ...extra,
  };
  for (const key of ['MURMUR_MODEL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY']) delete out[key];
  return out;
}

function murmur(
  args: string[],
  extra: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: ws, env: env(extra), timeout: 30_000 },
      (error, stdout, stderr) => {
        done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

function scheduler(extra: Record<string, string> = {}): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [CLI, 'scheduler', '--cwd', ws], {
    cwd: ws,
    env: env(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const service = Object.assign(child, { output: () => output });
  started.push(service);
  return service;
}

async function waitUntil(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Run {
  trigger: string;
  state: string;
  sessionId: string;
  summary: string | null;
  lateMs: number;
  planned: string;
}

/** The run history as stored (polled without starting a CLI process each time). */
function history(id: string): Run[] {
  const file = join(state, 'cron', 'history', `${id}.json`);
  if (!existsSync(file)) return [];
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as (Run & { planned: number })[]).map((r) => ({
      ...r,
      planned: new Date(r.planned).toISOString(),
    }));
  } catch {
    return [];
  }
}

async function show(id: string): Promise<{ history: Run[]; fires: number; status: string }> {
  const ran = await murmur(['schedule', 'show', id, '--json']);
  expect(ran.stderr).toBe('');
  return JSON.parse(ran.stdout) as { history: Run[]; fires: number; status: string };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 45_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}\n${diagnosis()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** What a timed-out wait saw: each task's stored runs, the runs' logs and each scheduler's output. */
function diagnosis(): string {
  const dir = join(state, 'cron', 'history');
  const runs = existsSync(dir)
    ? readdirSync(dir).map((name) => `${name}: ${readFileSync(join(dir, name), 'utf8')}`)
    : ['no history yet'];
  const logs = join(state, 'cron', 'runs');
  if (existsSync(logs))
    for (const name of readdirSync(logs)) runs.push(`runs/${name}: ${readFileSync(join(logs, name), 'utf8')}`);
  const services = started.map(
    (child, i) =>
      `scheduler ${i + 1} (pid ${child.pid}, exit ${child.exitCode ?? child.signalCode ?? 'none'}):\n${child.output()}`,
  );
  return [...runs, ...services].join('\n');
}

async function add(args: string[]): Promise<string> {
  const ran = await murmur(['schedule', 'add', '--cwd', ws, '--json', ...args]);
  expect(ran.stderr).toBe('');
  expect(ran.code).toBe(0);
  return (JSON.parse(ran.stdout) as { id: string }).id;
}

describe('murmur scheduler', () => {
  it('fires a * * * * * task within the minute plus its jitter; the run is a real session that succeeded', async () => {
    writeFileSync(
      join(ws, 'script.json'),
      JSON.stringify({
        agents: [
          { match: { role: 'main', prompt: 'nightly audit' }, turns: [{ text: 'audit done: 0 issues\nmore detail' }] },
        ],
      }),
    );
    const id = await add([
      '--cron',
      '* * * * *',
      '--prompt',
      'nightly audit of the deps',
      '--model',
      'scripted:script.json',
      '--timezone',
      'UTC',
    ]);
    // Start the service's clock 1 s before this task's first fire: the next minute plus its jitter (from its id).
    const now = Date.now();
    const nextMinute = Math.ceil((now + 1) / 60_000) * 60_000;
    const jitter = jitterMs(
      { id, schedule: { kind: 'cron', cron: '* * * * *' }, timezone: 'UTC', recurring: true },
      nextMinute,
    );
    expect(jitter).toBeGreaterThanOrEqual(0);
    expect(jitter).toBeLessThan(6_000);
    const service = scheduler({ MURMUR_CRON_CLOCK_OFFSET_MS: String(nextMinute + jitter - 1000 - now) });
    await waitFor('a finished run', async () => history(id).find((r) => r.state !== 'running'));
    const run = (await show(id)).history[0]!;
    expect(run).toMatchObject({ trigger: 'scheduled', state: 'succeeded', summary: 'audit done: 0 issues' });
    expect(run.planned).toBe(new Date(nextMinute).toISOString().replace('.000Z', '+00:00'));
    expect(run.lateMs).toBeGreaterThanOrEqual(jitter);
    expect(run.lateMs).toBeLessThan(jitter + 5_000);
    const transcript = readFileSync(
      join(state, 'sessions', run.sessionId, 'agents', 'main', 'transcript.jsonl'),
      'utf8',
    );
    expect(transcript).toContain('nightly audit of the deps');
    expect((await show(id)).fires).toBe(1);
    expect(service.output()).toMatch(new RegExp(`fire ${id} .*\\n(.|\\n)*done ${id} .*succeeded`));
    // A second scheduler for the same workspace says which process serves it.
    const second = await murmur(['scheduler', '--cwd', ws]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`another scheduler (pid ${service.pid}`);
    // The machine-wide scheduler says the workspace is served elsewhere, not that there is none.
    const global = spawn(process.execPath, [CLI, 'scheduler'], {
      cwd: ws,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(Object.assign(global, { output: () => '' }));
    let globalOutput = '';
    global.stdout.on('data', (d: Buffer) => (globalOutput += d.toString()));
    await waitUntil(() => globalOutput.includes('checking every'), 15_000);
    expect(globalOutput).toContain(`served by another scheduler: ${ws} (pid ${service.pid})`);
    expect(globalOutput).not.toContain('no workspace with scheduled tasks');
    global.kill('SIGKILL');
    service.kill('SIGTERM');
    await new Promise((r) => service.once('exit', r));
    expect(existsSync(join(state, 'cron', 'scheduler.lock'))).toBe(false);
  }, 60_000);

  it('records a manual-mode run that needs an edit as waiting for approval; murmur resume carries on', async () => {
    writeFileSync(
      join(ws, 'script.json'),
      JSON.stringify({
        agents: [
          {
            match: { role: 'main' },
            turns: [
              { toolCalls: [{ name: 'write', arguments: { path: 'report.md', content: 'all good\n' } }] },
              { text: 'report written' },
            ],
          },
        ],
      }),
    );
    const id = await add([
      '--cron',
      '0 0 1 1 *',
      '--prompt',
      'write the report',
      '--model',
      'scripted:script.json',
      '--permission-mode',
      'manual',
    ]);
    const service = scheduler();
    expect((await murmur(['schedule', 'run-now', id])).code).toBe(0);
    const run = await waitFor('a held run', async () => history(id).find((r) => r.state !== 'running'));
    expect(run).toMatchObject({ trigger: 'run-now', state: 'waiting-for-approval' });
    expect(run.summary).toContain('write report.md');
    expect(run.summary).toContain(`murmur resume ${run.sessionId}`);
    expect(existsSync(join(ws, 'report.md'))).toBe(false);
    service.kill('SIGTERM');
    // Resumed where nobody can answer but the configuration allows it: the held write is asked again and runs.
    writeFileSync(join(ws, 'murmur.toml'), '[permissions]\nheadless = "allow"\n');
    const resumed = await murmur(['resume', run.sessionId, '--json']);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', result: 'report written' });
    expect(readFileSync(join(ws, 'report.md'), 'utf8')).toBe('all good\n');
    const transcript = readFileSync(
      join(state, 'sessions', run.sessionId, 'agents', 'main', 'transcript.jsonl'),
      'utf8',
    );
    expect(transcript).not.toContain('Interrupted');
    // The waiting call ran where it stopped: the model made it once (no second assistant message with the write).
    const writes = transcript
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { role: string; toolCalls?: { name: string }[] })
      .filter((m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.name === 'write'));
    expect(writes).toHaveLength(1);
    const after = history(id).at(-1)!;
    expect(after).toMatchObject({ state: 'succeeded', summary: 'report written (after murmur resume)' });
  }, 60_000);

  it('marks a run interrupted after kill -9 of the scheduler and a restart, and never re-runs it', async () => {
    writeFileSync(
      join(ws, 'script.json'),
      JSON.stringify({ agents: [{ match: { role: 'main' }, turns: [{ latencyMs: 20_000, text: 'slow' }] }] }),
    );
    const id = await add(['--cron', '0 0 1 1 *', '--prompt', 'a slow job', '--model', 'scripted:script.json']);
    const first = scheduler();
    expect((await murmur(['schedule', 'run-now', id])).code).toBe(0);
    // Its first record, whatever its state: a run that ended at once fails here saying why, not by a timeout.
    const running = await waitFor('the run to start', async () => history(id)[0]);
    expect(running, diagnosis()).toMatchObject({ trigger: 'run-now', state: 'running' });
    await waitFor('the session under way', async () =>
      existsSync(join(state, 'sessions', running.sessionId, 'state.json')) ? true : undefined,
    );
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const second = scheduler();
    const run = await waitFor('the interrupted mark', async () => history(id).find((r) => r.state === 'interrupted'));
    expect(run.sessionId).toBe(running.sessionId);
    expect(run.summary).toContain(`murmur resume ${running.sessionId}`);
    await waitFor('the restart line', async () => (second.output().includes('marked interrupted') ? true : undefined));
    expect(history(id)).toHaveLength(1);
    // The orphaned run noticed its scheduler was gone, stopped and saved its session for murmur resume.
    const saved = await waitFor('the saved session', async () => {
      const file = join(state, 'sessions', running.sessionId, 'state.json');
      const status = existsSync(file)
        ? (JSON.parse(readFileSync(file, 'utf8')) as { status: string }).status
        : undefined;
      return status === 'aborted' ? status : undefined;
    });
    expect(saved).toBe('aborted');
  }, 60_000);
});
