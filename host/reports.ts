// The reports as data: the objects `murmur run --json` and `murmur swarm --json` print, and the library returns.
import type { AgentSummary, RunOutcome } from '../orchestrator/engine.js';
import type { Usage } from '../orchestrator/types.js';
import { reportJson, type ItemResult } from '../swarm/report.js';

/** The swarm report as text (`murmur swarm` without --json, `murmur report`, run_swarm's first block). */
export { renderReport, type ItemResult } from '../swarm/report.js';

/** `O`: the type of a typed output's answer (`Static<typeof schema>` in the library). */
export interface RunReport<O = unknown> {
  /** completed, or why not (failed, aborted, timeout, interrupted…); `reason` says more. */
  status: RunOutcome['status'];
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
  /** completed when every item completed; aborted when the run was aborted; else failed. */
  status: 'completed' | 'failed' | 'aborted';
  /** How many items ended each way (completed, failed, conflict, aborted). */
  summary: Record<string, number>;
  /** The agents of items that did not complete, for a resume. */
  resumeAgentIds: string[];
  /** One row per item, in input order. */
  items: ItemResult<O, I>[];
  /** Set when the session's records are incomplete: the first file that could not be written, and the error. */
  reason?: string;
  sessionId?: string;
}

export function runReport(outcome: RunOutcome): RunReport {
  const report: RunReport = {
    status: outcome.status,
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
    ...reportJson(results),
    status,
    ...(reason !== undefined ? { reason } : {}),
    ...(sessionId ? { sessionId } : {}),
  };
}
