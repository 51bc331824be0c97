// The console's session cache and raw event pages, in process (Hono's app.request) on session folders in a temp
// workspace: ids that name no session are never cached, folded sessions are evicted past the size budget (least
// recently used first), and events.jsonl is served one page at a time from a byte cursor.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleApp } from '../../dashboards/web/app.js';
import { sessionCache, type SessionCache } from '../../dashboards/web/session-routes.js';
import { SizeLru } from '../../dashboards/web/size-lru.js';
import { allowedHosts } from '../../cli/serve.js';
import { removeDir, tempDir } from './helpers.js';

let dir: string;
let home: string;
const TOKEN = 'test-token-0123456789';
const HOST = '127.0.0.1:4777';
const usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 };

function eventsOf(id: string, agents: number): string {
  const lines = [{ type: 'run.start', ts: 1, mode: 'run', task: `Task of ${id}`, model: 'm' }];
  for (let i = 0; i < agents; i++)
    lines.push({ type: 'agent.start', ts: 2 + i, agentId: `a-${i}`, role: 'main' } as never);
  lines.push({ type: 'run.end', ts: 9_000, status: 'completed', usage } as never);
  return lines.map((e) => `${JSON.stringify(e)}\n`).join('');
}

function writeSession(id: string, events: string | undefined): string {
  const session = path.join(home, 'sessions', id);
  mkdirSync(session, { recursive: true });
  writeFileSync(
    path.join(session, 'state.json'),
    JSON.stringify({
      version: 1,
      id,
      kind: 'run',
      createdAt: 1,
      updatedAt: 2,
      cwd: dir,
      model: 'm',
      status: 'completed',
      agents: [],
      tasks: [],
      usage,
    }),
  );
  if (events !== undefined) writeFileSync(path.join(session, 'events.jsonl'), events);
  return path.join(session, 'events.jsonl');
}

beforeAll(async () => {
  dir = await tempDir();
  home = path.join(dir, '.murmur');
  for (const id of ['s-1', 's-2', 's-3']) writeSession(id, eventsOf(id, 20));
});
afterAll(async () => {
  await removeDir(dir);
});

function appWith(cache: SessionCache) {
  const app = consoleApp({
    token: TOKEN,
    allowedHosts: allowedHosts('127.0.0.1', 4777, []),
    workspace: dir,
    stores: () => [],
    home,
    sessionCache: cache,
  });
  return (route: string) =>
    app.request(`http://${HOST}${route}`, { headers: { host: HOST, authorization: `Bearer ${TOKEN}` } });
}

describe('the size-bounded LRU', () => {
  it('evicts the least recently used past its budget, never the entry just used, and counts sizes', () => {
    const lru = new SizeLru<string, number>(25);
    lru.set('a', 1, 10);
    lru.set('b', 2, 10);
    expect(lru.get('a')).toBe(1); // a is now newer than b
    lru.set('c', 3, 10);
    expect([lru.has('a'), lru.has('b'), lru.has('c')]).toEqual([true, false, true]);
    expect(lru.bytes).toBe(20);
    lru.set('a', 1, 20); // a grew: c goes
    expect([lru.has('a'), lru.has('c'), lru.bytes]).toEqual([true, false, 20]);
    lru.set('huge', 4, 1_000); // bigger than the budget: stays alone while it is the newest
    expect([lru.size, lru.has('huge'), lru.bytes]).toEqual([1, true, 1_000]);
    lru.set('d', 5, 1);
    expect([lru.size, lru.has('huge'), lru.bytes]).toEqual([1, false, 1]);
    expect(lru.delete('d')).toBe(true);
    expect([lru.size, lru.bytes]).toEqual([0, 0]);
    expect(() => new SizeLru(-1)).toThrow(/-1/);
  });
});

describe('the session cache', () => {
  it('never caches an id that names no session, on any session route', async () => {
    const cache = sessionCache();
    const request = appWith(cache);
    for (let i = 0; i < 300; i++) {
      const id = `20260101-000000-${i.toString(16).padStart(4, '0')}`;
      for (const route of [
        `/api/sessions/${id}`,
        `/sessions/${id}`,
        `/api/sessions/${id}/events`,
        `/api/sessions/${id}/log`,
      ])
        expect((await request(route)).status, route).toBe(404);
    }
    expect([cache.size, cache.bytes]).toEqual([0, 0]);
    // A folder without state.json or events.jsonl is no session either.
    mkdirSync(path.join(home, 'sessions', 'empty-folder'), { recursive: true });
    expect((await request('/api/sessions/empty-folder')).status).toBe(404);
    expect(cache.size).toBe(0);
  });

  it('keeps folded sessions within its budget, dropping the least recently used', async () => {
    const roomy = sessionCache();
    const request = appWith(roomy);
    for (const id of ['s-1', 's-2', 's-3']) expect((await request(`/api/sessions/${id}`)).status).toBe(200);
    expect(roomy.size).toBe(3);
    const oneSession = roomy.bytes / 3;
    expect(oneSession).toBeGreaterThan(1_000);

    const tight = sessionCache(Math.floor(oneSession * 2.5));
    const requestTight = appWith(tight);
    for (const id of ['s-1', 's-2', 's-1', 's-3']) await requestTight(`/api/sessions/${id}`);
    expect([tight.has('s-1'), tight.has('s-2'), tight.has('s-3')]).toEqual([true, false, true]);
    expect(tight.bytes).toBeLessThanOrEqual(tight.maxBytes);
    const model = (await (await requestTight('/api/sessions/s-2')).json()) as { agents: unknown[]; status: string };
    expect(model).toMatchObject({ status: 'completed' });
    expect(model.agents).toHaveLength(20);
  });
});

describe('raw events, a page at a time', () => {
  type Page = { events: { type: string; ts: number }[]; next: number; more: boolean; cursor: number; size: number };

  it('pages events.jsonl from a byte cursor, skips a line that is not JSON and leaves a line still being written', async () => {
    const events = [1, 2, 3, 4, 5].map(
      (ts) => `${JSON.stringify({ type: 'log', ts, level: 'info', text: `é ${ts}` })}\n`,
    );
    const file = writeSession('paged', [events[0], events[1], 'not json\n', events[2], events[3], events[4]].join(''));
    appendFileSync(file, '{"type":"log","ts":6,'); // a line still being written
    const request = appWith(sessionCache());
    const seen: number[] = [];
    let cursor = 0;
    let pages = 0;
    for (let more = true; more; pages++) {
      const response = await request(`/api/sessions/paged/log?limit=2&cursor=${cursor}`);
      expect(response.status).toBe(200);
      const page = (await response.json()) as Page;
      expect(page.cursor).toBe(cursor);
      seen.push(...page.events.map((e) => e.ts));
      cursor = page.next;
      more = page.more;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(pages).toBe(3);
    const whole = Buffer.byteLength([...events.slice(0, 2), 'not json\n', ...events.slice(2)].join(''));
    expect(cursor).toBe(whole);
    // The default page takes everything complete; the line being written comes once it ends.
    appendFileSync(file, '"level":"info","text":"six"}\n');
    const rest = (await (await request(`/api/sessions/paged/log?cursor=${cursor}`)).json()) as Page;
    expect(rest.events.map((e) => e.ts)).toEqual([6]);
    expect(rest.more).toBe(false);
  });

  it('refuses a cursor that is not a line start and a limit out of range, naming the value', async () => {
    const request = appWith(sessionCache());
    const bad = async (query: string, needle: string) => {
      const response = await request(`/api/sessions/s-1/log?${query}`);
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { error: string }).error, query).toContain(needle);
    };
    await bad('cursor=3', 'cursor "3" is not the start of a line');
    await bad('cursor=99999999', 'cursor "99999999"');
    await bad('cursor=-1', 'cursor "-1"');
    await bad('limit=0', 'limit "0" is not a number of events from 1 to 1000');
    await bad('limit=1001', 'limit "1001"');
    await bad('limit=ten', 'limit "ten"');
    writeSession('no-events', undefined);
    const empty = (await (await request('/api/sessions/no-events/log')).json()) as Page;
    expect(empty).toMatchObject({ events: [], next: 0, more: false, size: 0 });
  });
});
