// Carrying on a held session once a person answered in the console: `murmur resume ID --hold` in a child
// process of its own (detached, as the scheduler starts runs, so it outlives the console), which replays the
// recorded answers and holds again whatever nobody answered yet. Its stderr goes to the scheduled run's log (for
// work the console started, to the console's log of that session). A
// scheduled run's record shows it running at once; the resume itself records how it ended — and if it never could
// (refused, killed), the console records the reason from its log while it watches.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ScheduledMarker } from '../../scheduler/held.js';
import { logExcerpt, logSize } from '../../scheduler/run-log.js';
import { CronStore } from '../../scheduler/store.js';

export interface ResumeStart {
  /** The murmur entry script (the console's own: `process.argv[1]` in `murmur serve`). */
  mainScript: string;
  workspace: string;
  home: string;
  sessionId: string;
  /** The scheduled run the session belongs to, if any. */
  marker: ScheduledMarker | undefined;
  /** What was answered, for the run's record. */
  answered: string;
  /** Where its stderr goes when it is not a scheduled run's (whose log is the run's): the console's log of it. */
  logFile?: string;
  env: NodeJS.ProcessEnv;
}

const STARTED = 'answered in the console';

function updateRun(
  marker: ScheduledMarker,
  sessionId: string,
  change: (run: { state: string; summary?: string; ended?: number }) => void,
) {
  try {
    new CronStore(marker.workspace, marker.home).mutateHistory(marker.taskId, (runs) => {
      const run = runs.find((r) => r.id === marker.runId && r.sessionId === sessionId);
      if (run) change(run);
    });
  } catch {
    // The task was removed meanwhile: nothing to record.
  }
}

/** Starts the resume; its pid, or an error message. */
export function startResume(start: ResumeStart): { ok: true; pid: number } | { ok: false; error: string } {
  const { marker, sessionId } = start;
  const logFile = marker ? new CronStore(marker.workspace, marker.home).runLogFile(marker.runId) : start.logFile;
  let from = 0;
  let log: number | 'ignore' = 'ignore';
  if (logFile) {
    mkdirSync(dirname(logFile), { recursive: true });
    from = logSize(logFile);
    log = openSync(logFile, 'a');
    writeSync(log, `--- ${new Date().toISOString()} ${STARTED} (${start.answered}); murmur resume ${sessionId}\n`);
    from = logSize(logFile);
  }
  let child;
  try {
    child = spawn(
      process.execPath,
      [start.mainScript, 'resume', sessionId, '--cwd', start.workspace, '--json', '--hold'],
      {
        cwd: start.workspace,
        env: { ...start.env, MURMUR_HOME: start.home },
        stdio: ['ignore', 'ignore', log],
        detached: true,
      },
    );
  } catch (error) {
    return { ok: false, error: `could not start murmur resume: ${(error as Error).message}` };
  } finally {
    if (typeof log === 'number') closeSync(log);
  }
  child.unref();
  if (marker) {
    updateRun(marker, sessionId, (run) => {
      run.state = 'running';
      run.summary = `${STARTED} (${start.answered}); resumed`;
      delete run.ended; // its end is the resumed run's (History's duration runs on)
    });
    // A resume that ends without recording its outcome (refused before it began, killed): say why from its log.
    child.on('exit', (code, signal) => {
      if (code === 0 || code === 1 || code === 75 || code === 130) return;
      updateRun(marker, sessionId, (run) => {
        if (run.state !== 'running' || !run.summary?.startsWith(STARTED)) return;
        const why = logFile ? logExcerpt(logFile, from) : undefined;
        run.state = signal ? 'interrupted' : 'failed';
        run.ended = Date.now();
        run.summary = `the resume ${signal ? `was stopped (${signal})` : `exited with status ${code}`}${why ? `: ${why}` : ''}`;
      });
    });
  }
  child.on('error', () => undefined);
  return { ok: true, pid: child.pid ?? 0 };
}
