// The reports as data: the objects `murmur run --json` and `murmur swarm --json` print, and the library returns.
import type { AgentSummary, RunOutcome } from '../orchestrator/engine.js';
import { addUsage, emptyUsage, type Usage } from '../orchestrator/types.js';
import type { Interruption } from '../protocol/interruptions.js';
import { reportJson, type ItemResult, type OutcomeCounts } from '../swarm/report.js';

/** The swarm report as text (`murmur swarm` without --json, `murmur report`, run_swarm's first block). */
export { renderReport, type ItemResult } from '../swarm/report.js';

/**
 * How a finished run ended: completed, or why not (`reason` says more); `waiting` when it stopped at calls that need
 * a person (its `interruptions`): a resume given the answers goes on there. An agent's end statuses (EndStatus).
 */
export type RunStatus = 'completed' | 'failed' | 'timeout' | 'aborted' | 'budget' | 'waiting';

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
  status: 'completed' | 'failed' | 'aborted' | 'waiting';
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

/** A finished run's main agent has ended: a status it can no longer have (running, idle, interrupted) is a failure. */
function endStatus(status: RunOutcome['status']): RunStatus {
  return status === 'running' || status === 'idle' || status === 'interrupted' ? 'failed' : status;
}

export function runReport(outcome: RunOutcome): RunReport {
  const report: RunReport = {
    kind: 'run',
    status: endStatus(outcome.status),
    result: outcome.result,
    usage: outcome.usage,
    agents: outcome.agents,
  };
  if (outcome.reason !== undefined) report.reason = outcome.reason;
  if (outcome.sessionId !== undefined) report.sessionId = outcome.sessionId;
  if (outcome.output !== undefined) report.output = outcome.output;
  if (outcome.interruptions && outcome.interruptions.length > 0) report.interruptions = outcome.interruptions;
  if (outcome.startedAt !== undefined) report.startedAt = outcome.startedAt;
  if (outcome.durationMs !== undefined) report.durationMs = outcome.durationMs;
  return report;
}

export function swarmReport(
  results: readonly ItemResult[],
  status: SwarmReport['status'],
  sessionId: string | undefined,
  reason?: string,
  past: Partial<Pick<RunOutcome, 'interruptions' | 'startedAt' | 'durationMs' | 'usage'>> = {},
): SwarmReport {
  const { interruptions, startedAt, durationMs, usage } = past;
  return {
    kind: 'swarm',
    ...reportJson(results),
    status,
    ...(reason !== undefined ? { reason } : {}),
    ...(sessionId ? { sessionId } : {}),
    ...(interruptions && interruptions.length > 0 ? { interruptions: [...interruptions] } : {}),
    ...(startedAt !== undefined ? { startedAt } : {}),
    ...(durationMs !== undefined ? { durationMs } : {}),
    ...(usage ? { usage } : {}),
  };
}

/**
 * Each row with what its agents used: its worker and the verifiers of its item (an agent of this session; a queue
 * swarm's remote agents are not). A row whose agents are not here has none.
 */
export function withItemUsage(results: readonly ItemResult[], agents: readonly AgentSummary[]): ItemResult[] {
  return results.map((row) => {
    // A queue item's row came with its worker's usage.
    if (row.usage) return row;
    const own = agents.filter(
      (a) => a.id === row.agentId || (a.role === 'verifier' && a.item === row.item && row.agentId !== undefined),
    );
    if (own.length === 0) return row;
    const usage = emptyUsage();
    for (const agent of own) addUsage(usage, agent.usage);
    return { ...row, usage };
  });
}
