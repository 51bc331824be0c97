// A launcher's steps after an attempt, as the runner takes them: a step that fails never loses the item's result
// nor hangs the swarm.
import type { Attempt, ItemLauncher } from './item-launcher.js';

/** An attempt that ended done, on its way to the item's result (its work kept, its commit made). */
export type Ended = Extract<Attempt, { kind: 'done' }>;

/** What an item that did not complete leaves is kept; a failure here never loses the result. */
export async function keepWork(launcher: ItemLauncher, index: number, ended: Ended): Promise<Ended> {
  try {
    return { ...ended, result: await launcher.keep(index, ended.result) };
  } catch {
    return ended;
  }
}

/** The launcher's last step for an ended item; a failure there fails the item instead of hanging the swarm. */
export async function commitEnded(launcher: ItemLauncher, index: number, ended: Ended): Promise<Ended> {
  try {
    return { ...ended, result: (await launcher.commit?.(index, ended.result)) ?? ended.result };
  } catch (error) {
    return {
      ...ended,
      result: {
        ...ended.result,
        outcome: 'failed',
        reason: `internal error while taking in its changes: ${error instanceof Error ? error.message : String(error)}`,
      },
    };
  }
}
