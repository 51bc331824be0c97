// A scheduled run's session finished by `murmur resume` (in a terminal, or started by an answer in the web console):
// its run record follows (succeeded only with output), saying which.
import type { RunOutcome } from '../protocol/run-outcome.js';
import { readScheduledMarker, type ScheduledMarker } from './held.js';
import { CronStore } from './store.js';
import type { RunState } from './types.js';

export function resumedRunState(outcome: Pick<RunOutcome, 'status' | 'result' | 'reason'>): {
  state: RunState;
  summary: string;
} {
  const text = outcome.result?.trim() ?? '';
  if (outcome.status === 'completed') {
    return text
      ? { state: 'succeeded', summary: text.split('\n', 1)[0]!.slice(0, 200) }
      : { state: 'failed', summary: 'the run finished without any output' };
  }
  if (outcome.status === 'aborted') return { state: 'interrupted', summary: 'the resumed run was stopped' };
  return { state: 'failed', summary: `${outcome.status}${outcome.reason ? `: ${outcome.reason}` : ''}`.slice(0, 200) };
}

export function recordResumedRun(
  marker: ScheduledMarker,
  outcome: Pick<RunOutcome, 'status' | 'result' | 'reason'>,
  sessionId: string,
  /** Whether a person answered the held call in the web console (else the resume was a terminal's). */
  answeredInConsole = false,
): void {
  try {
    const store = new CronStore(marker.workspace, marker.home);
    const { state, summary } = resumedRunState(outcome);
    store.mutateHistory(marker.taskId, (runs) => {
      const run = runs.find((r) => r.id === marker.runId && r.sessionId === sessionId);
      if (!run) return;
      run.state = state;
      run.summary = `${summary} (${answeredInConsole ? 'after an answer in the console' : 'after murmur resume'})`;
      run.ended = Date.now();
    });
  } catch (error) {
    process.emitWarning(`murmur: cannot update the scheduled run of this session: ${(error as Error).message}`);
  }
}

/** A resumed run held again at a request that needs a person: its record waits for approval again. */
export function recordHeldRun(marker: ScheduledMarker, sessionId: string, held: string): void {
  try {
    const store = new CronStore(marker.workspace, marker.home);
    store.mutateHistory(marker.taskId, (runs) => {
      const run = runs.find((r) => r.id === marker.runId && r.sessionId === sessionId);
      if (!run) return;
      run.state = 'waiting-for-approval';
      run.summary = `waiting for approval: ${held}; answer it in the console, or continue it with: murmur resume ${sessionId}`;
      delete run.ended;
    });
  } catch (error) {
    process.emitWarning(`murmur: cannot update the scheduled run of this session: ${(error as Error).message}`);
  }
}

/**
 * A resumed session that was a scheduled task's run: its record in the task's history says how the resume ended
 * (waiting again, or finished); any other session is left alone.
 */
export function recordIfScheduled(
  sessionDir: string,
  sessionId: string,
  outcome: Pick<RunOutcome, 'status' | 'result' | 'reason' | 'interruptions'>,
  answeredInConsole: boolean,
): void {
  const marker = readScheduledMarker(sessionDir);
  if (!marker) return;
  if (outcome.status === 'waiting')
    recordHeldRun(marker, sessionId, (outcome.interruptions ?? []).map((i) => i.summary).join('; '));
  else recordResumedRun(marker, outcome, sessionId, answeredInConsole);
}
