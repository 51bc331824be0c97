// The swarm as saved with its session (the session state's `swarm`, read back by `murmur resume`): one flat record
// per item, the shape every saved session since format v1 holds; the runner's item states map onto it and back.
import type { SwarmItem } from './item-state.js';
import type { ItemAttempt, ItemResult } from './report.js';
import { reworkPrompt } from './verify.js';

/** One item as saved: its state's fields, flat (the status follows from them: a result means done). */
export interface SwarmItemRecord {
  item: string;
  /** The prompt of a new item; absent for a resumed subagent. */
  prompt?: string;
  /** The prompt to continue a resumed subagent with. */
  resumePrompt?: string;
  agentId?: string;
  rounds: number;
  verdict?: 'pass' | 'fail';
  /** The last verifier's reasons for a fail: what its worker is told to fix. */
  reasons?: string;
  /** The verifier of the round in progress, so a round cut short (a rate limit, a crash) goes on with it. */
  verifierId?: string;
  /** Queue swarms: the job of the attempt in flight (a resumed coordinator collects it), and attempts so far. */
  jobId?: string;
  jobAttempts?: number;
  /** The attempt it is on (absent: 1), and how the earlier ones ended (see ItemWork). */
  attempt?: number;
  attempts?: ItemAttempt[];
  /** Set once the item has ended. */
  result?: ItemResult;
}

export interface SavedSwarm {
  swarmId: string;
  description: string;
  template?: string;
  role: string;
  verify: boolean;
  maxRounds: number;
  isolation: 'none' | 'worktree';
  /** The cap the swarm ran with, so a resume keeps it. */
  maxConcurrency?: number;
  items: SwarmItemRecord[];
  /** Queue swarms: where the items went and what they started from, so `murmur resume` reattaches. */
  queue?: SavedQueue;
  /** The items as given to the library (objects), by index: the report's `input`. */
  inputs?: unknown[];
}

/**
 * The swarm as a live run saves it (every reader lists its queued items again, see orchestrator/queued-items.ts): an ended item whose record the session's settled log holds is `null` (as a
 * version-3 snapshot writes it), read back from the log by whoever needs it whole.
 */
export type SavingSwarm = Omit<SavedSwarm, 'items'> & {
  items: (SwarmItemRecord | null)[];
  /**
   * Version 4: the items from `items.length` on never moved since they were queued, and this file of the session
   * holds them (one record a line, line i for item i, of `count` items in all). Readers list them again.
   */
  queuedItems?: { file: string; count: number };
};

/** A queue swarm's saved coordinates: never the URL itself (it may hold a password). */
export interface SavedQueue {
  name: string;
  /** The queue's URL when it holds no password; otherwise the resume needs --queue or MURMUR_QUEUE again. */
  url?: string;
  base: string;
  subdir: string;
  model: string;
}

/** An item's state as saved. */
export function itemRecord(s: SwarmItem): SwarmItemRecord {
  const record: SwarmItemRecord = {
    item: s.item,
    ...(s.prompt !== undefined ? { prompt: s.prompt } : {}),
    rounds: s.rounds,
  };
  if (s.status === 'queued' && s.resumePrompt !== undefined) record.resumePrompt = s.resumePrompt;
  if (s.agentId !== undefined) record.agentId = s.agentId;
  if (s.verdict !== undefined) record.verdict = s.verdict;
  if (s.reasons !== undefined) record.reasons = s.reasons;
  if (s.verifierId !== undefined) record.verifierId = s.verifierId;
  if (s.status !== 'rate_limited' && s.jobId !== undefined) record.jobId = s.jobId;
  if (s.jobAttempts !== undefined) record.jobAttempts = s.jobAttempts;
  if (s.attempt !== undefined) record.attempt = s.attempt;
  if (s.attempts !== undefined) record.attempts = [...s.attempts];
  if (s.status === 'done') record.result = s.result;
  return record;
}

/**
 * A saved item as the state a resume starts from. Completed items never run again, and a conflict keeps its
 * branch for the user: both stay done. Every other item is queued again: it continues its agent from the
 * transcript (or starts, if it never did), collects its job if one is out, and goes on with the verify round
 * its verifier had begun. An item that used up its verify rounds on fails goes on with the last verifier's
 * reasons, then fresh rounds (as it stands, a resume would only repeat the verdict). `keepEnded` (a retry,
 * host/retry.ts): every item that ended stays done as it ended; only the items the retry reopened run.
 */
export function restoredItem(
  record: SwarmItemRecord,
  verify: boolean,
  maxRounds: number,
  keepEnded = false,
): SwarmItem {
  const { result, resumePrompt, ...kept } = record;
  if (result && (keepEnded || result.outcome === 'completed' || result.outcome === 'conflict'))
    return { ...kept, status: 'done', result };
  const queued = { ...kept, status: 'queued' as const, ...(resumePrompt !== undefined ? { resumePrompt } : {}) };
  if (!verify || record.verdict !== 'fail' || record.rounds < maxRounds || record.agentId === undefined) return queued;
  const { verdict: _verdict, reasons, ...rest } = queued;
  // A state saved before the reasons were kept has them (cut short) in the failure's reason.
  return { ...rest, rounds: 0, resumePrompt: reworkPrompt(reasons ?? result?.reason ?? '', record.rounds) };
}
