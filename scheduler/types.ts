// Scheduled tasks: the shapes shared by the store, the firing rules, the service, the CLI, the tool and (next)
// the web console. Times are epoch milliseconds; dates (start, until) are calendar days in the task's zone.

export type IntervalUnit = 'd' | 'w' | 'mo';

/** When a task fires: a 5-field cron, or every N days/weeks/months at a time of day from a start date. */
export type Schedule =
  | { kind: 'cron'; cron: string }
  | { kind: 'every'; every: { n: number; unit: IntervalUnit }; at: string; start: string };

export type PermissionModeName = 'manual' | 'auto' | 'yolo';
export type Effort = 'low' | 'medium' | 'high';

export interface ScheduledTask {
  id: string;
  title: string;
  /** The workspace folder (absolute, real path). */
  workspace: string;
  prompt: string;
  schedule: Schedule;
  /** `YYYY-MM-DD`: that day still runs. */
  until?: string;
  timezone: string;
  recurring: boolean;
  maxFires?: number;
  permissionMode?: PermissionModeName;
  model?: string;
  effort?: Effort;
  /** An agent's tasks go stale after 7 days unless a person kept them. */
  createdBy: 'person' | 'agent';
  kept?: boolean;
  createdAt: number;
  updatedAt: number;
  paused: boolean;
  /** Fires happen only for ideal times after this (creation, unpause, edit, or the last fire). */
  cursor: number;
  fires: number;
  ended?: { at: number; reason: 'max-fires' | 'once' | 'until' | 'stale' };
  /** A fire that came while the previous run was still going: at most one waits. */
  queued?: { planned: number; coalescedCount: number; stale: boolean };
  /** `murmur schedule run-now`: picked up by the scheduler at its next check. */
  runNowAt?: number;
  /** When the next fire is due (jitter applied; null: none), valid while `key` matches cursor and update time. */
  due?: { key: string; at: number | null };
}

export type RunTrigger = 'scheduled' | 'run-now' | 'queued';
export type RunState = 'running' | 'succeeded' | 'failed' | 'waiting-for-approval' | 'interrupted';

export interface RunRecord {
  id: string;
  taskId: string;
  trigger: RunTrigger;
  /** The ideal (unjittered) time this run stands for. */
  planned: number;
  started: number;
  /** started − planned; negative when it ran early (a one-shot task at :00 or :30 fires up to 90 s before it). */
  lateMs: number;
  sessionId?: string;
  state: RunState;
  /** The first line of its result, or why it failed. */
  summary?: string;
  ended?: number;
  coalescedCount: number;
  stale: boolean;
  /** The scheduler process that started it (to tell a crashed run from a live one). */
  pid?: number;
}

export const STALE_AFTER_MS = 7 * 24 * 60 * 60 * 1000;
