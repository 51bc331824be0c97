// The console's routes for acting on what waits and for following runs: the calls a held session waits for and
// the answers to them (recorded with the held call, then `murmur resume --hold` started in a child process —
// refused while another process runs the session), a task's history live over server-sent events, and a
// scheduled run's log. The token and same-origin checks of app.ts apply to every route here.
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { readScheduledMarker } from '../../scheduler/held.js';
import { readInterruptions, recordAnswer } from '../../scheduler/answers.js';
import type { CronStore } from '../../scheduler/store.js';
import type { RunRecord, ScheduledTask } from '../../scheduler/types.js';
import { sessionRunBy } from '../../host/session-holder.js';
import { answerFor, answerWords } from './answer-input.js';
import { runLogPage } from './answer-pages.js';
import { historyTable, taskMetaLine, type Assets } from './pages.js';
import { isSessionId, readStatus, sessionDir } from './session-source.js';
import { startResume } from './start-resume.js';
import { consoleLogFile } from './run-launch.js';

export interface AnswerRouteOptions {
  home: string;
  workspace: string;
  assets: Assets;
  findTask: (id: string) => { store: CronStore; task: ScheduledTask; history: RunRecord[] } | undefined;
  pollMs: number;
  env: NodeJS.ProcessEnv;
  /** The console's clock (the task page's "next" time). */
  now?: () => number;
  /** The murmur entry script that resumes a session (default: this process's, `murmur serve`'s). */
  mainScript?: string;
  /** Requests JSON bodies the same way as the task routes (Content-Type: application/json, an object). */
  jsonBody: (c: Context) => Promise<Record<string, unknown> | undefined>;
}

/** The most of a run's log the console serves (its end, when longer). */
const LOG_BYTES = 2 << 20;

function readLog(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const size = statSync(file).size;
  const text = readFileSync(file);
  return size > LOG_BYTES
    ? `… (the first ${size - LOG_BYTES} bytes are left out)\n${text.subarray(size - LOG_BYTES).toString('utf8')}`
    : text.toString('utf8');
}

export function addAnswerRoutes(app: Hono, options: AnswerRouteOptions): void {
  const { home } = options;
  const noSession = (c: Context, id: string) => c.json({ error: `no session "${id}"` }, 404);
  const sessionOf = (id: string) =>
    isSessionId(id) && existsSync(sessionDir(home, id)) ? sessionDir(home, id) : undefined;

  // What the session waits for: its held calls (with what their cards show), and who runs it now, if anyone.
  app.get('/api/sessions/:id/pending', (c) => {
    const id = c.req.param('id');
    const dir = sessionOf(id);
    if (!dir) return noSession(c, id);
    const runBy = sessionRunBy(dir);
    return c.json({
      status: readStatus(home, id) ?? 'unknown',
      held: readInterruptions(dir),
      ...(runBy ? { runBy } : {}),
    });
  });

  app.post('/api/sessions/:id/answers', async (c) => {
    const id = c.req.param('id');
    const dir = sessionOf(id);
    if (!dir) return noSession(c, id);
    const body = await options.jsonBody(c);
    if (!body) return c.json({ error: 'send a JSON object with Content-Type: application/json' }, 400);
    if (typeof body.callId !== 'string' || body.callId === '')
      return c.json({ error: 'callId must name the held call being answered' }, 400);
    const runBy = sessionRunBy(dir);
    if (runBy)
      return c.json(
        { error: `session ${id} is being run by another murmur (${runBy}); answer it once that run has stopped` },
        409,
      );
    const agentId = typeof body.agentId === 'string' ? body.agentId : undefined;
    const recorded = recordAnswer(dir, body.callId, (call) => answerFor(call, body), Date.now(), agentId);
    if (!recorded.ok) return c.json({ error: recorded.error }, recorded.status);
    if (recorded.unanswered > 0) return c.json({ recorded: body.callId, waiting: recorded.unanswered }, 200);
    const marker = readScheduledMarker(dir);
    const started = startResume({
      mainScript: options.mainScript ?? process.argv[1]!,
      workspace: marker?.workspace ?? options.workspace,
      home: marker?.home ?? home,
      sessionId: id,
      marker,
      answered: recorded.calls.map((call) => `${answerWords(call.answer!)}: ${call.summary}`).join('; '),
      env: options.env,
      logFile: consoleLogFile(home, id),
    });
    if (!started.ok) return c.json({ error: started.error }, 500);
    return c.json({ recorded: body.callId, waiting: 0, resumed: started.pid }, 202);
  });

  // A task's history, live: its rows (as the History tab draws them) and its header line whenever the runs change.
  app.get('/api/tasks/:id/events', (c) => {
    const id = c.req.param('id');
    if (!options.findTask(id)) return c.json({ error: `no scheduled task "${id}"` }, 404);
    return streamSSE(c, async (stream) => {
      let sent = '';
      let closed = false;
      stream.onAbort(() => {
        closed = true;
      });
      while (!closed) {
        const row = options.findTask(id);
        if (!row) break;
        const html = historyTable(row.task, row.history);
        if (html !== sent) {
          sent = html;
          await stream.writeSSE({ event: 'history', data: html });
          // The header line's status and run count follow the table.
          await stream.writeSSE({
            event: 'meta',
            data: taskMetaLine(row.task, row.history, (options.now ?? Date.now)()),
          });
        }
        await stream.sleep(options.pollMs);
      }
    });
  });

  const runLog = (c: Context) => {
    const row = options.findTask(c.req.param('id') ?? '');
    const runId = c.req.param('runId')!;
    const run = row?.history.find((r) => r.id === runId);
    return row && run ? { row, run, log: readLog(row.store.runLogFile(run.id)) } : undefined;
  };
  app.get('/api/tasks/:id/runs/:runId/log', (c) => {
    const found = runLog(c);
    if (!found)
      return c.json({ error: `no run "${c.req.param('runId')}" of scheduled task "${c.req.param('id')}"` }, 404);
    return c.text(found.log ?? '', 200, { 'content-type': 'text/plain; charset=utf-8' });
  });
  app.get('/tasks/:id/runs/:runId/log', (c) => {
    const found = runLog(c);
    if (!found) {
      const task = { id: c.req.param('id') ?? '', title: 'Scheduled task' };
      return c.html(runLogPage(task, c.req.param('runId') ?? '', undefined, options.assets), 404);
    }
    return c.html(runLogPage(found.row.task, found.run.id, found.log, options.assets));
  });
}
