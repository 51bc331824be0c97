// The reports as data: the objects `murmur run --json` and `murmur swarm --json` print, and the library returns.
import type { AgentSummary, RunOutcome } from '../orchestrator/engine.js';
import { addUsage, emptyUsage } from '../orchestrator/types.js';
import type { ItemResult, RunReport, SwarmReport } from '../protocol/reports.js';
import { reportJson } from '../swarm/report.js';

// The report types are protocol/'s (reports.ts), re-exported here so every existing importer keeps compiling.
export type { RunReport, RunStatus, SwarmReport } from '../protocol/reports.js';
/** The swarm report as text (`murmur swarm` without --json, `murmur report`, run_swarm's first block). */
export { renderReport, type ItemResult } from '../swarm/report.js';
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
  // Indexed once (agents in their order): a filter of every agent per row was quadratic, minutes at 50,000 items.
  const byId = new Map<string, number>();
  const verifiersOf = new Map<string, number[]>();
  agents.forEach((a, i) => {
    byId.set(a.id, i);
    if (a.role !== 'verifier' || a.item === undefined) return;
    const list = verifiersOf.get(a.item);
    if (list) list.push(i);
    else verifiersOf.set(a.item, [i]);
  });
  return results.map((row) => {
    // A queue item's row came with its worker's usage.
    if (row.usage || row.agentId === undefined) return row;
    const worker = byId.get(row.agentId);
    const indexes = new Set(verifiersOf.get(row.item) ?? []);
    if (worker !== undefined) indexes.add(worker);
    const own = [...indexes].sort((x, y) => x - y).map((i) => agents[i]!);
    if (own.length === 0) return row;
    const usage = emptyUsage();
    for (const agent of own) addUsage(usage, agent.usage);
    return { ...row, usage };
  });
}
