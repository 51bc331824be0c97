// The sessions of a workspace as a list, newest first: what `murmur sessions` prints and what a console can show.
// Reads each `sessions/<id>/state.json` on its own, so one damaged session never hides the others.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { emptyUsage, totalTokens, type Usage } from './types.js';
import { segmentsMs } from './run-segments.js';
import { replayJournal } from './session-journal.js';
import { withSettled } from './settled-log.js';
import { tallyTimeline } from './timeline-file.js';

/** A session of the workspace as `murmur sessions --json` lists it: id, kind, title, status, times and usage. */
export interface SessionSummary {
  id: string;
  /** The command that started it. */
  kind: 'run' | 'swarm' | 'unknown';
  /** The session's status as last saved (`completed`, `running`, `failed`, `aborted`…), or `unreadable`. */
  status: string;
  /** Epoch ms; absent when the state could not be read. */
  createdAt?: number;
  updatedAt?: number;
  /** The time its runs took in all, across resumes (its saved segments; ms); absent before state version 2. */
  durationMs?: number;
  model?: string;
  /** The task, or the swarm's description. */
  task?: string;
  agents: number;
  /** For a swarm: its items and how many completed. */
  items?: { total: number; completed: number };
  usage: Usage;
  tokens: number;
  /** Why the state could not be read (missing, not JSON, not a session). */
  problem?: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function usageOf(value: unknown): Usage {
  const usage = emptyUsage();
  if (!isObject(value)) return usage;
  usage.input = num(value.input) ?? 0;
  usage.output = num(value.output) ?? 0;
  usage.cacheRead = num(value.cacheRead) ?? 0;
  usage.cacheWrite = num(value.cacheWrite) ?? 0;
  const cost = num(value.cost);
  if (cost !== undefined) usage.cost = cost;
  return usage;
}

function itemsOf(swarm: unknown): SessionSummary['items'] {
  if (!isObject(swarm) || !Array.isArray(swarm.items)) return undefined;
  let completed = 0;
  for (const item of swarm.items) {
    const result = isObject(item) && isObject(item.result) ? item.result : undefined;
    if (result?.outcome === 'completed') completed++;
  }
  // Version 4: the items past the list wait in the swarm's queued file, counted without reading it.
  const queued = isObject(swarm.queuedItems) ? num(swarm.queuedItems.count) : undefined;
  return { total: Math.max(queued ?? 0, swarm.items.length), completed };
}

/**
 * One session's summary from the text of its state.json (a pure function, for tests and other readers); `dir`, the
 * session's folder, adds its swarm's item changes journaled since that snapshot.
 */
export function summarizeState(id: string, text: string | undefined, dir?: string): SessionSummary {
  const unreadable = (problem: string): SessionSummary => ({
    id,
    kind: 'unknown',
    status: 'unreadable',
    agents: 0,
    usage: emptyUsage(),
    tokens: 0,
    problem,
  });
  if (text === undefined) return unreadable('no state.json (the process stopped before saving anything)');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return unreadable(`state.json is not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(parsed)) return unreadable('state.json does not hold a session');
  let state = parsed;
  // A big swarm is counted from its timeline, not read back item by item from its settled log.
  const swarmId = isObject(parsed.swarm) ? str(parsed.swarm.swarmId) : undefined;
  const tally = dir && swarmId ? tallyTimeline(dir, swarmId) : undefined;
  if (dir && !tally) {
    const merged = withSettled(dir, parsed);
    if (!merged.ok) return unreadable(merged.error);
    state = merged.state;
  }
  const usage = usageOf(state.usage);
  const summary: SessionSummary = {
    id,
    kind: state.kind === 'run' || state.kind === 'swarm' ? state.kind : 'unknown',
    status: str(state.status) ?? 'unknown',
    agents: !Array.isArray(state.agents)
      ? 0
      : tally
        ? state.agents.filter((a) => !isObject(a) || a.swarmId !== swarmId).length + tally.agents
        : state.agents.length,
    usage,
    tokens: totalTokens(usage),
  };
  const createdAt = num(state.createdAt);
  if (createdAt !== undefined) summary.createdAt = createdAt;
  const updatedAt = num(state.updatedAt);
  if (updatedAt !== undefined) summary.updatedAt = updatedAt;
  if (Array.isArray(state.segments)) summary.durationMs = segmentsMs(state.segments.filter(isObject), updatedAt);
  const model = str(state.model);
  if (model) summary.model = model;
  const task = str(state.task) ?? (isObject(state.swarm) ? str(state.swarm.description) : undefined);
  if (task) summary.task = task;
  const items = tally
    ? { total: tally.count, completed: tally.completed }
    : itemsOf(dir ? replayJournal(dir, state) : state.swarm);
  if (items) summary.items = items;
  return summary;
}

/** Newest first: by start time, then by id (ids begin with their UTC start time). */
export function newestFirst(a: SessionSummary, b: SessionSummary): number {
  const byTime = (b.createdAt ?? 0) - (a.createdAt ?? 0);
  return byTime !== 0 ? byTime : b.id.localeCompare(a.id);
}

/** Every session under a state folder (`.murmur`, or MURMUR_HOME), newest first; none when the folder is missing. */
export function listSessionSummaries(home: string): SessionSummary[] {
  let ids: string[];
  try {
    ids = readdirSync(join(home, 'sessions'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
  const out = ids.map((id) => {
    let text: string | undefined;
    try {
      text = readFileSync(join(home, 'sessions', id, 'state.json'), 'utf8');
    } catch {
      text = undefined;
    }
    return summarizeState(id, text, join(home, 'sessions', id));
  });
  return out.sort(newestFirst);
}
