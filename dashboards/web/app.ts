// The web console's HTTP app (Hono: small, typed, on web-standard Request/Response). Every request passes two
// gates before anything else: its Host header must name this console (DNS rebinding → 403), and it must carry
// the start's token — from the link (then kept in an HttpOnly SameSite=Strict cookie and dropped from the URL),
// the cookie, or `Authorization: Bearer` (→ 401: empty for scripts and the JSON API, a page saying how to get the
// link for a browser; only the favicon needs no token). No CORS headers are ever sent. A request body is read up
// to 1 MB (32 MB for a new swarm's list of items; 413 above). Changes go through the scheduled-task store and its
// validation, the same as `murmur schedule`. The session routes are in session-routes.ts; starting, stopping and
// resuming work in run-routes.ts.
import { Hono, type Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { bodyLimit } from 'hono/body-limit';
import { createHash, timingSafeEqual } from 'node:crypto';
import { CronStore } from '../../scheduler/store.js';
import { taskObject, taskStatus } from '../../scheduler/task-view.js';
import { defaultTimeZone, localDateText } from '../../scheduler/schedule.js';
import type { FieldError, TaskInput } from '../../scheduler/validate.js';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.js';
import { FAVICON_SVG, noTokenPage, wantsPage } from './no-token.js';
import { newTaskPage, STATUS_FILTERS, taskPage, tasksPage, type FormChoices, type StatusFilter } from './pages.js';
import { addSessionRoutes, sessionCache, type SessionCache } from './session-routes.js';
import { addRunRoutes } from './run-routes.js';
import { addRetryRoutes } from './retry-route.js';
import { MAX_BODY_BYTES, MAX_SWARM_BODY_BYTES } from './body-limits.js';
import { jsonBody } from './json-body.js';
import { addAnswerRoutes } from './answer-routes.js';
import { knownModels } from './model-choices.js';
import { addTranscriptRoutes } from './transcript-page.js';
import { predictTimeline, zoneOptions } from './task-forms.js';

export const COOKIE = 'murmur_console';

export interface ConsoleOptions {
  token: string;
  /** The Host header values accepted (host:port, lower case). */
  allowedHosts: readonly string[];
  /** The workspace whose sessions are shown and where new tasks go by default. */
  workspace: string;
  /** Every task store shown (the user-level list plus the workspace). */
  stores: () => CronStore[];
  /** The state folder of the workspace (its sessions). */
  home: string;
  now?: () => number;
  env?: NodeJS.ProcessEnv;
  /** How often a live session's events file is read for the SSE stream (default 1 s). */
  pollMs?: number;
  /** The folded sessions kept in memory (default: a cache of about 64 MB). */
  sessionCache?: SessionCache;
  /** The murmur entry script that starts runs, swarms and resumes (absent: the console cannot start work). */
  mainScript?: string;
}

export { MAX_BODY_BYTES, MAX_SWARM_BODY_BYTES } from './body-limits.js';
/** An over-limit body up to this size is read and dropped so its client gets the 413 (see `limit`). */
const DRAIN_BYTES = 64 << 20;

/** Reads a request body to its end, keeping none of it: true once it ended, false when it could not be read. */
async function discarded(body: ReadableStream<Uint8Array> | null): Promise<boolean> {
  if (!body || body.locked) return false;
  const reader = body.getReader();
  try {
    while (!(await reader.read()).done) {
      // dropped
    }
    return true;
  } catch {
    return false;
  }
}

const assets = { css: CONSOLE_CSS, js: CONSOLE_JS };

function sameToken(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

const OPTIONAL_FIELDS = ['until', 'maxFires', 'permissionMode', 'model', 'effort'] as const;
const INPUT_FIELDS = [
  'cron',
  'every',
  'at',
  'start',
  'until',
  'title',
  'prompt',
  'timezone',
  'recurring',
  'maxFires',
  'permissionMode',
  'model',
  'effort',
] as const;

/** A JSON body to a TaskInput: only known fields; strings stay strings (the store's checks name bad values). */
function inputOf(body: Record<string, unknown>): { input: TaskInput; errors: FieldError[] } {
  const input: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const key of INPUT_FIELDS) {
    const value = body[key];
    if (value === undefined || value === null || value === '') continue;
    if (key === 'recurring') {
      if (typeof value !== 'boolean')
        errors.push({ field: 'recurring', message: `recurring ${JSON.stringify(value)} is not true or false` });
      else input.recurring = value;
    } else if (key === 'maxFires' && typeof value === 'number') input.maxFires = value;
    else if (typeof value === 'string') input[key] = value;
    else errors.push({ field: key, message: `${key} must be text, got ${JSON.stringify(value)}` });
  }
  return { input: input as TaskInput, errors };
}

export function consoleApp(options: ConsoleOptions): Hono {
  const app = new Hono();
  const now = options.now ?? Date.now;
  const allowed = new Set(options.allowedHosts.map((h) => h.toLowerCase()));

  // Cookies are kept per host, not per port: each console has its own cookie name (two consoles do not log each
  // other out), and the cookie holds its own secret, never the token that the API takes as Bearer.
  const cookieName = `${COOKIE}_${(options.allowedHosts[0] ?? '').replace(/.*:/, '')}`;
  const cookieValue = createHash('sha256').update(`murmur-console-cookie:${options.token}`).digest('base64url');
  app.use('*', async (c, next) => {
    const host = (c.req.header('host') ?? '').toLowerCase();
    if (!allowed.has(host)) return c.text('Forbidden: this console does not answer to that host name.\n', 403);
    const url = new URL(c.req.url);
    if (url.pathname === '/favicon.ico' && (c.req.method === 'GET' || c.req.method === 'HEAD'))
      return c.body(FAVICON_SVG, 200, { 'content-type': 'image/svg+xml', 'cache-control': 'max-age=86400' });
    const fromQuery = url.searchParams.get('token') ?? undefined;
    if (fromQuery !== undefined && sameToken(fromQuery, options.token)) {
      setCookie(c, cookieName, cookieValue, { httpOnly: true, sameSite: 'Strict', path: '/' });
      url.searchParams.delete('token');
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    const auth = c.req.header('authorization');
    const bearer = auth?.startsWith('Bearer ') ? auth.slice(7).trim() : undefined;
    if (sameToken(bearer, options.token)) return next();
    if (!sameToken(getCookie(c, cookieName), cookieValue)) {
      // A person's browser gets a page saying how to get the link; scripts and the JSON API an empty 401.
      return wantsPage(url.pathname, c.req.method, c.req.header('accept'), auth)
        ? c.html(noTokenPage(host), 401)
        : c.body(null, 401);
    }
    // A cookie rides along on requests that other pages start, and SameSite does not tell ports apart: a page on
    // another local port is "same-site". So a change made with the cookie must come from this console's own
    // pages (its Origin), as JSON that a plain form or a no-preflight fetch cannot send.
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const origin = c.req.header('origin');
      const site = c.req.header('sec-fetch-site');
      if (origin !== `${url.protocol}//${host}` || (site !== undefined && site !== 'same-origin')) {
        return c.text("Forbidden: changes come from the console's own pages (or with Authorization: Bearer).\n", 403);
      }
    }
    await next();
  });
  // A body is kept only up to the limit: over it (by its Content-Length, or counted as it streams) the answer is
  // 413. A body that says it is at most DRAIN_BYTES is read to its end and dropped first, so the client reads the
  // 413 instead of a connection reset under its upload, and its connection stays usable (answered before the body
  // was read, the server cut it, and the client's next request on it failed); a bigger or unsized one is cut off.
  const limit = (bytes: number) =>
    bodyLimit({
      maxSize: bytes,
      onError: async (c) => {
        const declared = Number(c.req.header('content-length') ?? Number.NaN);
        const drain = Number.isFinite(declared) && declared <= DRAIN_BYTES && (await discarded(c.req.raw.body));
        return c.json(
          { error: `the request body is over this console's limit of ${bytes >> 20} MB (${bytes} bytes)` },
          413,
          drain ? {} : { connection: 'close' },
        );
      },
    });
  const [small, large] = [limit(MAX_BODY_BYTES), limit(MAX_SWARM_BODY_BYTES)];
  // Only a request that can carry a body goes through the limit: it reads `c.req.raw.body`, which makes the server
  // build a whole fetch Request (with an abort signal the runtime tracks through finalizers); done for every GET,
  // that left about 400 B per request that one major GC could not free, and the console's heap grew with requests.
  app.use('*', (c, next) =>
    c.req.method === 'GET' || c.req.method === 'HEAD'
      ? next()
      : (c.req.path === '/api/swarms' ? large : small)(c, next),
  );

  const allTasks = () => {
    const rows = [];
    for (const store of options.stores()) {
      let tasks;
      try {
        tasks = store.list();
      } catch {
        continue;
      }
      for (const task of tasks) rows.push({ store, task, history: store.history(task.id) });
    }
    return rows.sort((a, b) => b.task.createdAt - a.task.createdAt);
  };
  const findTask = (id: string) => allTasks().find((r) => r.task.id === id);
  const storeFor = (workspace: string | undefined) =>
    (workspace ? options.stores().find((s) => s.workspace === workspace) : undefined) ??
    options.stores().find((s) => s.workspace === options.workspace)!;
  const taskModels = () => allTasks().map(({ task }) => task.model);
  const choices = async (): Promise<FormChoices> => {
    const stores = options.stores();
    const workspaces = [options.workspace, ...stores.map((s) => s.workspace).filter((w) => w !== options.workspace)];
    const models = await knownModels(options.env ?? process.env, workspaces, taskModels());
    // The same list of zone names the CLI checks against (Node's own list lacks Asia/Kolkata and others).
    const zone = defaultTimeZone();
    const zones = zoneOptions(zone, ...allTasks().map(({ task }) => task.timezone));
    return {
      workspaces,
      models,
      zones,
      defaultZone: zone,
      today: localDateText(now(), zone),
    };
  };
  // ---- pages ----
  app.get('/', (c) => c.redirect('/tasks', 303));
  app.get('/assets/console.css', (c) =>
    c.body(CONSOLE_CSS, 200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'no-cache' }),
  );
  app.get('/assets/console.js', (c) =>
    c.body(CONSOLE_JS, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' }),
  );
  app.get('/tasks', (c) => {
    const status = (c.req.query('status') ?? 'all') as StatusFilter;
    const filter = STATUS_FILTERS.includes(status) ? status : 'all';
    return c.html(tasksPage(allTasks(), filter, now(), assets));
  });
  app.get('/tasks/new', async (c) => c.html(newTaskPage(await choices(), assets)));
  app.get('/tasks/:id', async (c) => {
    const row = findTask(c.req.param('id'));
    if (!row) return c.html('<!doctype html><p>No such scheduled task. <a href="/tasks">All tasks</a></p>', 404);
    const tab = c.req.query('tab') === 'history' ? 'history' : 'settings';
    return c.html(taskPage(row.task, row.history, tab, await choices(), now(), assets));
  });
  // ---- the JSON API ----
  const badInput = (c: Context, errors: FieldError[]) => c.json({ errors }, 400);
  const notFound = (c: Context, id: string) => c.json({ error: `no scheduled task "${id}"` }, 404);

  app.get('/api/tasks', (c) => {
    const status = c.req.query('status') ?? 'all';
    if (!STATUS_FILTERS.includes(status as StatusFilter))
      return c.json(
        {
          errors: [
            {
              field: 'status',
              message: `status ${JSON.stringify(status)} is not one of all, active, paused, failed, ended`,
            },
          ],
        },
        400,
      );
    const out = allTasks()
      .filter((r) => status === 'all' || taskStatus(r.task, r.history) === status)
      .map((r) => taskObject(r.task, r.history, now()));
    return c.json(out);
  });
  app.post('/api/tasks', async (c) => {
    const body = await jsonBody(c);
    if (!body) return c.json({ error: 'send a JSON object with Content-Type: application/json' }, 400);
    const { input, errors } = inputOf(body);
    if (errors.length > 0) return badInput(c, errors);
    const workspace = typeof body.workspace === 'string' ? body.workspace : undefined;
    if (workspace !== undefined && !options.stores().some((s) => s.workspace === workspace)) {
      return c.json(
        {
          errors: [
            { field: 'workspace', message: `workspace ${JSON.stringify(workspace)} is not one this console serves` },
          ],
        },
        400,
      );
    }
    const store = storeFor(workspace);
    const created = store.create(input, { createdBy: 'person' });
    if (!created.ok) return badInput(c, created.errors);
    return c.json(taskObject(created.value, [], now()), 201);
  });
  app.post('/api/preview', async (c) => {
    const body = await jsonBody(c);
    if (!body) return c.json({ error: 'send a JSON object with Content-Type: application/json' }, 400);
    const { input, errors } = inputOf(body);
    if (errors.length > 0) return badInput(c, errors);
    // A saved task's own state (ended, paused, its runs so far) decides which of the times it would still make.
    const task = typeof body.task === 'string' ? findTask(body.task)?.task : undefined;
    const predicted = predictTimeline(input, now(), task);
    return predicted.ok ? c.json(predicted.value) : badInput(c, predicted.errors);
  });
  app.get('/api/tasks/:id', (c) => {
    const row = findTask(c.req.param('id'));
    return row ? c.json(taskObject(row.task, row.history, now(), true)) : notFound(c, c.req.param('id'));
  });
  app.put('/api/tasks/:id', async (c) => {
    const row = findTask(c.req.param('id'));
    if (!row) return notFound(c, c.req.param('id'));
    const body = await jsonBody(c);
    if (!body) return c.json({ error: 'send a JSON object with Content-Type: application/json' }, 400);
    const { input, errors } = inputOf(body);
    if (errors.length > 0) return badInput(c, errors);
    // The form sends the whole definition: what it leaves empty is cleared, not kept.
    const changes: TaskInput = { ...input };
    for (const key of OPTIONAL_FIELDS) if (!(key in changes)) (changes as Record<string, unknown>)[key] = undefined;
    // Saving in the console is a person's decision: the task is kept (never goes stale).
    const updated = row.store.update(row.task.id, changes, { keep: true });
    if (!updated.ok) return 'notFound' in updated ? notFound(c, row.task.id) : badInput(c, updated.errors);
    return c.json(taskObject(updated.value, row.store.history(row.task.id), now(), true));
  });
  app.post('/api/tasks/:id/:action{pause|unpause|run-now|keep}', (c) => {
    const row = findTask(c.req.param('id'));
    if (!row) return notFound(c, c.req.param('id'));
    const action = c.req.param('action');
    const task =
      action === 'pause'
        ? row.store.pause(row.task.id)
        : action === 'unpause'
          ? row.store.unpause(row.task.id)
          : action === 'keep'
            ? row.store.keep(row.task.id)
            : row.store.runNow(row.task.id);
    if (!task) return notFound(c, row.task.id);
    return c.json(taskObject(task, row.store.history(task.id), now()));
  });
  app.delete('/api/tasks/:id', (c) => {
    const row = findTask(c.req.param('id'));
    if (!row) return notFound(c, c.req.param('id'));
    row.store.remove(row.task.id);
    return c.json({ removed: row.task.id });
  });

  addAnswerRoutes(app, {
    ...options,
    assets,
    findTask,
    pollMs: options.pollMs ?? 1000,
    env: options.env ?? process.env,
    jsonBody,
  });
  // One cache of folded sessions for their pages and their agents' transcripts (which say why an agent failed).
  const cache = options.sessionCache ?? sessionCache();
  addSessionRoutes(app, {
    home: options.home,
    assets,
    cache,
    pollMs: options.pollMs ?? 1000,
  });
  const { workspace, home, mainScript } = options;
  addRunRoutes(app, { workspace, home, env: options.env ?? process.env, assets, mainScript, taskModels });
  addRetryRoutes(app, { workspace, home, env: options.env ?? process.env, mainScript });
  addTranscriptRoutes(app, { home, assets, cache });
  return app;
}
