// The swarm's report: an XML-like envelope for the model (rows in input order, everything escaped so no
// result text can break it) and the same as JSON for `murmur swarm --json`.

// The row and count types are protocol/'s (reports.ts), re-exported here so every existing importer keeps compiling.
import type { ItemOutcome, ItemResult, ItemResults, OutcomeCounts } from '../protocol/reports.js';

export type { ItemAttempt, ItemOutcome, ItemResult, ItemResults, OutcomeCounts } from '../protocol/reports.js';

const OUTCOME_ORDER: readonly ItemOutcome[] = ['completed', 'failed', 'conflict', 'waiting', 'aborted'];

export function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttribute(text: string): string {
  return escapeText(text)
    .replace(/"/g, '&quot;')
    .replace(/\r\n|\r|\n/g, '&#10;');
}

/** Each row as `change` makes it, as the rows are read (nothing is held). */
export function mapResults(results: ItemResults, change: (row: ItemResult) => ItemResult): ItemResults {
  return {
    length: results.length,
    get counts() {
      return results.counts;
    },
    *[Symbol.iterator]() {
      for (const row of results) yield change(row);
    },
  };
}

/** Whether any row ended `outcome`. */
export function anyEnded(results: Iterable<ItemResult>, outcome: ItemOutcome): boolean {
  for (const r of results) if (r.outcome === outcome) return true;
  return false;
}

/** Rows in index order: a given array is sorted (a copy); a swarm's own results already are (read as iterated). */
export function inIndexOrder(results: ItemResults): Iterable<ItemResult> {
  return Array.isArray(results) ? [...(results as ItemResult[])].sort((a, b) => a.index - b.index) : results;
}

/** What the report's head says of the rows, from one pass over them (none when they are known to have completed). */
function headOf(rows: Iterable<ItemResult>) {
  const known = (rows as ItemResults).counts;
  if (known && Object.keys(known).every((outcome) => outcome === 'completed'))
    return { counts: { ...known }, resumable: [] as string[], notStarted: 0, isolated: false };
  const seen = new Map<ItemOutcome, number>();
  const resumable: string[] = [];
  let notStarted = 0;
  let isolated = false;
  for (const r of rows) {
    seen.set(r.outcome, (seen.get(r.outcome) ?? 0) + 1);
    if (r.outcome !== 'completed' && r.outcome !== 'conflict' && r.agentId !== undefined) resumable.push(r.agentId);
    if (r.notStarted) notStarted++;
    // Subagents in worktrees go on there only with isolation again (their branch says they are in one).
    if (r.branch !== undefined && r.outcome !== 'conflict' && r.agentId !== undefined) isolated = true;
  }
  const counts: OutcomeCounts = {};
  for (const outcome of OUTCOME_ORDER) if (seen.has(outcome)) counts[outcome] = seen.get(outcome)!;
  return { counts, resumable, notStarted, isolated };
}

/**
 * `resumeCommand` replaces the hint for a model (resume_agent_ids) by a command for a person, for reports printed
 * by `murmur swarm`.
 */
export function renderReport(results: ItemResults, options: { resumeCommand?: string } = {}): string {
  return [...reportLines(results, options)].join('\n');
}

/** The report a line at a time (a big swarm's is written out as it is read, never held whole). */
export function* reportLines(results: ItemResults, options: { resumeCommand?: string } = {}): Generator<string> {
  const sorted = inIndexOrder(results);
  const { counts, resumable, notStarted, isolated } = headOf(sorted);
  yield '<agent_swarm_result>';
  yield `<summary>${Object.entries(counts)
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ')}</summary>`;
  if ((resumable.length > 0 || notStarted > 0) && options.resumeCommand !== undefined) {
    yield `<resume_hint>${escapeText(`run ${options.resumeCommand} to finish the items that did not complete (completed items never run again)`)}</resume_hint>`;
  } else if (resumable.length > 0 || notStarted > 0) {
    const parts: string[] = [];
    if (resumable.length > 0) {
      parts.push(
        `continue the unfinished subagents with their context: call agent_swarm with resume_agent_ids ${JSON.stringify(resumable)}${isolated ? ' and isolation "worktree"' : ''} (and an optional resume_prompt)`,
      );
    }
    if (notStarted > 0) parts.push(`${notStarted} item(s) never started: include them again as items`);
    yield `<resume_hint>${escapeText(parts.join('; '))}</resume_hint>`;
  }
  for (const r of sorted) {
    const attributes = [
      ...(r.agentId !== undefined ? [`agent_id="${escapeAttribute(r.agentId)}"`] : []),
      `item="${escapeAttribute(r.item)}"`,
      `outcome="${r.outcome}"`,
      ...(r.notStarted ? ['state="not_started"'] : []),
      ...(r.verdict !== undefined ? [`verdict="${r.verdict}"`] : []),
      `rounds="${r.rounds}"`,
      ...(r.branch !== undefined ? [`branch="${escapeAttribute(r.branch)}"`] : []),
      ...(r.worktree !== undefined ? [`worktree="${escapeAttribute(r.worktree)}"`] : []),
      ...(r.patch !== undefined ? [`patch="${escapeAttribute(r.patch)}"`] : []),
      ...(r.host !== undefined ? [`host="${escapeAttribute(r.host)}"`] : []),
      ...(r.model !== undefined ? [`model="${escapeAttribute(r.model)}"`] : []),
      ...(r.reason !== undefined ? [`reason="${escapeAttribute(r.reason)}"`] : []),
      ...(r.attempt !== undefined ? [`attempt="${r.attempt}"`] : []),
    ];
    yield `<subagent ${attributes.join(' ')}>${escapeText(r.text)}</subagent>`;
    // A retried item's earlier attempts follow its row, oldest first.
    for (const a of r.attempts ?? []) {
      const past = [
        `item="${escapeAttribute(r.item)}"`,
        `attempt="${a.attempt}"`,
        `outcome="${a.outcome}"`,
        ...(a.verdict !== undefined ? [`verdict="${a.verdict}"`] : []),
        ...(a.agentId !== undefined ? [`agent_id="${escapeAttribute(a.agentId)}"`] : []),
        ...(a.reason !== undefined ? [`reason="${escapeAttribute(a.reason)}"`] : []),
      ];
      yield `<earlier_attempt ${past.join(' ')}/>`;
    }
  }
  yield '</agent_swarm_result>';
}

export function reportJson(results: ItemResults): {
  summary: OutcomeCounts;
  resumeAgentIds: string[];
  items: ItemResult[];
} {
  const items = [...inIndexOrder(results)];
  return { ...reportHead(items), items };
}

/** The JSON report's counts and the agents a resume goes on with, from one pass over the rows. */
export function reportHead(rows: Iterable<ItemResult>): { summary: OutcomeCounts; resumeAgentIds: string[] } {
  const { counts, resumable } = headOf(rows);
  return { summary: counts, resumeAgentIds: resumable };
}
