// Running chosen items of an ended swarm session again (`murmur resume ID --retry ITEM… | --retry-failed`, and the
// console's Retry): each chosen item gets a fresh agent on its next attempt, every other item stays as it ended,
// and the item's earlier attempts ride along to its report row. Pure: it checks the choice against the saved swarm
// and returns the Resumable to run (the lifecycle resumes it like any other); nothing on disk changes here — the
// resumed run's first save records the new attempts.
import { join } from 'node:path';
import type { Resumable } from './resume.js';
import { serviceHolder } from './lock.js';
import { describeHolder, SESSION_LOCK_FILE } from './session-lock.js';
import type { SavedSwarm, SwarmItemRecord } from '../swarm/saved-swarm.js';
import type { ItemAttempt, ItemOutcome } from '../protocol/reports.js';

/** What to run again: items by label, or every item that ended badly. */
export type RetryChoice = { items: readonly string[] } | { failed: true };

/** An item a retry may run again: it ended, and not completed with a passing verdict; how its last attempt ended. */
export type RetryCandidate = ItemAttempt & { item: string };

export type PlannedRetry = { ok: true; resumable: Resumable; labels: string[] } | { ok: false; error: string };

/** The outcomes `--retry-failed` runs again (with a completed item whose verifier failed it). */
const BAD_OUTCOMES: readonly ItemOutcome[] = ['failed', 'conflict', 'aborted'];

function endedBadly(record: SwarmItemRecord): boolean {
  const result = record.result;
  return result !== undefined && (BAD_OUTCOMES.includes(result.outcome) || result.verdict === 'fail');
}

/** How an ended item's attempt ended (1 for an item that ran once): a candidate's facts, an earlier attempt's record. */
function endedAttempt(record: SwarmItemRecord): ItemAttempt {
  const result = record.result!;
  const ended: ItemAttempt = { attempt: record.attempt ?? 1, outcome: result.outcome };
  if (result.verdict !== undefined) ended.verdict = result.verdict;
  if (result.reason !== undefined) ended.reason = result.reason;
  if (result.agentId !== undefined) ended.agentId = result.agentId;
  return ended;
}

/** The items of a saved swarm that a retry may run again, in item order. */
export function retryCandidates(swarm: SavedSwarm): RetryCandidate[] {
  return swarm.items.filter(endedBadly).map((record) => ({ item: record.item, ...endedAttempt(record) }));
}

/** Why the session cannot be retried now: a process still runs it (a retry reopens a session that ended). */
export function stillRunning(resumable: Resumable): string | undefined {
  const holder = serviceHolder(join(resumable.session.dir, SESSION_LOCK_FILE));
  if (!holder) return undefined;
  return `session ${resumable.session.id} is still running (${describeHolder(holder)}); retry its items once it has ended, or stop it first`;
}

/** A few labels to name in an error, with how many more there are. */
function someLabels(labels: readonly string[], max = 5): string {
  const shown = labels.slice(0, max).map((l) => JSON.stringify(l));
  return labels.length > max ? `${shown.join(', ')} and ${labels.length - max} more` : shown.join(', ');
}

/** The record an item starts its next attempt from: its task, no agent, no verdict, its past kept. */
export function reopenedRecord(record: SwarmItemRecord): SwarmItemRecord {
  const past = endedAttempt(record);
  const reopened: SwarmItemRecord = {
    item: record.item,
    rounds: 0,
    attempt: past.attempt + 1,
    attempts: [...(record.attempts ?? []), past],
  };
  if (record.prompt !== undefined) reopened.prompt = record.prompt;
  return reopened;
}

/** Which item indices the choice names, or what is wrong with it (in words naming the bad value). */
function chosenIndices(swarm: SavedSwarm, choice: RetryChoice, id: string): number[] | string {
  if ('failed' in choice) {
    const bad = swarm.items.flatMap((r, i) => (endedBadly(r) ? [i] : []));
    if (bad.length > 0) return bad;
    return `session ${id} has no item that failed, conflicted, was aborted or failed its verification: nothing to retry`;
  }
  if (choice.items.length === 0) return 'name the items to retry (their labels), or retry every failed one';
  const indices: number[] = [];
  const labels = swarm.items.map((r) => r.item);
  for (const label of new Set(choice.items)) {
    const found = swarm.items.flatMap((r, i) => (r.item === label ? [i] : []));
    if (found.length === 0) {
      const failed = retryCandidates(swarm).map((c) => c.item);
      const hint =
        failed.length > 0 ? `items that can be retried: ${someLabels(failed)}` : `its items: ${someLabels(labels)}`;
      return `session ${id} has no item ${JSON.stringify(label)}; ${hint}`;
    }
    for (const index of found) {
      const record = swarm.items[index]!;
      if (record.result === undefined)
        return `item ${JSON.stringify(label)} of session ${id} has not ended (it never finished): a plain murmur resume ${id} finishes it`;
      if (!endedBadly(record))
        return `item ${JSON.stringify(label)} of session ${id} completed (attempt ${record.attempt ?? 1}); only items that failed, conflicted, were aborted or failed their verification can be retried`;
      indices.push(index);
    }
  }
  return indices;
}

/**
 * The resume that retries `choice` in session `resumable` (opened by openResumable), or why it cannot: not a swarm,
 * a queue swarm, an item the swarm does not have or that completed, nothing that failed.
 */
export function planRetry(resumable: Resumable, choice: RetryChoice): PlannedRetry {
  const id = resumable.session.id;
  const swarm = resumable.swarm;
  if (!swarm) return { ok: false, error: `session ${id} ran a task, not a swarm: only a swarm's items can be retried` };
  if (swarm.queue)
    return {
      ok: false,
      error: `session ${id} ran its items on a Redis queue: retrying items works for local swarms only (a plain murmur resume ${id} continues it)`,
    };
  const chosen = chosenIndices(swarm, choice, id);
  if (typeof chosen === 'string') return { ok: false, error: chosen };
  const unprompted = chosen.find((i) => swarm.items[i]!.prompt === undefined);
  if (unprompted !== undefined)
    return {
      ok: false,
      error: `item ${JSON.stringify(swarm.items[unprompted]!.item)} continued an earlier subagent and has no prompt of its own to start a fresh agent with`,
    };
  const reopen = new Set(chosen);
  const items = swarm.items.map((record, i) => (reopen.has(i) ? reopenedRecord(record) : record));
  const labels = [...new Set(chosen.map((i) => swarm.items[i]!.item))];
  return { ok: true, labels, resumable: { ...resumable, swarm: { ...swarm, items }, retrying: labels } };
}
