// A session page's Retry: `GET /api/sessions/:id/retry` says which items of the ended swarm could run again (how
// many, and the items; a big swarm names its first 100);
// `POST` with `{swarmId?, items?: [labels], failed?: true}` checks the choice as `murmur resume --retry` does
// (host/retry.ts) and starts that command detached, the way the console starts a Resume (run-launch.ts). A session
// that still runs is refused (409); items it does not have or that completed are named (400). The app's gates
// (token, own origin, JSON only, body limits) apply before these.
import type { Context, Hono } from 'hono';
import { openResumable } from '../../host/resume.js';
import { planRetry, retryCandidates, type RetryChoice } from '../../host/retry.js';
import { serviceHolder } from '../../host/lock.js';
import { jsonBody } from './json-body.js';
import { consoleLogFile, launchMurmur } from './run-launch.js';
import { lockFileOf, sessionControl } from './session-control.js';
import { endedStatus, isSessionId, sessionDir, SessionSource } from './session-source.js';
import { bigRetryCandidates } from './big-session.js';

export interface RetryRouteOptions {
  workspace: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** The murmur entry script to start the retry with; without it the console cannot start work (503). */
  mainScript: string | undefined;
  /** How long a start waits for the retry to hold the session. */
  startTimeoutMs?: number;
}

/** The retry's choice from a request body, or what is wrong with it. */
function choiceOf(body: Record<string, unknown>): RetryChoice | string {
  const { items, failed } = body;
  if (failed !== undefined && failed !== true) return 'failed must be true (retry every failed item) or absent';
  if (failed === true && items !== undefined) return 'give items (labels) or failed: true, not both';
  if (failed === true) return { failed: true };
  if (!Array.isArray(items) || items.length === 0 || !items.every((i) => typeof i === 'string' && i !== ''))
    return 'items must be a non-empty list of item labels, or send failed: true to retry every failed item';
  return { items: items as string[] };
}

export function addRetryRoutes(app: Hono, options: RetryRouteOptions): void {
  const { home, workspace } = options;
  const known = (id: string) => isSessionId(id) && SessionSource.exists(home, id);
  const noSession = (c: Context, id: string) => c.json({ error: `no session "${id}"` }, 404);
  const open = (id: string) => openResumable(workspace, { ...options.env, MURMUR_HOME: home }, id);

  app.get('/api/sessions/:id/retry', (c) => {
    const id = c.req.param('id');
    if (!known(id)) return noSession(c, id);
    const running = sessionControl(home, id, endedStatus(home, id)).running;
    // A big swarm's candidates are counted from its timeline (the first of them named), not read back one by one.
    const big = bigRetryCandidates(sessionDir(home, id));
    if (big) return c.json({ running, ...big });
    const opened = open(id);
    const swarm = opened.ok ? opened.resumable.swarm : undefined;
    const items = swarm && !swarm.queue ? retryCandidates(swarm) : [];
    return c.json({ running, ...(swarm ? { swarmId: swarm.swarmId } : {}), count: items.length, items });
  });

  app.post('/api/sessions/:id/retry', async (c) => {
    const id = c.req.param('id');
    if (!known(id)) return noSession(c, id);
    const body = await jsonBody(c);
    if (!body) return c.json({ error: 'send a JSON object with Content-Type: application/json' }, 400);
    if (sessionControl(home, id, endedStatus(home, id)).running)
      return c.json(
        { error: `session ${id} is still running: retry its items once it has ended, or stop it first` },
        409,
      );
    const choice = choiceOf(body);
    if (typeof choice === 'string') return c.json({ error: choice }, 400);
    const opened = open(id);
    if (!opened.ok) return c.json({ error: opened.error }, 409);
    const swarm = opened.resumable.swarm;
    if (body.swarmId !== undefined && swarm && body.swarmId !== swarm.swarmId)
      return c.json(
        { error: `session ${id} has no swarm ${JSON.stringify(body.swarmId)}; its swarm is ${swarm.swarmId}` },
        400,
      );
    const planned = planRetry(opened.resumable, choice);
    if (!planned.ok) return c.json({ error: planned.error }, 400);
    if (!options.mainScript)
      return c.json({ error: 'this console cannot start work: it was not started by murmur serve' }, 503);
    const log = consoleLogFile(home, id);
    const which = 'failed' in choice ? ['--retry-failed'] : planned.labels.map((label) => `--retry=${label}`);
    const launched = await launchMurmur({
      mainScript: options.mainScript,
      workspace,
      env: options.env,
      args: ['resume', id, `--cwd=${workspace}`, '--no-dashboard', '--json', '--hold', ...which],
      logFile: log,
      // Held by the retry, and its run.start written after the run.end that closed the last run.
      ready: () => serviceHolder(lockFileOf(home, id)) !== undefined && endedStatus(home, id) === undefined,
      ...(options.startTimeoutMs !== undefined ? { timeoutMs: options.startTimeoutMs } : {}),
    });
    if (!launched.ok) return c.json({ error: launched.reason, log }, 422);
    return c.json({ retrying: planned.labels, url: `/sessions/${id}`, pid: launched.pid, log }, 202);
  });
}
