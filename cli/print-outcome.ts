// What a finished run prints on stdout: the main agent's answer (or one JSON object with --json), or a swarm's
// report (its JSON with --json). `murmur run`, `murmur swarm`, `murmur resume` and scheduled runs print the same.
// A swarm's report comes a piece at a time, its rows as they are read: a million-item report is never held whole.
import { boolFlag, type ParsedArgs } from './args.js';
import { reportOf, type Finished } from '../host/lifecycle.js';
import { reportLines, swarmReportChunks } from '../host/reports.js';

export function* printFinished(args: ParsedArgs, finished: Finished): Generator<string> {
  if (finished.kind === 'run') {
    if (boolFlag(args, 'json')) yield `${JSON.stringify(reportOf(finished))}\n`;
    else if (finished.outcome.result) yield `${finished.outcome.result}\n`;
    return;
  }
  const { results, status, outcome } = finished;
  const { sessionId } = outcome;
  if (boolFlag(args, 'json')) {
    yield* swarmReportChunks(results, status, sessionId, outcome.reason, outcome);
    yield '\n';
    return;
  }
  for (const line of reportLines(results, sessionId ? { resumeCommand: `murmur resume ${sessionId}` } : {}))
    yield `${line}\n`;
}

/** Writes the pieces in blocks of about 64 KB (one write each, not one per row). */
export function writeAll(out: NodeJS.WritableStream, pieces: Iterable<string>): void {
  let block = '';
  for (const piece of pieces) {
    block += piece;
    if (block.length >= 65_536) {
      out.write(block);
      block = '';
    }
  }
  if (block.length > 0) out.write(block);
}
