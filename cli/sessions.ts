// `murmur sessions [--cwd DIR] [--json]`: the workspace's sessions, newest first, with what `murmur resume` needs.
import { boolFlag, parseArgs, UsageError } from './args.js';
import { workspaceFrom } from './setup.js';
import { SESSIONS_FLAGS } from './flags.js';
import { stateHome } from '../host/session-store.js';
import { listSessionSummaries, type SessionSummary } from '../host/session-list.js';
import { fit, formatCost, formatDuration, formatTokens, oneLine } from '../dashboards/format.js';
import { plural } from '../dashboards/plural.js';

export async function sessionsCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs('sessions', argv, SESSIONS_FLAGS);
  if (args.positionals.length > 0) {
    throw new UsageError(
      `murmur sessions: takes no arguments, got ${args.positionals.map((p) => JSON.stringify(p)).join(' ')}. Usage: murmur sessions [--cwd DIR] [--json]`,
    );
  }
  const home = stateHome(workspaceFrom('sessions', args));
  const sessions = listSessionSummaries(home);
  if (boolFlag(args, 'json')) {
    process.stdout.write(`${JSON.stringify(sessions)}\n`);
    return 0;
  }
  if (sessions.length === 0) {
    process.stdout.write(`No sessions under ${home}.\n`);
    return 0;
  }
  process.stdout.write(formatSessionTable(sessions, process.stdout.columns ?? 120));
  if (sessions.some((s) => s.status !== 'completed' && s.status !== 'unreadable')) {
    process.stdout.write('\nTo finish one that did not complete: murmur resume ID\n');
  }
  return 0;
}

/** Local time to the minute: `2026-11-30 02:15`. */
export function formatStart(ms: number | undefined): string {
  if (ms === undefined) return '-';
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

function countOf(s: SessionSummary): string {
  if (s.items) return `${s.items.completed}/${plural(s.items.total, 'item')}`;
  return plural(s.agents, 'agent');
}

/** One row per session under a header; the task gets what is left of the width. */
export function formatSessionTable(sessions: readonly SessionSummary[], columns: number): string {
  const rows = sessions.map((s) => [
    s.id,
    s.kind,
    s.status,
    formatStart(s.createdAt),
    // The time its runs took, across resumes (a session from before state version 2: its first to last save).
    formatDuration(
      s.durationMs ?? (s.createdAt !== undefined && s.updatedAt !== undefined ? s.updatedAt - s.createdAt : 0),
    ),
    countOf(s),
    formatTokens(s.tokens),
    s.usage.cost !== undefined ? formatCost(s.usage.cost) : '-',
    oneLine(s.problem ?? s.task ?? ''),
  ]);
  const header = ['ID', 'COMMAND', 'STATUS', 'STARTED', 'TIME', 'ITEMS/AGENTS', 'TOKENS', 'COST', 'TASK'];
  const widths = header.slice(0, -1).map((title, i) => Math.max(title.length, ...rows.map((r) => r[i]!.length)));
  const used = widths.reduce((sum, w) => sum + w + 2, 0);
  const taskWidth = Math.max(20, columns - used - 1);
  const right = new Set([4, 6, 7]);
  const line = (cells: string[]) =>
    `${cells
      .map((cell, i) => (i < widths.length ? fit(cell, widths[i]!, right.has(i)) : fit(cell, taskWidth)))
      .join('  ')
      .trimEnd()}\n`;
  return line(header) + rows.map(line).join('');
}
