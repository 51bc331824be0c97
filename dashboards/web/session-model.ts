// The web console's picture of one session: the terminal dashboard's fold (view-model.ts `reduce`) plus what a
// timeline needs and the dashboard forgets — every swarm item's state changes over time, the marks (retries,
// 429s, verdicts) and the capacity line. Pure: events in, a compact JSON-ready model out. Flat number arrays keep
// a 1,000-item swarm small enough to embed in one HTML report and to push to a page every half second.
import { initialSnapshot, reduce, type AgentView, type Snapshot } from '../view-model.js';
import type { MurmurEvent } from '../../orchestrator/events.js';
import { totalTokens } from '../../orchestrator/types.js';
import { ITEM_STATES } from '../../orchestrator/timeline-file.js';
import { cutReason, ToolErrors, type ToolError } from './fold-errors.js';

/** Item states by index (the numbers in `changes`); the page colours them in this order. */
export { ITEM_STATES };
/** Mark kinds by index (the numbers in `marks`). */
export const MARK_KINDS = ['retry', '429', 'pass', 'fail'] as const;

export interface AgentRow {
  id: string;
  parentId?: string;
  role: string;
  state: string;
  turns: number;
  /** Absent in a row read from state.json alone (no events to count them from). */
  toolCalls?: number;
  tokens: number;
  cost?: number;
  item?: string;
  swarmId?: string;
  startedAt: number;
  endedAt?: number;
  reason?: string;
  /** The agent's final message (read from its transcript by the caller). */
  final?: string;
  /** An agent that did not complete: its last tool error (tool.end with isError), the tool and its message. */
  lastToolError?: ToolError;
}

/** A row of the fold's agents: the dashboard's view plus what the console keeps of its last tool error. */
export type FoldAgent = AgentView & { lastToolError?: ToolError };

export interface SwarmTimeline {
  id: string;
  description: string;
  role: string;
  parentId?: string;
  startedAt: number;
  endedAt?: number;
  items: string[];
  /** Flat triples [itemIndex, ms since the session's t0, state index], in event order. */
  changes: number[];
  /** Flat triples [itemIndex, ms since t0, mark kind index]. */
  marks: number[];
  /** Flat pairs [ms since t0, capacity]. */
  capacity: number[];
  maxConcurrency?: number;
  counts: Record<string, number>;
  /** Per item: its worker's agent id ('' before it starts). */
  agentIds: string[];
  /** Per item: verify rounds with a verdict so far. */
  rounds: number[];
  /** Per item: the last verdict (0 none, 1 pass, 2 fail). */
  verdicts: number[];
  /** Per item: tokens of its worker and verifiers. */
  tokens: number[];
  /** Per item: why it failed, was aborted, conflicted or waits, or its last failing verdict's reasons ('' none). */
  reasons: string[];
  /** Flat triples [itemIndex, start ms since t0, end ms since t0 or -1 while it runs]: verifiers, in their item's row. */
  verifiers: number[];
  /** The verifiers' agent ids, one per triple of `verifiers`. */
  verifierIds: string[];
  /** Per item: how its earlier attempts ended, in words ('' none); present once an item was retried. */
  earlier?: string[];
}

export interface SessionModel {
  id: string;
  title: string;
  mode?: 'run' | 'swarm';
  model: string;
  /** running until run.end (then its status). */
  status: string;
  /** Epoch ms every relative time counts from. */
  t0: number;
  /** The session's first start (a resumed session keeps it). */
  startedAt: number;
  endedAt?: number;
  /** Once it ended: the time its runs took in all, across resumes (ms). */
  durationMs?: number;
  /** While it runs again after a resume: when this run began, and the time its earlier runs took (ms). */
  runStartedAt?: number;
  earlierMs?: number;
  /** The newest event's time (the right edge of a live timeline). */
  lastTs: number;
  tokens: number;
  cost?: number;
  agents: AgentRow[];
  /** A session with a big swarm: its agents in all (`agents` lists only those state.json still holds). */
  agentCount?: number;
  swarms: SwarmTimeline[];
  events: number;
}

export interface SessionFold {
  add(event: MurmurEvent): void;
  /** Bumped by every event: a pusher sends only when it moved. */
  readonly version: number;
  model(finals?: ReadonlyMap<string, string>): SessionModel;
  /**
   * The model in two parts, for a caller that makes the rows of a big session a slice at a time: everything but
   * the agents, and the agents in order (each made a row by `agentRow`).
   */
  parts(): { rest: Omit<SessionModel, 'agents'>; agents: FoldAgent[] };
  /** About how many bytes the fold holds (for a cache bounded by size): grows with agents, items and changes. */
  approxBytes(): number;
}

interface TimelineState {
  view: SwarmTimeline;
  /** Item → its index (the first, if an item repeats): an agent's row found without searching the list. */
  indexOf: Map<string, number>;
  itemChars: number;
  /** A verifier's agent id → its triple's offset in `verifiers`. */
  verifierAt: Map<string, number>;
}

// The console shows no transcript lines and no log: the dashboard's rings kept to one entry each, so a session
// of 50,000 agents costs its counters, not 50,000 × 120 lines.
const CONSOLE_LIMITS = { transcriptLines: 1, logEntries: 1 };
// Estimates checked against the heap of folded sessions (V8, 64-bit; 58,000 agents: 75 MB measured, 75 MB
// estimated): an agent with its view and its row in the cached model, a number in a timeline array, an item.
const AGENT_BYTES = 1_200;
const NUMBER_BYTES = 8;
const CHAR_BYTES = 2;
const ITEM_BYTES = 48;
const BASE_BYTES = 4_096;
/** A resume restating an item done before: not a reason of its own. */
const RESTATED = 'finished before the resume';

/** The state index of an item's last change on the timeline, or -1. */
function lastState(swarm: SwarmTimeline, index: number): number {
  for (let i = swarm.changes.length - 3; i >= 0; i -= 3) if (swarm.changes[i] === index) return swarm.changes[i + 2]!;
  return -1;
}

/** A fold that grows with each event; `model()` reads it out at any time. */
export function sessionFold(id: string): SessionFold {
  let snapshot: Snapshot = initialSnapshot({ now: 0, limits: CONSOLE_LIMITS });
  let t0: number | undefined;
  let lastTs = 0;
  let version = 0;
  const swarms = new Map<string, TimelineState>();
  // An item's worker (and verifier) → its row, so retries of that agent mark the right bar.
  const rowOfAgent = new Map<string, { swarm: SwarmTimeline; index: number }>();
  const toolErrors = new ToolErrors();
  let reasonChars = 0;

  const rel = (ts: number) => ts - (t0 ?? ts);
  const add = (e: MurmurEvent) => {
    version++;
    t0 ??= e.ts;
    lastTs = Math.max(lastTs, e.ts);
    snapshot = reduce(snapshot, e);
    switch (e.type) {
      case 'swarm.start': {
        // A resumed swarm starts again: its timeline goes on (the items that finished before keep their bars).
        const known = swarms.get(e.swarmId);
        if (known) {
          if (e.maxConcurrency !== undefined) known.view.maxConcurrency = e.maxConcurrency;
          delete known.view.endedAt;
          break;
        }
        const view: SwarmTimeline = {
          id: e.swarmId,
          description: e.description,
          role: e.role,
          startedAt: e.ts,
          items: [...e.items],
          changes: [],
          marks: [],
          capacity: [],
          counts: {},
          agentIds: e.items.map(() => ''),
          rounds: e.items.map(() => 0),
          verdicts: e.items.map(() => 0),
          tokens: [],
          reasons: e.items.map(() => ''),
          verifiers: [],
          verifierIds: [],
        };
        if (e.parentId !== undefined) view.parentId = e.parentId;
        if (e.maxConcurrency !== undefined) view.maxConcurrency = e.maxConcurrency;
        const indexOf = new Map<string, number>();
        let itemChars = 0;
        e.items.forEach((item, index) => {
          if (!indexOf.has(item)) indexOf.set(item, index);
          itemChars += item.length;
        });
        swarms.set(e.swarmId, { view, indexOf, itemChars, verifierAt: new Map() });
        break;
      }
      case 'swarm.item': {
        const swarm = swarms.get(e.swarmId)?.view;
        if (!swarm) break;
        const t = rel(e.ts);
        // A resume restating an item that finished before it: the bar already ends where it happened.
        if (e.reason === RESTATED && lastState(swarm, e.index) === ITEM_STATES.indexOf(e.state)) break;
        swarm.changes.push(e.index, t, ITEM_STATES.indexOf(e.state));
        if (e.state === 'rate_limited') swarm.marks.push(e.index, t, 1);
        const before = swarm.reasons[e.index]?.length ?? 0;
        noteItem(swarm, e, t);
        reasonChars += (swarm.reasons[e.index]?.length ?? 0) - before;
        if (e.agentId !== undefined) rowOfAgent.set(e.agentId, { swarm, index: e.index });
        if (e.verifierId !== undefined) rowOfAgent.set(e.verifierId, { swarm, index: e.index });
        if (e.capacity !== undefined) swarm.capacity.push(t, e.capacity);
        break;
      }
      case 'agent.start': {
        if (e.swarmId !== undefined && e.item !== undefined) {
          const timeline = swarms.get(e.swarmId);
          const index = timeline?.indexOf.get(e.item);
          if (timeline && index !== undefined && !rowOfAgent.has(e.agentId))
            rowOfAgent.set(e.agentId, { swarm: timeline.view, index });
          if (timeline && index !== undefined && e.role === 'verifier' && !timeline.verifierAt.has(e.agentId)) {
            timeline.verifierAt.set(e.agentId, timeline.view.verifiers.length);
            timeline.view.verifiers.push(index, rel(e.ts), -1);
            timeline.view.verifierIds.push(e.agentId);
          }
        }
        break;
      }
      case 'agent.end': {
        const at = e.swarmId === undefined ? undefined : swarms.get(e.swarmId)?.verifierAt.get(e.agentId);
        if (at !== undefined) swarms.get(e.swarmId!)!.view.verifiers[at + 2] = rel(e.ts);
        toolErrors.add(e);
        break;
      }
      case 'tool.end':
        toolErrors.add(e);
        break;
      case 'model.retry': {
        const row = rowOfAgent.get(e.agentId);
        if (row) row.swarm.marks.push(row.index, rel(e.ts), e.status === 429 ? 1 : 0);
        break;
      }
      case 'swarm.capacity': {
        const swarm = swarms.get(e.swarmId)?.view;
        if (swarm) swarm.capacity.push(rel(e.ts), e.capacity);
        break;
      }
      case 'swarm.end': {
        const swarm = swarms.get(e.swarmId)?.view;
        if (swarm) swarm.endedAt = e.ts;
        break;
      }
      default:
        break;
    }
  };

  return {
    add,
    get version() {
      return version;
    },
    approxBytes() {
      let bytes = BASE_BYTES + snapshot.agents.size * AGENT_BYTES;
      for (const { view, itemChars } of swarms.values())
        bytes +=
          view.items.length * ITEM_BYTES +
          itemChars * CHAR_BYTES +
          (view.changes.length + view.marks.length + view.capacity.length + view.verifiers.length) * NUMBER_BYTES +
          view.items.length * 5 * NUMBER_BYTES;
      return bytes + toolErrors.approxBytes() + reasonChars * CHAR_BYTES;
    },
    parts() {
      const rest: Omit<SessionModel, 'agents'> = {
        id,
        title: snapshot.title,
        model: snapshot.model,
        status: snapshot.runStatus ?? 'running',
        t0: t0 ?? 0,
        startedAt: snapshot.sessionStartedAt ?? snapshot.startedAt,
        lastTs,
        tokens: totalTokens(snapshot.usage),
        swarms: [...swarms.values()].map((timeline) => {
          const { view } = timeline;
          const counts: Record<string, number> = {};
          const live = snapshot.swarms.get(view.id);
          if (live) for (const [state, n] of Object.entries(live.counts)) if (n > 0) counts[state] = n;
          return { ...view, counts, tokens: itemTokens(timeline, snapshot) };
        }),
        events: snapshot.events,
      };
      if (snapshot.mode !== undefined) rest.mode = snapshot.mode;
      if (snapshot.endedAt !== undefined) rest.endedAt = snapshot.endedAt;
      // The time its runs took in all, across resumes (not the wall time between its first start and its end).
      if (snapshot.endedAt !== undefined && snapshot.sessionMs !== undefined) rest.durationMs = snapshot.sessionMs;
      else if (snapshot.endedAt === undefined && snapshot.sessionMs !== undefined) {
        rest.runStartedAt = snapshot.startedAt;
        rest.earlierMs = snapshot.sessionMs;
      }
      if (snapshot.costKnown) rest.cost = snapshot.usage.cost ?? 0;
      const agents: FoldAgent[] = [...snapshot.agents.values()].sort((a, b) => a.order - b.order);
      // Only the few agents with an error get a copy; the rest are the snapshot's own views.
      if (toolErrors.size > 0)
        for (let i = 0; i < agents.length; i++) {
          const lastToolError = toolErrors.get(agents[i]!.id);
          if (lastToolError) agents[i] = { ...agents[i]!, lastToolError };
        }
      return { rest, agents };
    },
    model(finals) {
      const { rest, agents } = this.parts();
      return { ...rest, agents: agents.map((a) => agentRow(a, finals)) };
    },
  };
}

/**
 * What a `swarm.item` says of its row: the worker, why it ended as it did (a new attempt clears it), and a verdict
 * once per round (a pass repeats on "completed").
 */
function noteItem(swarm: SwarmTimeline, e: Extract<MurmurEvent, { type: 'swarm.item' }>, t: number): void {
  const i = e.index;
  if (i < 0 || i >= swarm.agentIds.length) return;
  if (e.agentId !== undefined && e.verifierId !== e.agentId) swarm.agentIds[i] = e.agentId;
  if (e.attempts) {
    const words = e.attempts.map((a) => `attempt ${a.attempt} ${a.outcome}${a.reason ? `: ${a.reason}` : ''}`);
    (swarm.earlier ??= swarm.items.map(() => ''))[i] = cutReason(words.join('; '));
  }
  if (e.state === 'queued' || e.state === 'launched') swarm.reasons[i] = '';
  else if (e.reason !== undefined && e.reason !== RESTATED && e.state !== 'rate_limited')
    swarm.reasons[i] = cutReason(e.reason === 'not_started' ? 'not started' : e.reason);
  if (e.verdict === undefined) return;
  const rounds = e.rounds ?? swarm.rounds[i]! + 1;
  const verdict = e.verdict === 'pass' ? 1 : 2;
  if (rounds === swarm.rounds[i] && verdict === swarm.verdicts[i]) return;
  swarm.rounds[i] = rounds;
  swarm.verdicts[i] = verdict;
  swarm.marks.push(i, t, verdict + 1);
}

/** Tokens per item: its worker's and its verifiers' (every agent of the swarm that names the item). */
function itemTokens(timeline: TimelineState, snapshot: Snapshot): number[] {
  const tokens = new Array<number>(timeline.view.items.length).fill(0);
  for (const a of snapshot.agents.values()) {
    if (a.swarmId !== timeline.view.id || a.item === undefined) continue;
    const index = timeline.indexOf.get(a.item);
    if (index !== undefined) tokens[index]! += totalTokens(a.usage);
  }
  return tokens;
}

/** An agent of the dashboard's snapshot as a row of the console's tree. */
export function agentRow(a: FoldAgent, finals?: ReadonlyMap<string, string>): AgentRow {
  const row: AgentRow = {
    id: a.id,
    role: a.role,
    state: a.state,
    turns: a.turns,
    toolCalls: a.toolCalls,
    tokens: totalTokens(a.usage),
    startedAt: a.startedAt,
  };
  if (a.parentId !== undefined) row.parentId = a.parentId;
  if (a.usage.cost !== undefined) row.cost = a.usage.cost;
  if (a.item !== undefined) row.item = a.item;
  if (a.swarmId !== undefined) row.swarmId = a.swarmId;
  if (a.endedAt !== undefined) row.endedAt = a.endedAt;
  if (a.reason !== undefined) row.reason = a.reason;
  if (a.lastToolError !== undefined && a.state !== 'completed') row.lastToolError = a.lastToolError;
  const final = finals?.get(a.id);
  if (final) row.final = final;
  return row;
}

/** The whole model of a list of events (a finished session, a report). */
export function foldEvents(
  id: string,
  events: Iterable<MurmurEvent>,
  finals?: ReadonlyMap<string, string>,
): SessionModel {
  const fold = sessionFold(id);
  for (const event of events) fold.add(event);
  return fold.model(finals);
}
