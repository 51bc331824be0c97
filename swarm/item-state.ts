// Swarm items as a union of states — one type per status, each with its own fields — and the one mutator that
// moves an item from state to state (the shape of gemini-cli's scheduler types and state manager). The runner owns
// the items and applies every change through `advanceItem`; a launcher only reports what happened (AttemptProgress).
import type { SwarmItemState } from '../orchestrator/events.js';
import type { ItemAttempt, ItemOutcome, ItemResult } from './report.js';

/** What an item is, fixed for the swarm's life. */
interface ItemTask {
  readonly item: string;
  /** The prompt of a new item (the template filled in); absent for a resumed subagent, which goes on with its own conversation. */
  readonly prompt?: string;
}

/** What the item's attempts so far left, carried from state to state (and saved). */
interface ItemWork {
  /** Its worker agent, once it has one (local swarms: a queue item's agents live on its worker). */
  readonly agentId?: string;
  /** Verify rounds with a verdict so far. */
  readonly rounds: number;
  /** The last round's verdict; for a fail, the verifier's reasons (what the worker is told to fix). */
  readonly verdict?: 'pass' | 'fail';
  readonly reasons?: string;
  /** The verifier of the round in progress or cut short (a stop, a rate limit, a crash): the round goes on with it. */
  readonly verifierId?: string;
  /** Queue swarms: jobs added for the item so far (the next job's id counts on from it). */
  readonly jobAttempts?: number;
  /** The attempt it is on (absent: 1): `murmur resume --retry` starts the next with a fresh agent. */
  readonly attempt?: number;
  /** How its earlier attempts ended (a retried item's), oldest first. */
  readonly attempts?: readonly ItemAttempt[];
}

/** Waiting for the controller to launch it: new, resumed, or restored from a saved swarm. */
export interface QueuedItem extends ItemTask, ItemWork {
  readonly status: 'queued';
  /** What its agent is told when it goes on: a resumed subagent's prompt, or rework after a failed verification. */
  readonly resumePrompt?: string;
  /** Queue swarms: the job that was out when the coordinator stopped; the next attempt collects it. */
  readonly jobId?: string;
}

/** An attempt runs: its agent works here (local) or its job is out (queue). */
export interface LaunchedItem extends ItemTask, ItemWork {
  readonly status: 'launched';
  /** Queue swarms: the attempt's job, kept until the item's result is recorded (a coordinator killed meanwhile collects it). */
  readonly jobId?: string;
}

/** A verify round runs, or the worker reworks what the round failed. */
export interface VerifyingItem extends ItemTask, ItemWork {
  readonly status: 'verifying';
  /** The round being verified (rounds + 1), or the round just judged while the worker reworks. */
  readonly round: number;
  readonly jobId?: string;
}

/** Back in the queue after a rate limit its agent could not get past; the controller relaunches it after a backoff. */
export interface RateLimitedItem extends ItemTask, ItemWork {
  readonly status: 'rate_limited';
}

/** Ended, with its result. */
export interface DoneItem extends ItemTask, ItemWork {
  readonly status: 'done';
  readonly result: ItemResult;
  /** Queue swarms: a job still out when the swarm stopped; a resume collects it. */
  readonly jobId?: string;
}

export type SwarmItem = QueuedItem | LaunchedItem | VerifyingItem | RateLimitedItem | DoneItem;
/** The states an attempt starts from. */
export type LaunchableItem = QueuedItem | RateLimitedItem;

/**
 * What a launcher reports while an attempt runs (progress, not a report: the run's report is RunReport or
 * SwarmReport); the runner applies it (and a launcher may, to its own copy).
 */
export type AttemptProgress =
  /** The item's worker agent started, or went on (a resumed subagent, a relaunch). */
  | { kind: 'launched'; agentId: string }
  /** Queue swarms: the attempt's job (reported before it is added, so a killed coordinator adds the same id again). */
  | { kind: 'job'; jobId: string; jobAttempts: number }
  /** A verify round begins. */
  | { kind: 'verifying'; round: number }
  /** The round's verifier was created. */
  | { kind: 'verifier'; verifierId: string }
  /** The round's verdict is in; after a fail the worker reworks (unless the rounds are used up). */
  | { kind: 'verdict'; round: number; verdict: 'pass' | 'fail'; reasons: string; verifierId: string }
  /** Queue swarms: a worker's word on its own copy of the item, with the event fields it sent. */
  | { kind: 'remote'; state: 'launched' | 'verifying'; extra: Record<string, unknown> };

/** Every change an item goes through: the launcher's reports and the ends the runner records. */
export type ItemChange =
  | AttemptProgress
  | { kind: 'rate_limited' }
  /** `jobId`: a queue job left out when the swarm stopped (kept for a resume). */
  | { kind: 'done'; result: ItemResult; jobId?: string }
  /** A completed item's agent's transcript could not be written to the end (found after it was done): it failed. */
  | { kind: 'record_lost'; reason: string };

/** A new item, or a resumed subagent (no prompt; `resumePrompt` tells it to go on). */
export function queuedItem(
  item: string,
  fields: { prompt?: string; agentId?: string; resumePrompt?: string } = {},
): QueuedItem {
  return { status: 'queued', item, rounds: 0, ...fields };
}

/** Items by index, as a swarm starts from them: an array, or new items made as they are read (newItems). */
export interface ItemList {
  readonly length: number;
  at(index: number): SwarmItem | undefined;
}

/** New items from their labels and prompts, each made when read: a million are not held as objects at once. */
export function newItems(labels: readonly string[], promptOf: (index: number) => string): ItemList {
  return {
    length: labels.length,
    at: (index) =>
      index >= 0 && index < labels.length ? queuedItem(labels[index]!, { prompt: promptOf(index) }) : undefined,
  };
}

function task(s: SwarmItem): ItemTask {
  return { item: s.item, prompt: s.prompt };
}

/** The work an item carries into its next state (absent fields stay undefined). */
function work(s: SwarmItem): ItemWork {
  const { agentId, rounds, verdict, reasons, verifierId, jobAttempts, attempt, attempts } = s;
  return { agentId, rounds, verdict, reasons, verifierId, jobAttempts, attempt, attempts };
}

/** A result with the attempt it is of and the item's earlier ones (a retried item's), as the report shows them. */
function withAttempts(result: ItemResult, s: SwarmItem): ItemResult {
  if (s.attempt === undefined && s.attempts === undefined) return result;
  const out: ItemResult = { ...result };
  if (s.attempt !== undefined) out.attempt = s.attempt;
  if (s.attempts !== undefined) out.attempts = [...s.attempts];
  return out;
}

function jobOf(s: SwarmItem): { jobId?: string } {
  return { jobId: s.status === 'rate_limited' ? undefined : s.jobId };
}

/** The result of an item that ended without its launcher's word (stopped, given up, lost to a bug): what it had. */
export function endedResult(
  index: number,
  s: SwarmItem,
  outcome: ItemOutcome,
  fields: { reason?: string; text?: string; notStarted?: boolean } = {},
): ItemResult {
  const result: ItemResult = { index, item: s.item, outcome, rounds: s.rounds, text: fields.text ?? '' };
  if (fields.reason !== undefined) result.reason = fields.reason;
  if (fields.notStarted) result.notStarted = true;
  if (s.agentId) result.agentId = s.agentId;
  return withAttempts(result, s);
}

/**
 * The one mutator: the item's next state after `change`. Pure; a done item never changes again, except that a
 * completed one whose record turned out incomplete fails (a resume runs it again).
 */
export function advanceItem(s: SwarmItem, change: ItemChange): SwarmItem {
  if (s.status === 'done') {
    if (change.kind !== 'record_lost' || s.result.outcome !== 'completed') return s;
    return { ...s, result: { ...s.result, outcome: 'failed', reason: change.reason } };
  }
  switch (change.kind) {
    case 'launched':
      return { status: 'launched', ...task(s), ...work(s), agentId: change.agentId, ...jobOf(s) };
    case 'job':
      return { status: 'launched', ...task(s), ...work(s), jobAttempts: change.jobAttempts, jobId: change.jobId };
    case 'verifying':
      return { status: 'verifying', ...task(s), ...work(s), round: change.round, ...jobOf(s) };
    case 'verifier':
      return {
        status: 'verifying',
        ...task(s),
        ...work(s),
        verifierId: change.verifierId,
        round: s.status === 'verifying' ? s.round : s.rounds + 1,
        ...jobOf(s),
      };
    case 'verdict': {
      const judged = {
        rounds: change.round,
        verdict: change.verdict,
        reasons: change.verdict === 'fail' ? change.reasons : undefined,
        verifierId: undefined,
      };
      return { status: 'verifying', ...task(s), ...work(s), ...judged, round: change.round, ...jobOf(s) };
    }
    case 'remote':
      if (change.state === 'launched') return { status: 'launched', ...task(s), ...work(s), ...jobOf(s) };
      return {
        status: 'verifying',
        ...task(s),
        ...work(s),
        round: typeof change.extra.rounds === 'number' ? change.extra.rounds : s.rounds + 1,
        ...jobOf(s),
      };
    case 'rate_limited':
      // A queue item's next launch is a new job (from the base commit): the limited job is done with.
      return { status: 'rate_limited', ...task(s), ...work(s) };
    case 'record_lost':
      return s;
    case 'done':
      return {
        status: 'done',
        ...task(s),
        ...work(s),
        rounds: change.result.rounds,
        verdict: change.result.verdict ?? s.verdict,
        result: withAttempts(change.result, s),
        jobId: change.jobId,
      };
  }
}

/** The `swarm.item` event a change shows as (its state and fields beyond the item's), if any. */
export function itemEvent(change: ItemChange): { state: SwarmItemState; extra: Record<string, unknown> } | undefined {
  switch (change.kind) {
    case 'launched':
      return { state: 'launched', extra: {} };
    case 'verifying':
      return { state: 'verifying', extra: { rounds: change.round } };
    case 'verdict': {
      // The event names the worker (whose row shows the verdict); the verifier rides along.
      const extra: Record<string, unknown> = {
        verdict: change.verdict,
        rounds: change.round,
        verifierId: change.verifierId,
      };
      if (change.verdict === 'fail' && change.reasons) extra.reason = change.reasons.slice(0, 300);
      return { state: 'verifying', extra };
    }
    case 'remote':
      return { state: change.state, extra: change.extra };
    case 'done': {
      const r = change.result;
      const extra: Record<string, unknown> = { rounds: r.rounds };
      if (r.verdict) extra.verdict = r.verdict;
      if (r.reason) extra.reason = r.notStarted ? 'not_started' : r.reason;
      if (r.host) extra.host = r.host;
      if (r.model) extra.model = r.model;
      if (r.attempts) extra.attempts = r.attempts;
      return { state: r.outcome, extra };
    }
    case 'record_lost':
      return { state: 'failed', extra: { reason: change.reason } };
    // A job is not news (its worker says when it starts); a rate limit is shown by the controller with its backoff.
    case 'job':
    case 'verifier':
    case 'rate_limited':
      return undefined;
  }
}

/** Whether the swarm's state is saved after a change: whenever what a resume needs changed. */
export function savedAfter(change: ItemChange): boolean {
  return (
    change.kind === 'launched' ||
    change.kind === 'job' ||
    change.kind === 'verifier' ||
    change.kind === 'verdict' ||
    change.kind === 'done' ||
    change.kind === 'record_lost'
  );
}
