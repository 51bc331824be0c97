// The console's HTTP gates and JSON API, in process (Hono's app.request) on real task stores in temp folders,
// plus `murmur serve` as a real process: its first line, the port-taken exit, the non-loopback warning, and the
// same field messages as `murmur schedule add`.
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleApp } from '../../dashboards/web/app.js';
import { CronStore } from '../../scheduler/store.js';
import { allowedHosts } from '../../cli/serve.js';
import { childEnv, murmur, removeDir, startServe, tempDir } from './helpers.js';

let dir: string;
let workspace: string;
let env: NodeJS.ProcessEnv;
const TOKEN = 'test-token-0123456789';
const HOST = '127.0.0.1:4777';

beforeAll(async () => {
  dir = await tempDir();
  workspace = path.join(dir, 'ws');
  mkdirSync(workspace);
  env = { ...process.env, HOME: dir, MURMUR_HOME: '' };
  delete env.MURMUR_HOME;
});
afterAll(async () => {
  await removeDir(dir);
});

function app() {
  const store = CronStore.forWorkspace(workspace, { env });
  return consoleApp({
    token: TOKEN,
    allowedHosts: allowedHosts('127.0.0.1', 4777, []),
    workspace,
    stores: () => [store],
    home: path.join(workspace, '.murmur'),
    env,
  });
}

function call(path: string, init: RequestInit & { token?: string | false; host?: string } = {}) {
  const headers = new Headers(init.headers);
  headers.set('host', init.host ?? HOST);
  if (init.token !== false) headers.set('authorization', `Bearer ${init.token ?? TOKEN}`);
  return app().request(`http://${init.host ?? HOST}${path}`, { ...init, headers });
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});

describe('the gates', () => {
  const routes: [string, string][] = [
    ['GET', '/'],
    ['GET', '/tasks'],
    ['GET', '/tasks/new'],
    ['GET', '/tasks/st-x'],
    ['GET', '/sessions'],
    ['GET', '/sessions/x'],
    ['GET', '/assets/console.js'],
    ['GET', '/assets/console.css'],
    ['GET', '/api/tasks'],
    ['POST', '/api/tasks'],
    ['POST', '/api/preview'],
    ['GET', '/api/tasks/st-x'],
    ['PUT', '/api/tasks/st-x'],
    ['POST', '/api/tasks/st-x/pause'],
    ['POST', '/api/tasks/st-x/unpause'],
    ['POST', '/api/tasks/st-x/run-now'],
    ['DELETE', '/api/tasks/st-x'],
    ['GET', '/api/sessions'],
    ['GET', '/api/sessions/x'],
    ['GET', '/api/sessions/x/events'],
    ['GET', '/api/sessions/x/log'],
  ];

  it('answers 401 and nothing else without the token (or with a wrong one) on every route', async () => {
    for (const [method, route] of routes) {
      for (const token of [false, 'wrong-token'] as const) {
        const res = await call(route, { method, token });
        expect(res.status, `${method} ${route}`).toBe(401);
        expect(await res.text()).toBe('');
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
      }
    }
  });

  it('lets every route through with the token (no 401/403)', async () => {
    for (const [method, route] of routes) {
      if (route.endsWith('/events')) continue;
      const res = await call(route, { method });
      expect([200, 201, 303, 400, 404], `${method} ${route}`).toContain(res.status);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('the link sets an HttpOnly SameSite=Strict cookie, drops the token from the URL, and the cookie then works', async () => {
    const res = await call(`/tasks?status=paused&token=${TOKEN}`, { token: false });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/tasks?status=paused');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const again = await call('/tasks', { token: false, headers: { cookie: cookie.split(';')[0]! } });
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('Scheduled tasks');
    expect((await call(`/tasks?token=nope`, { token: false })).status).toBe(401);
  });

  it('refuses changes made with the cookie from another origin (another local port is "same-site"), and JSON-looking text', async () => {
    const link = await call(`/tasks?token=${TOKEN}`, { token: false });
    const cookie = link.headers.get('set-cookie')!.split(';')[0]!;
    // The cookie is named for this console's port and holds its own secret, not the Bearer token.
    expect(cookie.startsWith('murmur_console_4777=')).toBe(true);
    expect(cookie).not.toContain(TOKEN);
    const body = JSON.stringify({ cron: '0 9 * * 1', prompt: 'Audit deps', permissionMode: 'yolo' });
    const fromElsewhere = await call('/api/tasks', {
      token: false,
      method: 'POST',
      body,
      headers: { cookie, origin: 'http://127.0.0.1:8000', 'content-type': 'application/json' },
    });
    expect(fromElsewhere.status).toBe(403);
    const noOrigin = await call('/api/tasks', {
      token: false,
      method: 'POST',
      body,
      headers: { cookie, 'content-type': 'application/json' },
    });
    expect(noOrigin.status).toBe(403);
    const crossSite = await call(`/api/tasks`, {
      token: false,
      method: 'POST',
      body,
      headers: { cookie, origin: `http://${HOST}`, 'sec-fetch-site': 'same-site', 'content-type': 'application/json' },
    });
    expect(crossSite.status).toBe(403);
    const ownPage = await call('/api/tasks', {
      token: false,
      method: 'POST',
      body,
      headers: {
        cookie,
        origin: `http://${HOST}`,
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/json',
      },
    });
    expect(ownPage.status).toBe(201);
    // What a page can send cross-origin without a preflight is not JSON here, whoever sends it.
    const plain = await call('/api/tasks', {
      method: 'POST',
      body,
      headers: { 'content-type': 'text/plain; application/json' },
    });
    expect(plain.status).toBe(400);
  });

  it('refuses a Host it does not answer to with 403 (even with the token), and accepts the loopback names', async () => {
    for (const host of ['evil.example:4777', '127.0.0.1:80', 'localhost', '192.168.1.5:4777'])
      expect((await call('/api/tasks', { host })).status, host).toBe(403);
    for (const host of ['127.0.0.1:4777', 'localhost:4777', '[::1]:4777'])
      expect((await call('/api/tasks', { host })).status, host).toBe(200);
    expect(allowedHosts('10.0.0.5', 9000, ['box.lan'])).toEqual(['10.0.0.5:9000', 'box.lan:9000']);
  });
});

describe('the task API', () => {
  it('creates, lists, shows, edits (identity kept), pauses, unpauses, runs now and removes a task', async () => {
    const created = await call(
      '/api/tasks',
      json({ cron: '0 9 * * 1', prompt: 'Audit deps', title: 'Weekly audit', timezone: 'UTC' }),
    );
    expect(created.status).toBe(201);
    const task = (await created.json()) as { id: string; next: string[]; status: string };
    expect(task.status).toBe('active');
    expect(task.next).toHaveLength(3);
    expect(((await (await call('/api/tasks')).json()) as { id: string }[]).map((t) => t.id)).toContain(task.id);
    const edited = await call(`/api/tasks/${task.id}`, {
      ...json({ every: '2w', at: '10:30', prompt: 'Audit deps again', timezone: 'UTC' }),
      method: 'PUT',
    });
    expect(edited.status).toBe(200);
    const after = (await edited.json()) as { id: string; every: string; kept: boolean; title: string };
    expect(after).toMatchObject({ id: task.id, every: '2w', kept: true });
    expect((await (await call(`/api/tasks/${task.id}/pause`, { method: 'POST' })).json()) as object).toMatchObject({
      status: 'paused',
    });
    expect(((await (await call('/api/tasks?status=paused')).json()) as unknown[]).length).toBe(1);
    expect((await (await call(`/api/tasks/${task.id}/unpause`, { method: 'POST' })).json()) as object).toMatchObject({
      status: 'active',
    });
    expect((await call(`/api/tasks/${task.id}/run-now`, { method: 'POST' })).status).toBe(200);
    expect(CronStore.forWorkspace(workspace, { env }).get(task.id)!.runNowAt).toBeGreaterThan(0);
    expect((await call(`/api/tasks/${task.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await call(`/api/tasks/${task.id}`)).status).toBe(404);
  });

  it('previews three moments: the theoretical last, the next and the one after, with the zone', async () => {
    const res = await call('/api/preview', json({ cron: '0 9 * * 1', timezone: 'Europe/Berlin' }));
    const p = (await res.json()) as { zone: string; theoretical: string; next: string[] };
    expect(p.zone).toBe('Europe/Berlin');
    expect(Date.parse(p.theoretical)).toBeLessThan(Date.now());
    expect(p.next).toHaveLength(2);
    expect(Date.parse(p.next[0]!)).toBeGreaterThan(Date.now());
  });

  it('rejects a body that is not JSON, and a workspace it does not serve', async () => {
    expect((await call('/api/tasks', { method: 'POST', body: 'cron=x' })).status).toBe(400);
    const res = await call('/api/tasks', json({ cron: '0 9 * * 1', prompt: 'x', workspace: '/etc' }));
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('/etc');
  });

  it('gives the same field messages as murmur schedule add for bad input on every field', async () => {
    const cases: { body: Record<string, unknown>; flags: string[] }[] = [
      {
        body: {
          cron: '0 9 * * 9',
          prompt: '',
          title: 'x'.repeat(81),
          timezone: 'Mars/Olympus',
          maxFires: '-1',
          permissionMode: 'sudo',
          model: 'nope:thing',
          effort: 'extreme',
        },
        flags: [
          '--cron',
          '0 9 * * 9',
          '--prompt',
          '',
          '--title',
          'x'.repeat(81),
          '--timezone',
          'Mars/Olympus',
          '--max-fires',
          '-1',
          '--permission-mode',
          'sudo',
          '--model',
          'nope:thing',
          '--effort',
          'extreme',
        ],
      },
      {
        body: { every: '3x', at: '25:00', start: '2026-13-01', until: 'someday', prompt: 'p' },
        flags: ['--every', '3x', '--at', '25:00', '--start', '2026-13-01', '--until', 'someday', '--prompt', 'p'],
      },
      {
        body: { cron: '0 9 * * 1', at: '09:00', start: '2026-12-01', prompt: 'p' },
        flags: ['--cron', '0 9 * * 1', '--at', '09:00', '--start', '2026-12-01', '--prompt', 'p'],
      },
    ];
    const seen = new Set<string>();
    for (const { body, flags } of cases) {
      const res = await call('/api/tasks', json(body));
      expect(res.status).toBe(400);
      const { errors } = (await res.json()) as { errors: { field: string; message: string }[] };
      const cli = await murmur(['schedule', 'add', ...flags, '--cwd', workspace], workspace, childEnv(dir));
      expect(cli.exitCode).toBe(2);
      expect(errors.length).toBe(cli.stderr.trim().split('\n').length);
      for (const e of errors) {
        seen.add(e.field);
        expect(cli.stderr).toContain(`${e.message}.`);
      }
    }
    for (const field of [
      'cron',
      'every',
      'at',
      'start',
      'until',
      'title',
      'prompt',
      'timezone',
      'maxFires',
      'permissionMode',
      'model',
      'effort',
    ])
      expect(seen, field).toContain(field);
    const recurring = await call('/api/tasks', json({ cron: '0 9 * * 1', prompt: 'p', recurring: 'yes' }));
    expect(((await recurring.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe('recurring');
  });
});

describe('the session API', () => {
  it('lists sessions, folds one, and streams a session over server-sent events until it ended', async () => {
    const session = path.join(workspace, '.murmur', 'sessions', '20261201-000000-abcd');
    mkdirSync(session, { recursive: true });
    const usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 };
    writeFileSync(
      path.join(session, 'state.json'),
      JSON.stringify({
        version: 1,
        id: '20261201-000000-abcd',
        kind: 'run',
        createdAt: 1,
        updatedAt: 2,
        cwd: workspace,
        model: 'm',
        status: 'running',
        agents: [],
        tasks: [],
        usage,
      }),
    );
    const events = [
      { type: 'run.start', ts: 1, mode: 'run', task: 'Say hi', model: 'm' },
      { type: 'agent.start', ts: 2, agentId: 'a-1', role: 'main', prompt: 'Say hi' },
      {
        type: 'agent.end',
        ts: 3,
        agentId: 'a-1',
        role: 'main',
        status: 'completed',
        usage,
        turns: 1,
        toolCalls: 0,
        durationMs: 1,
      },
      { type: 'run.end', ts: 4, status: 'completed', usage },
    ];
    writeFileSync(path.join(session, 'events.jsonl'), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const list = (await (await call('/api/sessions')).json()) as { id: string; status: string }[];
    expect(list.find((s) => s.id === '20261201-000000-abcd')?.status).toBe('completed');
    const model = (await (await call('/api/sessions/20261201-000000-abcd')).json()) as {
      status: string;
      agents: { id: string; tokens: number }[];
    };
    expect(model).toMatchObject({ status: 'completed', agents: [{ id: 'a-1', tokens: 3 }] });
    const stream = await call('/api/sessions/20261201-000000-abcd/events');
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const text = await stream.text();
    expect(text).toContain('event: model');
    expect(text).toContain('event: end');
    expect((await call('/api/sessions/..%2Fetc')).status).toBe(404);
    expect((await call('/sessions/20261201-000000-abcd')).status).toBe(200);
  });
});

describe('murmur serve (process)', () => {
  it('prints the link first, exits 2 on a taken port suggesting --port 0, and warns when not on loopback', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    const taken = await murmur(
      ['serve', '--port', String(port), '--no-scheduler', '--cwd', workspace],
      workspace,
      childEnv(dir),
    );
    blocker.close();
    expect(taken.exitCode).toBe(2);
    expect(taken.stderr).toContain(`port ${port}`);
    expect(taken.stderr).toContain('--port 0');
    expect(taken.stdout).toBe('');

    const bad = await murmur(['serve', '--port', 'abc'], workspace, childEnv(dir));
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('"abc"');

    const served = await startServe(
      ['--port', '0', '--host', '127.0.0.2', '--allow-host', 'console.test', '--no-scheduler', '--cwd', workspace],
      workspace,
      childEnv(dir),
    );
    try {
      expect(served.link).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/\?token=[\w-]{20,}$/);
      // stderr is its own pipe: the warning may arrive after the link on stdout, later still on a loaded machine.
      const warning = /warning: listening on 127\.0\.0\.2, not loopback: anyone who can reach/;
      for (const until = Date.now() + 15_000; !warning.test(served.stderr()) && Date.now() < until;)
        await new Promise((r) => setTimeout(r, 50));
      expect(served.stderr()).toMatch(warning);
      const port2 = new URL(served.link).port;
      const ok = await fetch(`${served.base}/api/tasks`, { headers: { authorization: `Bearer ${served.token}` } });
      expect(ok.status).toBe(200);
      expect((await fetch(`${served.base}/api/tasks`)).status).toBe(401);
      // The allowed extra name (fetch cannot fake Host; the in-process tests cover refusals).
      expect(allowedHosts('127.0.0.2', Number(port2), ['console.test'])).toContain(`console.test:${port2}`);
    } finally {
      await served.stop();
    }
  });

  it('runs the scheduler service unless --no-scheduler', async () => {
    const withScheduler = await startServe(['--port', '0', '--cwd', workspace], workspace, childEnv(dir));
    const consoleOnly = await startServe(
      ['--port', '0', '--no-scheduler', '--cwd', workspace],
      workspace,
      childEnv(dir),
    );
    try {
      for (
        const until = Date.now() + 15_000;
        !withScheduler.stderr().includes('scheduler: serving') && Date.now() < until;
      )
        await new Promise((r) => setTimeout(r, 50));
      expect(withScheduler.stderr()).toContain(`scheduler: serving ${workspace}`);
      // Both started at once: by now the other one would have said so too.
      await new Promise((r) => setTimeout(r, 500));
      expect(consoleOnly.stderr()).not.toContain('scheduler:');
    } finally {
      await Promise.all([withScheduler.stop(), consoleOnly.stop()]);
    }
  });
});
