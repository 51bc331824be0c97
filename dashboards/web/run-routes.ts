// Starting, stopping and resuming work from the console: the New run and New swarm pages, `POST /api/runs` and
// `POST /api/swarms` (checked as the command line checks, then started as `murmur run` / `murmur swarm` child
// processes in the console's workspace), the live count of a glob's matches, and a session's Stop and Resume
// (with `GET /api/sessions/:id/control` saying which applies and why). The app's gates (token, own origin, JSON
// only, body limits) apply before any of these.
import type { Context, Hono } from 'hono';
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { newSessionId } from '../../orchestrator/session.js';
import { definedAgentNames } from '../../host/checks.js';
import { globItems } from '../../host/glob-items.js';
import type { Assets } from './pages.js';
import { jsonBody } from './json-body.js';
import { knownModels } from './model-choices.js';
import { newRunPage, newSwarmPage, type RunChoices } from './run-form-html.js';
import { checkRun, checkSwarm, type Checked, type FieldError } from './run-input.js';
import { consoleLogFile, launchMurmur } from './run-launch.js';
import { sessionControl, stopSession } from './session-control.js';
import { endedStatus, isSessionId, SessionSource } from './session-source.js';
import { serviceHolder } from '../../host/lock.js';
import { lockFileOf } from './session-control.js';

export interface RunRouteOptions {
  workspace: string;
  home: string;
  env: NodeJS.ProcessEnv;
  assets: Assets;
  /** The murmur entry script to start work with; without it the console cannot start work (503). */
  mainScript: string | undefined;
  /** How long a start waits for its session to appear. */
  startTimeoutMs?: number;
  /** The models scheduled tasks use (offered in the forms too). */
  taskModels?: () => (string | undefined)[];
}

/** Matches listed with a glob's count (the first few, to see what it means). */
const GLOB_SAMPLE = 5;

const notJson = (c: Context) => c.json({ error: 'send a JSON object with Content-Type: application/json' }, 400);

/** The field a command's refusal names (`--role "x" …` → role), so the page shows it there. */
function fieldOf(reason: string): string {
  const flag =
    /--(template|items|glob|role|model|effort|permission-mode|agent|max-rounds|max-concurrency|isolation)\b/.exec(
      reason,
    );
  if (!flag) return 'form';
  return flag[1]!.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
}

export function addRunRoutes(app: Hono, options: RunRouteOptions): void {
  const { home, workspace, env, assets } = options;
  const ctx = { workspace, env };
  const choices = async (): Promise<RunChoices> => ({
    workspace,
    models: await knownModels(env, [workspace], options.taskModels?.() ?? []),
    agents: definedAgentNames(workspace, env),
  });
  const cannotStart = (c: Context) =>
    c.json(
      { errors: [{ field: 'form', message: 'this console cannot start work: it was not started by murmur serve' }] },
      503,
    );

  /** Starts a checked `murmur run` or `murmur swarm` under a new session id; answers once the session shows. */
  const start = async (c: Context, checked: Checked) => {
    if (!checked.ok) return c.json({ errors: checked.errors }, 400);
    if (!options.mainScript) return cannotStart(c);
    const sessionId = newSessionId();
    const log = consoleLogFile(home, sessionId);
    const args = [...checked.args];
    if (checked.items) {
      const file = join(home, 'console', `${sessionId}.items`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${checked.items.join('\n')}\n`);
      args.splice(2, 0, `--items-file=${file}`);
    }
    // Nobody is at a terminal: a request that needs a person is held, and answered on the session's page.
    args.splice(1, 0, `--session-id=${sessionId}`, '--hold');
    const launched = await launchMurmur({
      mainScript: options.mainScript,
      workspace,
      env,
      args,
      logFile: log,
      ready: () => SessionSource.exists(home, sessionId),
      ...(options.startTimeoutMs !== undefined ? { timeoutMs: options.startTimeoutMs } : {}),
    });
    if (!launched.ok) {
      const errors: FieldError[] = [{ field: fieldOf(launched.reason), message: launched.reason }];
      return c.json({ errors, log }, 422);
    }
    return c.json({ sessionId, url: `/sessions/${sessionId}`, pid: launched.pid, log }, 201);
  };

  app.get('/runs/new', async (c) => c.html(newRunPage(await choices(), assets)));
  app.get('/swarms/new', async (c) => c.html(newSwarmPage(await choices(), assets)));

  app.post('/api/runs', async (c) => {
    const body = await jsonBody(c);
    return body ? start(c, checkRun(body, ctx)) : notJson(c);
  });
  app.post('/api/swarms', async (c) => {
    const body = await jsonBody(c);
    return body ? start(c, await checkSwarm(body, ctx)) : notJson(c);
  });
  app.post('/api/glob-count', async (c) => {
    const body = await jsonBody(c);
    if (!body) return notJson(c);
    const pattern = body.glob;
    if (typeof pattern !== 'string' || pattern.trim() === '')
      return c.json(
        { errors: [{ field: 'glob', message: 'glob must be a non-empty pattern, e.g. src/**/*.ts' }] },
        400,
      );
    const files = await globItems(pattern.trim(), workspace);
    return c.json({ glob: pattern.trim(), count: files.length, sample: files.slice(0, GLOB_SAMPLE) });
  });

  const known = (id: string) => isSessionId(id) && SessionSource.exists(home, id);
  const noSession = (c: Context, id: string) => c.json({ error: `no session "${id}"` }, 404);
  app.get('/api/sessions/:id/control', (c) => {
    const id = c.req.param('id');
    return known(id) ? c.json(sessionControl(home, id, endedStatus(home, id))) : noSession(c, id);
  });
  app.post('/api/sessions/:id/stop', (c) => {
    const id = c.req.param('id');
    if (!known(id)) return noSession(c, id);
    const stopped = stopSession(home, id);
    return stopped.ok ? c.json({ stopping: id, pid: stopped.pid }, 202) : c.json({ error: stopped.error }, 409);
  });
  app.post('/api/sessions/:id/resume', async (c) => {
    const id = c.req.param('id');
    if (!known(id)) return noSession(c, id);
    const control = sessionControl(home, id, endedStatus(home, id));
    if (!control.resume?.enabled)
      return c.json(
        {
          error: control.running
            ? `session ${id} is running`
            : `session ${id} cannot be resumed: ${control.resume?.reason}`,
        },
        409,
      );
    if (!options.mainScript) return cannotStart(c);
    const log = consoleLogFile(home, id);
    const launched = await launchMurmur({
      mainScript: options.mainScript,
      workspace,
      env,
      args: ['resume', id, `--cwd=${workspace}`, '--no-dashboard', '--json', '--hold'],
      logFile: log,
      // Held by the resume, and its run.start written after the run.end that closed the last run.
      ready: () => serviceHolder(lockFileOf(home, id)) !== undefined && endedStatus(home, id) === undefined,
      ...(options.startTimeoutMs !== undefined ? { timeoutMs: options.startTimeoutMs } : {}),
    });
    if (!launched.ok) return c.json({ error: launched.reason, log }, 422);
    return c.json({ resumed: id, url: `/sessions/${id}`, pid: launched.pid, log }, 202);
  });
}
