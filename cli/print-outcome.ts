// What a finished run prints on stdout: the main agent's answer (or one JSON object with --json), or a swarm's
// report (its JSON with --json). `murmur run`, `murmur swarm`, `murmur resume` and scheduled runs print the same.
import { boolFlag, type ParsedArgs } from './args.js';
import { reportOf, type Finished } from '../host/lifecycle.js';
import { renderReport } from '../host/reports.js';

export function printFinished(args: ParsedArgs, finished: Finished): string {
  if (boolFlag(args, 'json')) return `${JSON.stringify(reportOf(finished))}\n`;
  if (finished.kind === 'run') return finished.outcome.result ? `${finished.outcome.result}\n` : '';
  const { sessionId } = finished.outcome;
  return `${renderReport(finished.results, sessionId ? { resumeCommand: `murmur resume ${sessionId}` } : {})}\n`;
}
