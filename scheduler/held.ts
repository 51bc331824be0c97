// A scheduled run's session, and the exit status of a run that waits for a person. A session started by the
// scheduler names its task and run in `scheduled.json`, so the run's record follows the session when a resume
// finishes it. (What a run waits for is its state's interruptions: protocol/interruptions.ts.)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A command whose run ends waiting for a person exits with this status (the scheduler and the console read it). */
export const HELD_EXIT_CODE = 75;

/** Ties a session to the scheduled run that started it. */
export const SCHEDULED_FILE = 'scheduled.json';

export interface ScheduledMarker {
  taskId: string;
  runId: string;
  /** The state folder whose cron store holds the run. */
  home: string;
  workspace: string;
}

export function readScheduledMarker(sessionDir: string): ScheduledMarker | undefined {
  const file = join(sessionDir, SCHEDULED_FILE);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ScheduledMarker;
  } catch {
    return undefined;
  }
}
