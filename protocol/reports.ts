// The reports as data: the objects `murmur run --json` and `murmur swarm --json` print, and the library returns — a
// run's, a swarm's, and a swarm's rows. Types only: host/reports.ts makes the reports, swarm/report.ts the rows and
// their text.
import type { RunStatus, SwarmStatus } from './run-status.js';
import type { AgentSummary } from './agents.js';
import type { Interruption } from './interruptions.js';
import type { Usage } from './usage.js';

/** `waiting`: its agent stopped at a call that needs a person; a resume given the answer goes on there. */
export type ItemOutcome = 'completed' | 'failed' | 'aborted' | 'conflict' | 'waiting';

/** An earlier attempt of an item run again (`murmur resume --retry`): how it ended, kept light. */
export interface ItemAttempt {
  attempt: number;
  outcome: ItemOutcome;
  verdict?: 'pass' | 'fail';
  reason?: string;
  /** Its worker agent (its transcript stays in the session). */
  agentId?: string;
}

/**
 * A swarm's rows in index order, read as they are iterated (a big swarm's ended items are on disk, not in memory);
 * an array is one.
 */
export interface ItemResults<O = unknown, I = unknown> extends Iterable<ItemResult<O, I>> {
  readonly length: number;
  /** How the rows ended, when known without reading them (a swarm counts its items as they move). */
  readonly counts?: OutcomeCounts;
}

/** One item's row; `O` is a typed output's type, `I` the type of the items given to the library. */
export interface ItemResult<O = unknown, I = unknown> {
  index: number;
  item: string;
  agentId?: string;
  outcome: ItemOutcome;
  verdict?: 'pass' | 'fail';
  rounds: number;
  text: string;
  reason?: string;
  /** The branch kept for a worktree conflict, or for an item that did not complete (a resume goes on from it). */
  branch?: string;
  /** The worktree kept for an item that did not complete while it holds changes. */
  worktree?: string;
  /** An aborted item that never started. */
  notStarted?: boolean;
  /** Queue swarms: the worker machine that ran the item, and the model it ran on. */
  host?: string;
  model?: string;
  /** Queue swarms: the item's diff that did not apply to the working tree, kept in the session's folder. */
  patch?: string;
  /** Typed outputs: the worker's final answer, checked against the output schema. */
  output?: O;
  /** The item as given to the library (an object item; `item` is its label). */
  input?: I;
  /** The attempt this row is of: absent for the first; 2 and on after `murmur resume --retry`. */
  attempt?: number;
  /** A retried item's earlier attempts, oldest first (absent when it ran once). */
  attempts?: ItemAttempt[];
  /** What its agents used (the worker and its verifiers, in this session; with `cost` when the model's price is known). */
  usage?: Usage;
}

/** How many items ended each way; an outcome no item had is absent. */
export type OutcomeCounts = Partial<Record<ItemOutcome, number>>;

/** `O`: the type of a typed output's answer (`Static<typeof schema>` in the library). */
export interface RunReport<O = unknown> {
  kind: 'run';
  /** completed, or why not: failed, aborted (by the caller: `reason` is theirs), timeout, budget. */
  status: RunStatus;
  /** The main agent's last answer. */
  result: string;
  reason?: string;
  usage: Usage;
  agents: AgentSummary[];
  /** The session on disk (absent when sessions are off): `murmur resume ID` or `resume(ID)` continues it. */
  sessionId?: string;
  /** With a typed output (`output` / `--output-schema`): the main agent's final answer, checked against the schema. */
  output?: O;
  /** The calls that wait for a person (status `waiting`, or kept by an abort): answer them with a resume. */
  interruptions?: Interruption[];
  /** When the session began (epoch ms) and how long its runs took in all (ms), across resumes. */
  startedAt?: number;
  durationMs?: number;
}

/** `O`: the type of each item's typed output; `I`: the type of the items given. */
export interface SwarmReport<O = unknown, I = unknown> {
  kind: 'swarm';
  /** completed when every item completed; aborted when the run was aborted; waiting when items wait for a person; else failed. */
  status: SwarmStatus;
  /** How many items ended each way (completed, failed, conflict, aborted); an outcome no item had is absent. */
  summary: OutcomeCounts;
  /** The agents of items that did not complete, for a resume. */
  resumeAgentIds: string[];
  /** One row per item, in input order. */
  items: ItemResult<O, I>[];
  /** Why it was aborted (the caller's reason), and whether the session's records are incomplete (the first file that could not be written, and the error). */
  reason?: string;
  sessionId?: string;
  /** The calls that wait for a person (each waiting item's): answer them with a resume. */
  interruptions?: Interruption[];
  /** When the session began (epoch ms) and how long its runs took in all (ms), across resumes. */
  startedAt?: number;
  durationMs?: number;
  /** What the swarm's agents used in all, with `cost` when the model's price is known (queue swarms: this machine's). */
  usage?: Usage;
}

export type { RunStatus, SwarmStatus };
