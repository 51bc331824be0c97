// Selectors over the dashboard snapshot: sorted rows, counts, progress, concurrency, rates and the text an
// agent's row and transcript pane show. Pure functions of the snapshot and a time (`now`) from the caller's clock.
import { formatDuration } from './format.js';
import type { AgentView, AgentViewState, Snapshot } from './view-types.js';

const STATE_RANK: Record<AgentViewState, number> = {
  running: 0,
  verifying: 1,
  rate_limited: 2,
  queued: 3,
  waiting: 4,
  failed: 4,
  timeout: 4,
  budget: 4,
  conflict: 4,
  aborted: 5,
  completed: 6,
};

export function isActive(agent: AgentView): boolean {
  return STATE_RANK[agent.state] <= STATE_RANK.queued;
}

/**
 * Rows for the table: running agents first (longest running on top), then those waiting (verifying,
 * rate-limited, queued), then failures, aborted and completed ones, most recently ended first.
 */
export function sortedAgents(s: Snapshot): AgentView[] {
  return [...s.agents.values()].sort((a, b) => {
    const rank = STATE_RANK[a.state] - STATE_RANK[b.state];
    if (rank !== 0) return rank;
    if (isActive(a)) return a.startedAt - b.startedAt || a.order - b.order;
    return (b.endedAt ?? 0) - (a.endedAt ?? 0) || a.order - b.order;
  });
}

export function agentCounts(s: Snapshot): Record<AgentViewState, number> {
  const counts = Object.fromEntries(Object.keys(STATE_RANK).map((k) => [k, 0])) as Record<AgentViewState, number>;
  for (const agent of s.agents.values()) counts[agent.state]++;
  return counts;
}

/** The progress bar's groups. */
export interface Progress {
  completed: number;
  running: number;
  queued: number;
  rateLimited: number;
  failed: number;
  aborted: number;
  /** Items (or agents) stopped at a call that needs a person. */
  waiting: number;
  total: number;
}

/** Progress by swarm item when there is a swarm (items not started yet count as queued), else by agent. */
export function progress(s: Snapshot): Progress {
  const p: Progress = {
    completed: 0,
    running: 0,
    queued: 0,
    rateLimited: 0,
    failed: 0,
    aborted: 0,
    waiting: 0,
    total: 0,
  };
  if (s.swarms.size > 0) {
    for (const swarm of s.swarms.values()) {
      const c = swarm.counts;
      p.completed += c.completed;
      p.running += c.launched + c.verifying;
      p.queued += c.queued;
      p.rateLimited += c.rate_limited;
      p.failed += c.failed + c.conflict;
      p.aborted += c.aborted;
      p.waiting += c.waiting;
      p.total += swarm.items.length;
    }
    return p;
  }
  const c = agentCounts(s);
  p.completed = c.completed;
  p.running = c.running + c.verifying;
  p.queued = c.queued;
  p.rateLimited = c.rate_limited;
  p.failed = c.failed + c.timeout + c.budget + c.conflict;
  p.aborted = c.aborted;
  p.waiting = c.waiting;
  p.total = s.agents.size;
  return p;
}

export function isRateLimited(s: Snapshot): boolean {
  for (const swarm of s.swarms.values()) if (swarm.hold) return true;
  return false;
}

export interface Concurrency {
  running: number;
  /** The swarm controller's current capacity, when a swarm runs. */
  capacity?: number;
  /** The configured cap (max concurrency), when known. */
  max?: number;
}

/**
 * Running now and the cap. For swarms, running is counted from the item states (launched or being verified), so
 * it follows every item's start and end; capacity and the cap come from the controllers.
 */
export function concurrency(s: Snapshot): Concurrency {
  let running = 0;
  let capacity: number | undefined;
  let max: number | undefined;
  let swarmsActive = false;
  for (const swarm of s.swarms.values()) {
    if (swarm.endedAt !== undefined) continue;
    swarmsActive = true;
    running += swarm.counts.launched + swarm.counts.verifying;
    if (swarm.capacity !== undefined) capacity = (capacity ?? 0) + swarm.capacity;
    if (swarm.maxConcurrency !== undefined) max = (max ?? 0) + swarm.maxConcurrency;
  }
  if (!swarmsActive) for (const agent of s.agents.values()) if (agent.state === 'running') running++;
  const out: Concurrency = { running };
  if (capacity !== undefined) out.capacity = capacity;
  if (max !== undefined) out.max = max;
  return out;
}

export function elapsedMs(s: Snapshot, now: number): number {
  return Math.max(0, (s.endedAt ?? now) - s.startedAt);
}

export function agentElapsedMs(agent: AgentView, now: number): number {
  return Math.max(0, (agent.endedAt ?? now) - agent.startedAt);
}

export interface Rates {
  /** Input plus output tokens per second of elapsed time. */
  tokensPerSecond: number;
  /** Agents ended per minute. */
  agentsPerMinute: number;
}

export function rates(s: Snapshot, now: number): Rates {
  const seconds = elapsedMs(s, now) / 1000;
  let ended = 0;
  for (const agent of s.agents.values()) if (agent.endedAt !== undefined) ended++;
  if (seconds <= 0) return { tokensPerSecond: 0, agentsPerMinute: 0 };
  return { tokensPerSecond: (s.usage.input + s.usage.output) / seconds, agentsPerMinute: (ended * 60) / seconds };
}

/** What the agent does now: its running tool (with its latest output line), a retry, or its latest text. */
export function activity(agent: AgentView, now: number): string {
  if (agent.retry && agent.state === 'running') {
    const left = agent.retry.at + agent.retry.delayMs - now;
    return `↻ retry ${agent.retry.attempt}${agent.retry.status !== undefined ? ` (${agent.retry.status})` : ''}${left > 0 ? ` in ${formatDuration(left)}` : ''}`;
  }
  const tool = agent.tools[agent.tools.length - 1];
  if (tool && agent.state === 'running') {
    const more = agent.tools.length > 1 ? ` +${agent.tools.length - 1}` : '';
    return `⚙ ${tool.tool}${more} ${tool.output ?? tool.args}`;
  }
  if (agent.reason !== undefined && agent.state !== 'running' && agent.state !== 'completed') return agent.reason;
  if (agent.thinking !== undefined && agent.state === 'running') {
    const line = agent.thinking.trim();
    return line ? `∴ thinking: ${line}` : '∴ thinking…';
  }
  return agent.lastLine;
}

/** The newest transcript lines, with streamed text still in progress and live tool output at the end. */
export function transcriptTail(agent: AgentView, n: number): string[] {
  const lines = agent.transcript.tail(n);
  if (agent.partial.trim() !== '') lines.push(agent.partial);
  for (const tool of agent.tools) if (tool.output) lines.push(`  ⋯ ${tool.tool}: ${tool.output}`);
  return lines.length > n ? lines.slice(lines.length - n) : lines;
}
