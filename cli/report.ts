// `murmur report ID [--html] [-o FILE] [--json]`: a session's report after the fact. Text: each swarm's escaped
// report in the order they ran (swarm/report.ts), or for a session without a swarm the main agent's final answer
// and its agent tree. --json: the object `--json` printed at the end of that run. --html: the console's session
// page with its timeline as one self-contained file (inline CSS, script and data; no external request).
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { boolFlag, parseArgs, stringFlag, UsageError } from './args.js';
import { workspaceFrom } from './setup.js';
import { stateHome } from '../host/session-store.js';
import {
  renderReport,
  segmentsMs,
  swarmReport,
  usagesOfList,
  withItemUsage,
  type ItemResult,
  type RunReport,
} from '../host/reports.js';
import type { SessionState } from '../protocol/run-state.js';
import { REPORT_FLAGS } from './flags.js';
import type { Interruption } from '../protocol/interruptions.js';
import { plural } from '../dashboards/plural.js';

interface SavedSwarmState {
  items?: { item: string; result?: ItemResult }[];
}

function swarmResults(state: SessionState): ItemResult[] | undefined {
  const swarm = (state as { swarm?: SavedSwarmState }).swarm;
  if (!swarm || !Array.isArray(swarm.items)) return undefined;
  return swarm.items.map(
    (s, index) => s.result ?? { index, item: s.item, outcome: 'aborted', rounds: 0, text: '', notStarted: true },
  );
}

function mainAgent(state: SessionState): SessionState['agents'][number] | undefined {
  return state.agents.find((a) => a.parentId === undefined && a.swarmId === undefined) ?? state.agents[0];
}

function agentTree(state: SessionState): string {
  const children = new Map<string, SessionState['agents']>();
  const ids = new Set(state.agents.map((a) => a.id));
  for (const agent of state.agents) {
    const parent = agent.parentId !== undefined && ids.has(agent.parentId) ? agent.parentId : '';
    children.set(parent, [...(children.get(parent) ?? []), agent]);
  }
  const lines: string[] = [];
  const walk = (parent: string, depth: number) => {
    for (const a of children.get(parent) ?? []) {
      lines.push(
        `${'  '.repeat(depth)}${a.id} ${a.role} ${a.status} · ${plural(a.turns, 'turn')} · ${plural(a.usage.input + a.usage.output, 'token')}${a.item ? ` · ${a.item}` : a.description ? ` · ${a.description}` : ''}${a.reason ? ` (${a.reason})` : ''}`,
      );
      walk(a.id, depth + 1);
    }
  };
  walk('', 0);
  return lines.join('\n');
}

export async function reportCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs('report', argv, REPORT_FLAGS);
  const [id, ...extra] = args.positionals;
  if (!id)
    throw new UsageError(
      'murmur report: missing the session id (see murmur sessions). Usage: murmur report ID [--html] [-o FILE] [--json].',
    );
  if (extra.length > 0)
    throw new UsageError(`murmur report: one session id expected, got ${args.positionals.join(' ')}.`);
  if (boolFlag(args, 'html') && boolFlag(args, 'json'))
    throw new UsageError('murmur report: give --html or --json, not both.');
  if (stringFlag(args, 'output') !== undefined && !boolFlag(args, 'html'))
    throw new UsageError('murmur report: -o FILE goes with --html (text and JSON print on stdout).');
  const {
    isSessionId,
    readState,
    readTranscript,
    readTranscripts,
    finalMessage,
    swarmReportsIn,
    sessionDir,
    SessionSource,
  } = await import('../dashboards/web/session-source.js');
  const workspace = workspaceFrom('report', args);
  const home = stateHome(workspace);
  const noSession = async () => {
    const { listSessionSummaries } = await import('../host/session-list.js');
    const known = listSessionSummaries(home)
      .slice(0, 5)
      .map((s) => s.id);
    return new UsageError(
      `murmur report: no session "${id}" under ${join(home, 'sessions')}${known.length > 0 ? `; newest: ${known.join(', ')}` : ''} (see murmur sessions).`,
    );
  };

  // The HTML report reads what the console reads (a big swarm's timeline, not its million items): it needs only the
  // session to be there. The text and JSON reports list every agent, so they read the whole state.
  if (boolFlag(args, 'html')) {
    if (!isSessionId(id) || !SessionSource.exists(home, id)) throw await noSession();
    const { renderReportHtml } = await import('../dashboards/web/report-html.js');
    const file = resolve(stringFlag(args, 'output') ?? join(sessionDir(home, id), 'report.html'));
    try {
      writeFileSync(file, await renderReportHtml(home, id));
    } catch (error) {
      throw new UsageError(
        `murmur report: cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
      );
    }
    process.stdout.write(`${file}\n`);
    return 0;
  }

  const state = isSessionId(id) ? readState(home, id) : undefined;
  if (!state) throw await noSession();
  const saved = swarmResults(state);
  const results = saved ? [...withItemUsage(saved, usagesOfList(state.agents))] : undefined;
  const main = mainAgent(state);
  // The session's past, as the run's own report says it: its first start, its time in all, what it waits for.
  const past = pastOf(state);
  if (boolFlag(args, 'json')) {
    if (state.kind === 'swarm' && results) {
      const status =
        state.status === 'aborted' || state.status === 'waiting'
          ? state.status
          : results.every((r) => r.outcome === 'completed')
            ? 'completed'
            : 'failed';
      const report = swarmReport(results, status, state.id, undefined, { ...past, usage: state.usage });
      process.stdout.write(`${JSON.stringify(report)}\n`);
    } else {
      const answer = main ? (finalMessage(readTranscript(home, id, main.id)) ?? '') : '';
      // A session as saved: a run that stopped with the process says so (running, interrupted).
      const report: Omit<RunReport, 'status'> & { status: string } = {
        kind: 'run',
        status: main?.status ?? state.status,
        result: answer,
        usage: state.usage,
        agents: state.agents.map(
          ({ id: agentId, parentId, role, description, item, status, reason, usage, turns, toolCalls }) => ({
            id: agentId,
            role,
            status,
            usage,
            turns,
            toolCalls,
            ...(parentId !== undefined ? { parentId } : {}),
            ...(description !== undefined ? { description } : {}),
            ...(item !== undefined ? { item } : {}),
            ...(reason !== undefined ? { reason } : {}),
          }),
        ),
        sessionId: state.id,
        ...past,
      };
      if (main?.reason !== undefined) report.reason = main.reason;
      process.stdout.write(`${JSON.stringify(report)}\n`);
    }
    return 0;
  }

  if (state.kind === 'swarm' && results) {
    process.stdout.write(`${renderReport(results, { resumeCommand: `murmur resume ${state.id}` })}\n`);
    return 0;
  }
  // A run: the swarms its agents ran (their reports as the agents received them), else the answer and the tree.
  const transcripts = readTranscripts(
    home,
    id,
    state.agents.map((a) => a.id),
  );
  const reports = state.agents.flatMap((a) => swarmReportsIn(transcripts.get(a.id) ?? []));
  if (reports.length > 0) {
    process.stdout.write(`${reports.join('\n\n')}\n`);
    return 0;
  }
  const answer = main ? finalMessage(readTranscript(home, id, main.id)) : undefined;
  process.stdout.write(`${answer ?? '(no final answer)'}\n\nAgents:\n${agentTree(state)}\n`);
  return 0;
}

/** A saved session's start, its time in all (its segments, the last open one up to its last save) and what it waits for. */
function pastOf(state: SessionState): { startedAt: number; durationMs?: number; interruptions?: Interruption[] } {
  const past: { startedAt: number; durationMs?: number; interruptions?: Interruption[] } = {
    startedAt: state.createdAt,
  };
  if (state.segments) past.durationMs = segmentsMs(state.segments, state.updatedAt);
  if (state.interruptions && state.interruptions.length > 0) past.interruptions = state.interruptions;
  return past;
}
