// A background task (a command, a subagent, a question) as the task tools list it and the saved state keeps it.
// Not a scheduled task's. The registry that runs them is tools/adapters.ts's BackgroundTasks port.

export type TaskKind = 'bash' | 'agent' | 'question';

/** How a task ended. */
export type TaskEndStatus = 'completed' | 'failed' | 'timeout' | 'aborted' | 'stopped';

/** A background task's (command, subagent, question) state; not a scheduled task's (ScheduledTaskStatus). */
export type BackgroundTaskStatus = 'running' | TaskEndStatus;

export interface TaskInfo {
  taskId: string;
  kind: TaskKind;
  description: string;
  status: BackgroundTaskStatus;
  ownerAgentId: string;
  startedAt: number;
  endedAt?: number;
  result?: string;
  outputPath: string;
  meta?: Record<string, string>;
}
