// The console's session routes: the sessions list, a session's page and folded model (JSON, and live over
// server-sent events), and its raw events one page at a time. Folded sessions are kept in a cache bounded by
// their estimated size (least recently used go first); an id that names no session on disk is never cached.
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { stat } from 'node:fs/promises';
import { listSessionSummaries } from '../../orchestrator/session-list.js';
import { isLineStart, readEventPage } from './event-log.js';
import { sessionPage, sessionsPage, type Assets } from './pages.js';
import { endedStatus, eventsFileOf, isSessionId, sessionDir, SessionSource } from './session-source.js';
import { bigSwarmItems } from './big-session.js';
import { DRILL_MAX } from './bucket-model.js';
import { SizeLru } from './size-lru.js';
import { missingSessionPage } from './answer-pages.js';

/** The folded sessions kept by default: about 64 MB (the one in use stays even when it alone is bigger). */
export const SESSION_CACHE_BYTES = 64 << 20;
/** Raw events per page: the default and the most one page may ask for. */
export const LOG_PAGE_DEFAULT = 200;
export const LOG_PAGE_MAX = 1_000;
/** A page stops early once it holds this many bytes of events (a page always holds at least one). */
const LOG_PAGE_BYTES = 4 << 20;

export type SessionCache = SizeLru<string, SessionSource>;

export function sessionCache(maxBytes = SESSION_CACHE_BYTES): SessionCache {
  return new SizeLru<string, SessionSource>(maxBytes);
}

export interface SessionRouteOptions {
  home: string;
  assets: Assets;
  cache: SessionCache;
  /** How often a live session's events file is read for the SSE stream. */
  pollMs: number;
}

function natural(raw: string | undefined, fallback: number): number | undefined {
  if (raw === undefined) return fallback;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

export function addSessionRoutes(app: Hono, options: SessionRouteOptions): void {
  const { home, assets, cache } = options;
  const sessions = () =>
    listSessionSummaries(home).map((s) => {
      if (s.status !== 'running') return s;
      const ended = endedStatus(home, s.id);
      return ended ? { ...s, status: ended } : s;
    });
  /** The session's source (cached), or undefined when the id names no session. */
  const source = (id: string): SessionSource | undefined => {
    if (!isSessionId(id)) return undefined;
    const known = cache.get(id);
    if (known) return known;
    if (!SessionSource.exists(home, id)) return undefined;
    const created = new SessionSource(home, id);
    // In the cache before its first fold: a second request for it waits for that fold instead of starting another.
    cache.set(id, created, created.approxBytes());
    return created;
  };
  /** The folded model, the cache told its new size; undefined when there is nothing to show. */
  const modelOf = async (id: string) => {
    const s = source(id);
    if (!s) return undefined;
    const { model, json } = await s.view();
    if (cache.has(id)) cache.set(id, s, s.approxBytes());
    if (model.agents.length === 0 && !s.hasEvents && model.status === 'unknown') return undefined;
    return { model, json };
  };
  const noSession = (c: Context, id: string) => c.json({ error: `no session "${id}"` }, 404);

  app.get('/sessions', (c) => c.html(sessionsPage(sessions(), assets)));
  app.get('/sessions/:id', async (c) => {
    const found = await modelOf(c.req.param('id'));
    if (!found) return c.html(missingSessionPage(home, c.req.param('id'), assets), 404);
    const live = found.model.status === 'running';
    return c.html(sessionPage(found.model, assets, { live, modelJson: found.json }));
  });

  app.get('/api/sessions', (c) => c.json(sessions()));
  app.get('/api/sessions/:id', async (c) => {
    const found = await modelOf(c.req.param('id'));
    if (!found) return noSession(c, c.req.param('id'));
    return c.body(found.json, 200, { 'content-type': 'application/json; charset=UTF-8' });
  });
  // The raw events of events.jsonl, a page at a time: `cursor` is a byte offset (0, or the `next` of a page).
  app.get('/api/sessions/:id/log', async (c) => {
    const id = c.req.param('id');
    if (!isSessionId(id) || !SessionSource.exists(home, id)) return noSession(c, id);
    const file = eventsFileOf(home, id);
    const rawCursor = c.req.query('cursor');
    const rawLimit = c.req.query('limit');
    const cursor = natural(rawCursor, 0);
    const limit = natural(rawLimit, LOG_PAGE_DEFAULT);
    if (limit === undefined || limit < 1 || limit > LOG_PAGE_MAX)
      return c.json(
        { error: `limit ${JSON.stringify(rawLimit)} is not a number of events from 1 to ${LOG_PAGE_MAX}` },
        400,
      );
    let size = 0;
    try {
      size = (await stat(file)).size;
    } catch {
      // No events.jsonl (a session from before it existed): an empty list.
    }
    if (cursor === undefined || !(await isLineStart(file, cursor, size)))
      return c.json(
        {
          error: `cursor ${JSON.stringify(rawCursor)} is not the start of a line of this session's events.jsonl (${size} bytes): give 0, or the "next" of an earlier page`,
        },
        400,
      );
    const page =
      size === 0
        ? { events: [], next: 0, more: false }
        : await readEventPage(file, cursor, size, limit, LOG_PAGE_BYTES);
    return c.json({ cursor, limit, size, ...page });
  });
  // A big swarm's items one by one (the drill-down into a bucket of its timeline): `from` and `to` are item indices
  // (from 0; `to` exclusive, at most DRILL_MAX after `from`).
  app.get('/api/sessions/:id/swarms/:swarm/items', (c) => {
    const id = c.req.param('id');
    if (!isSessionId(id) || !SessionSource.exists(home, id)) return noSession(c, id);
    const [rawFrom, rawTo] = [c.req.query('from'), c.req.query('to')];
    const from = natural(rawFrom, 0);
    const to = from === undefined ? undefined : natural(rawTo, from + 1);
    if (from === undefined || to === undefined || to <= from || to - from > DRILL_MAX)
      return c.json(
        {
          error: `from ${JSON.stringify(rawFrom)} and to ${JSON.stringify(rawTo)} are not a range of items: give item indices from 0, with from < to and at most ${DRILL_MAX} items`,
        },
        400,
      );
    const items = bigSwarmItems(sessionDir(home, id), c.req.param('swarm'), from, to);
    if (typeof items === 'string') return c.json({ error: items }, 404);
    return c.json(items);
  });
  // A running session, live: the folded model whenever new events arrived (at most every pollMs), then `end`.
  app.get('/api/sessions/:id/events', (c) => {
    const id = c.req.param('id');
    if (!source(id)) return noSession(c, id);
    return streamSSE(c, async (stream) => {
      let sent: unknown;
      let closed = false;
      stream.onAbort(() => {
        closed = true;
      });
      while (!closed) {
        const found = await modelOf(id);
        if (!found) break;
        // The model object is kept until the next event: a new object is news.
        if (found.model !== sent) {
          sent = found.model;
          await stream.writeSSE({ event: 'model', data: found.json });
          if (found.model.status !== 'running') {
            await stream.writeSSE({ event: 'end', data: found.model.status });
            break;
          }
        }
        await stream.sleep(options.pollMs);
      }
    });
  });
}
