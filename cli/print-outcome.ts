// What a finished run prints on stdout: the main agent's answer (or one JSON object with --json), or a swarm's
// report (its JSON with --json). `murmur run`, `murmur swarm`, `murmur resume` and scheduled runs print the same.
import { boolFlag, type ParsedArgs } from './args.js';
import type { RunOutcome } from '../orchestrator/engine.js';
import type { Finished } from '../host/lifecycle.js';
import { renderReport, runReport, swarmReport } from '../host/reports.js';

export function printOutcome(args: ParsedArgs, outcome: RunOutcome): string {
  if (boolFlag(args, 'json')) return `${JSON.stringify(runReport(outcome))}\n`;
  return outcome.result ? `${outcome.result}\n` : '';
}

export function printFinished(args: ParsedArgs, finished: Finished): string {
  if (finished.kind === 'run') return printOutcome(args, finished.outcome);
  const { results, status, outcome } = finished;
  if (boolFlag(args, 'json'))
    return `${JSON.stringify(swarmReport(results, status, outcome.sessionId, outcome.reason))}\n`;
  return `${renderReport(results, outcome.sessionId ? { resumeCommand: `murmur resume ${outcome.sessionId}` } : {})}\n`;
}
