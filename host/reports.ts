// The reports as data: the objects `murmur run --json` and `murmur swarm --json` print, and the library returns.
import type { RunOutcome } from '../orchestrator/engine.js';
import { addUsage, emptyUsage, type Usage } from '../orchestrator/types.js';
import type { ItemResults, RunReport, SwarmReport } from '../protocol/reports.js';
import { inIndexOrder, mapResults, reportHead, reportJson } from '../swarm/report.js';

// The report types are protocol/'s (reports.ts), re-exported here so every existing importer keeps compiling.
export type { RunReport, RunStatus, SwarmReport } from '../protocol/reports.js';
/** The swarm report as text (`murmur swarm` without --json, `murmur report`, run_swarm's first block). */
export { anyEnded, renderReport, reportLines, type ItemResult, type ItemResults } from '../swarm/report.js';
/** How long a session's segments ran in all: a report's `durationMs`, read back from its saved state (`murmur report`). */
export { segmentsMs } from '../orchestrator/run-segments.js';

export function runReport(outcome: RunOutcome): RunReport {
  const report: RunReport = {
    kind: 'run',
    status: outcome.status,
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

type Past = Partial<Pick<RunOutcome, 'interruptions' | 'startedAt' | 'durationMs' | 'usage'>>;

export function swarmReport(
  results: ItemResults,
  status: SwarmReport['status'],
  sessionId: string | undefined,
  reason?: string,
  past: Past = {},
): SwarmReport {
  return reportAround(reportJson(results), status, sessionId, reason, past);
}

/**
 * The swarm report's JSON a piece at a time, the same text as `JSON.stringify(swarmReport(…))`: its rows are
 * written as they are read (a big swarm's come from its session), never held whole.
 */
export function* swarmReportChunks(
  results: ItemResults,
  status: SwarmReport['status'],
  sessionId: string | undefined,
  reason?: string,
  past: Past = {},
): Generator<string> {
  const rows = inIndexOrder(results);
  const { summary, resumeAgentIds } = reportHead(rows);
  const text = JSON.stringify(reportAround({ summary, resumeAgentIds, items: [] }, status, sessionId, reason, past));
  // No string in the report can hold this (its quotes would be escaped): it is the place of the rows.
  const at = text.indexOf('"items":[]') + '"items":['.length;
  yield text.slice(0, at);
  let first = true;
  for (const row of rows) {
    yield first ? JSON.stringify(row) : `,${JSON.stringify(row)}`;
    first = false;
  }
  yield text.slice(at);
}

function reportAround(
  head: Pick<SwarmReport, 'summary' | 'resumeAgentIds' | 'items'>,
  status: SwarmReport['status'],
  sessionId: string | undefined,
  reason: string | undefined,
  { interruptions, startedAt, durationMs, usage }: Past,
): SwarmReport {
  return {
    kind: 'swarm',
    ...head,
    status,
    ...(reason !== undefined ? { reason } : {}),
    ...(sessionId ? { sessionId } : {}),
    ...(interruptions && interruptions.length > 0 ? { interruptions: [...interruptions] } : {}),
    ...(startedAt !== undefined ? { startedAt } : {}),
    ...(durationMs !== undefined ? { durationMs } : {}),
    ...(usage ? { usage } : {}),
  };
}

interface AgentUsage {
  id: string;
  role: string;
  item?: string | undefined;
  usage: Usage;
}

/** What withItemUsage reads of the run's agents (the agent directory, or a saved list): nothing is copied. */
export interface AgentUsages {
  usageOf(agentId: string): Usage | undefined;
  usages(): Iterable<AgentUsage>;
}

/** A saved list of agents as AgentUsages. */
export function usagesOfList(agents: readonly AgentUsage[]): AgentUsages {
  const byId = new Map(agents.map((a) => [a.id, a.usage]));
  return { usageOf: (id) => byId.get(id), usages: () => agents };
}

/**
 * Each row with what its agents used: its worker and the verifiers of its item (an agent of this session; a queue
 * swarm's remote agents are not). A row whose agents are not here has none. Rows are made as they are read.
 */
export function withItemUsage(results: ItemResults, agents: AgentUsages): ItemResults {
  // Verifiers by item, indexed once (a filter of every agent per row was quadratic, minutes at 50,000 items).
  const verifiersOf = new Map<string, AgentUsage[]>();
  for (const a of agents.usages()) {
    if (a.role !== 'verifier' || a.item === undefined) continue;
    const list = verifiersOf.get(a.item);
    if (list) list.push(a);
    else verifiersOf.set(a.item, [a]);
  }
  return mapResults(results, (row) => {
    // A queue item's row came with its worker's usage.
    if (row.usage || row.agentId === undefined) return row;
    const worker = agents.usageOf(row.agentId);
    const verifiers = (verifiersOf.get(row.item) ?? []).filter((v) => v.id !== row.agentId).map((v) => v.usage);
    const own = [...(worker ? [worker] : []), ...verifiers];
    if (own.length === 0) return row;
    const usage = emptyUsage();
    for (const spent of own) addUsage(usage, spent);
    return { ...row, usage };
  });
}
