// The swarm's report: an XML-like envelope for the model (rows in input order, everything escaped so no
// result text can break it) and the same as JSON for `murmur swarm --json`.

// The row and count types are protocol/'s (reports.ts), re-exported here so every existing importer keeps compiling.
import type { ItemOutcome, ItemResult, OutcomeCounts } from '../protocol/reports.js';

export type { ItemAttempt, ItemOutcome, ItemResult, OutcomeCounts } from '../protocol/reports.js';

const OUTCOME_ORDER: readonly ItemOutcome[] = ['completed', 'failed', 'conflict', 'waiting', 'aborted'];

export function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttribute(text: string): string {
  return escapeText(text)
    .replace(/"/g, '&quot;')
    .replace(/\r\n|\r|\n/g, '&#10;');
}

export function countOutcomes(results: readonly ItemResult[]): OutcomeCounts {
  const counts: OutcomeCounts = {};
  for (const outcome of OUTCOME_ORDER) {
    const n = results.filter((r) => r.outcome === outcome).length;
    if (n > 0) counts[outcome] = n;
  }
  return counts;
}

export function resumableIds(results: readonly ItemResult[]): string[] {
  return results
    .filter((r) => r.outcome !== 'completed' && r.outcome !== 'conflict' && r.agentId !== undefined)
    .map((r) => r.agentId!);
}

/**
 * `resumeCommand` replaces the hint for a model (resume_agent_ids) by a command for a person, for reports printed
 * by `murmur swarm`.
 */
export function renderReport(results: readonly ItemResult[], options: { resumeCommand?: string } = {}): string {
  const sorted = [...results].sort((a, b) => a.index - b.index);
  const counts = countOutcomes(sorted);
  const lines = [
    '<agent_swarm_result>',
    `<summary>${Object.entries(counts)
      .map(([k, n]) => `${k}: ${n}`)
      .join(', ')}</summary>`,
  ];
  const resumable = resumableIds(sorted);
  const notStarted = sorted.filter((r) => r.notStarted).length;
  if ((resumable.length > 0 || notStarted > 0) && options.resumeCommand !== undefined) {
    lines.push(
      `<resume_hint>${escapeText(`run ${options.resumeCommand} to finish the items that did not complete (completed items never run again)`)}</resume_hint>`,
    );
  } else if (resumable.length > 0 || notStarted > 0) {
    const parts: string[] = [];
    // Subagents in worktrees go on there only with isolation again (their branch says they are in one).
    const isolated = sorted.some((r) => r.branch !== undefined && r.outcome !== 'conflict' && r.agentId !== undefined);
    if (resumable.length > 0) {
      parts.push(
        `continue the unfinished subagents with their context: call agent_swarm with resume_agent_ids ${JSON.stringify(resumable)}${isolated ? ' and isolation "worktree"' : ''} (and an optional resume_prompt)`,
      );
    }
    if (notStarted > 0) parts.push(`${notStarted} item(s) never started: include them again as items`);
    lines.push(`<resume_hint>${escapeText(parts.join('; '))}</resume_hint>`);
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
    lines.push(`<subagent ${attributes.join(' ')}>${escapeText(r.text)}</subagent>`);
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
      lines.push(`<earlier_attempt ${past.join(' ')}/>`);
    }
  }
  lines.push('</agent_swarm_result>');
  return lines.join('\n');
}

export function reportJson(results: readonly ItemResult[]): {
  summary: OutcomeCounts;
  resumeAgentIds: string[];
  items: ItemResult[];
} {
  const sorted = [...results].sort((a, b) => a.index - b.index);
  return { summary: countOutcomes(sorted), resumeAgentIds: resumableIds(sorted), items: sorted };
}
