// Whether an edit leaves a task ended or arms it again: one rule for the store's update and for the console's
// predicted timeline (which must not show times an ended task will never reach).
import type { TaskDefinition } from './validate.js';
import type { ScheduledTask } from './types.js';

type Before = Pick<ScheduledTask, 'schedule' | 'timezone' | 'until' | 'recurring' | 'ended' | 'fires'>;
type After = Pick<TaskDefinition, 'schedule' | 'timezone' | 'until' | 'recurring' | 'maxFires'>;

/** Whether the definition fires at other times than the task did (its zone, end date and one-shot flag count). */
export function scheduleChanged(task: Before, next: After): boolean {
  return (
    JSON.stringify([task.schedule, task.timezone, task.until, task.recurring]) !==
    JSON.stringify([next.schedule, next.timezone, next.until, next.recurring])
  );
}

/**
 * The task's end after the edit: a new schedule re-arms a task that ended by its end date or its one fire; a
 * raised or removed cap re-arms one that ended by its cap. A stale task stays ended.
 */
export function endedAfterEdit(task: Before, next: After): ScheduledTask['ended'] {
  const ended = task.ended;
  if (!ended) return undefined;
  if ((ended.reason === 'until' || ended.reason === 'once') && scheduleChanged(task, next)) return undefined;
  if (ended.reason === 'max-fires' && (next.maxFires === undefined || task.fires < next.maxFires)) return undefined;
  return ended;
}
