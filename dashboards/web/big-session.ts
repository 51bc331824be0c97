// A session with a big swarm, as the console shows it: its state.json (title, status, the agents it still lists) and
// each big swarm's timeline file in buckets — never its events.jsonl, which at a million items is a gigabyte. What a
// person sees: every bucket's state mix and span, and a bucket's items when they drill down (bucket-model.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { badlyEnded, timelineSwarmIds } from '../../orchestrator/timeline-file.js';
import { summarizeState } from '../../orchestrator/session-list.js';
import { readItemLabels } from '../../orchestrator/timeline-labels.js';
import { bucketTimeline, itemSlice, openTimelines } from './bucket-model.js';
import { fromState, readStateAsSaved } from './state-model.js';
import type { SessionModel, SwarmTimeline } from './session-model.js';
import type { SessionState } from '../../protocol/run-state.js';

/** The swarms of a session folder that have a timeline file (none: the console folds its events). */
export function bigSwarmIds(dir: string): string[] {
  try {
    return timelineSwarmIds(readdirSync(dir));
  } catch {
    return [];
  }
}

/** What changes when the session moves on: state.json's and the timeline files' sizes and times. */
export function bigSignature(dir: string, swarmIds: readonly string[]): string {
  return ['state.json', ...swarmIds.map((id) => `timeline-${id}.bin`)]
    .map((name) => {
      try {
        const { size, mtimeMs } = statSync(join(dir, name));
        return `${size}:${mtimeMs}`;
      } catch {
        return '-';
      }
    })
    .join(',');
}

/** The time its runs took: in all once it ended, and until this run while it runs again. */
function timing(model: SessionModel, state: SessionState): void {
  const segments = state.segments ?? [];
  const took = (from: number) =>
    segments.slice(from).reduce((ms, s) => ms + Math.max(0, (s.endedAt ?? state.updatedAt) - s.startedAt), 0);
  if (state.status !== 'running') {
    model.endedAt = state.updatedAt;
    if (segments.length > 0) model.durationMs = took(0);
  } else if (segments.length > 1) {
    model.runStartedAt = segments.at(-1)!.startedAt;
    model.earlierMs = took(0) - took(segments.length - 1);
  }
}

/** The session's model: its saved state, with its big swarms as rows of buckets. */
export function bigSessionModel(dir: string, id: string, swarmIds: readonly string[]): SessionModel {
  const state = readStateAsSaved(dir);
  const model = fromState(id, state);
  if (state) {
    model.startedAt = state.segments?.[0]?.startedAt ?? state.createdAt;
    timing(model, state);
  }
  const readers = openTimelines(dir, swarmIds);
  try {
    model.swarms = readers.map((reader) => bucketTimeline(reader, model.t0));
  } finally {
    for (const reader of readers) reader.close();
  }
  for (const swarm of model.swarms) model.lastTs = Math.max(model.lastTs, swarm.endedAt ?? 0);
  // Its agents as `murmur sessions` counts them (the settled ones from the timeline, not read back one by one).
  let text: string | undefined;
  try {
    text = readFileSync(join(dir, 'state.json'), 'utf8');
  } catch {
    text = undefined;
  }
  const summary = summarizeState(id, text, dir);
  if (summary.status !== 'unreadable') model.agentCount = summary.agents;
  if (model.status === 'running') model.lastTs = Math.max(model.lastTs, Date.now());
  return model;
}

/** Items `from`..`to` of a big swarm one by one (the drill-down), or why not. */
export function bigSwarmItems(
  dir: string,
  swarmId: string,
  from: number,
  to: number,
): (SwarmTimeline & { offset: number }) | string {
  const [reader] = openTimelines(dir, [swarmId]);
  if (!reader) return `swarm "${swarmId}" has no timeline in this session`;
  try {
    if (from >= reader.header.count)
      return `from ${from} is past the swarm's last item (it has ${reader.header.count}, from 0)`;
    const t0 = readStateAsSaved(dir)?.createdAt ?? reader.header.t0;
    return itemSlice(dir, reader, from, to, t0);
  } finally {
    reader.close();
  }
}

/** Candidates a page names at most: it shows their count, and a resume reads the rest. */
const CANDIDATES_SHOWN = 100;

/**
 * What the Retry button of a session whose own swarm is big offers (its timeline counts them, rather than opening
 * the session's million items): the swarm, how many items would run again, and the first of them. Undefined for a
 * session without such a swarm.
 */
export function bigRetryCandidates(
  dir: string,
): { swarmId: string; count: number; items: { item: string; outcome: string; agentId?: string }[] } | undefined {
  const swarm = readStateAsSaved(dir)?.swarm as { swarmId?: unknown } | undefined;
  const swarmId = typeof swarm?.swarmId === 'string' ? swarm.swarmId : undefined;
  const found = swarmId ? badlyEnded(dir, swarmId, CANDIDATES_SHOWN) : undefined;
  if (!swarmId || !found) return undefined;
  const labels = readItemLabels(
    dir,
    swarmId,
    0,
    0,
    found.first.map((c) => c.index),
  );
  const items = found.first.map((c, k) => ({
    item: labels[k] ?? `item ${c.index + 1}`,
    outcome: c.outcome,
    ...(c.agent > 0 ? { agentId: `a-${c.agent}` } : {}),
  }));
  return { swarmId, count: found.count, items };
}
