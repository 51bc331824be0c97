// The reports as data: the objects `murmur run --json` and `murmur swarm --json` print, and the library returns.
import type { AgentSummary, RunOutcome } from '../orchestrator/engine.js';
import type { Usage } from '../orchestrator/types.js';
import { reportJson, type ItemResult, type OutcomeCounts } from '../swarm/report.js';

/** The swarm report as text (`murmur swarm` without --json, `murmur report`, run_swarm's first block). */
export { renderReport, type ItemResult } from '../swarm/report.js';

/** How a finished run ended: completed, or why not (`reason` says more). An agent's end statuses (EndStatus). */
export type RunStatus = 'completed' | 'failed' | 'timeout' | 'aborted' | 'budget';

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
}

/** `O`: the type of each item's typed output; `I`: the type of the items given. */
export interface SwarmReport<O = unknown, I = unknown> {
  kind: 'swarm';
  /** completed when every item completed; aborted when the run was aborted; else failed. */
  status: 'completed' | 'failed' | 'aborted';
  /** How many items ended each way (completed, failed, conflict, aborted); an outcome no item had is absent. */
  summary: OutcomeCounts;
  /** The agents of items that did not complete, for a resume. */
  resumeAgentIds: string[];
  /** One row per item, in input order. */
  items: ItemResult<O, I>[];
  /** Why it was aborted (the caller's reason), and whether the session's records are incomplete (the first file that could not be written, and the error). */
  reason?: string;
  sessionId?: string;
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
  return report;
}

export function swarmReport(
  results: readonly ItemResult[],
  status: SwarmReport['status'],
  sessionId: string | undefined,
  reason?: string,
): SwarmReport {
  return {
    kind: 'swarm',
    ...reportJson(results),
    status,
    ...(reason !== undefined ? { reason } : {}),
    ...(sessionId ? { sessionId } : {}),
  };
}
