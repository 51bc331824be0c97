// The view model's swarm part: item states and their counts, the rate-limit hold, verdicts and what the log says
// about items. Folded in place by `reduce` (view-model.ts), as the rest of the snapshot.
import type { MurmurEvent, SwarmItemState } from '../orchestrator/events.js';
import { oneLine } from './format.js';
import type { Snapshot, SwarmView } from './view-types.js';
import { log } from './view-log.js';

const SWARM_STATES: readonly SwarmItemState[] = [
  'queued',
  'launched',
  'rate_limited',
  'completed',
  'failed',
  'aborted',
  'conflict',
  'verifying',
  'waiting',
];

export function zeroSwarmCounts(): Record<SwarmItemState, number> {
  const counts = {} as Record<SwarmItemState, number>;
  for (const state of SWARM_STATES) counts[state] = 0;
  return counts;
}

export function onSwarmItem(s: Snapshot, e: Extract<MurmurEvent, { type: 'swarm.item' }>): void {
  const swarm = s.swarms.get(e.swarmId);
  if (swarm) {
    while (swarm.items.length <= e.index) {
      swarm.items.push('queued');
      swarm.counts.queued++;
    }
    const before = swarm.items[e.index]!;
    swarm.counts[before]--;
    swarm.counts[e.state]++;
    swarm.items[e.index] = e.state;
    if (e.capacity !== undefined) swarm.capacity = e.capacity;
    if (e.state === 'rate_limited' && !swarm.hold) {
      const hold: NonNullable<SwarmView['hold']> = { since: e.ts };
      const before = swarm.peakCapacity;
      if (before !== undefined) hold.capacityBefore = before;
      swarm.hold = hold;
    }
    if (swarm.hold && holdIsOver(swarm)) delete swarm.hold;
    if (!swarm.hold && swarm.capacity !== undefined)
      swarm.peakCapacity = Math.max(swarm.peakCapacity ?? 0, swarm.capacity);
  }

  const agent = e.agentId !== undefined ? s.agents.get(e.agentId) : undefined;
  const failureShown =
    agent !== undefined &&
    (agent.state === 'failed' || agent.state === 'timeout' || agent.state === 'budget' || agent.state === 'aborted');
  // The agent's own start and end events say whether it is running; item states fill in the rest
  // (waiting again after a rate limit, being verified, a verdict or a merge conflict after it ended).
  if (agent && agent.state !== 'running') {
    if (e.state === 'launched') {
      // launched comes just before agent.start: nothing to show yet.
    } else agent.state = e.state;
  }
  if (agent && e.verdict !== undefined) agent.verdict = e.verdict;
  if (agent && e.rounds !== undefined) agent.rounds = e.rounds;
  if (agent && e.reason !== undefined && (e.state === 'failed' || e.state === 'conflict' || e.state === 'rate_limited'))
    agent.reason = oneLine(e.reason);

  const who = `${e.agentId ?? `item ${e.index + 1}`} ${oneLine(e.item)}`;
  const reason = e.reason !== undefined ? `: ${oneLine(e.reason)}` : '';
  if (e.state === 'rate_limited') {
    log(
      s,
      e.ts,
      'warn',
      `${who} rate limited${e.capacity !== undefined ? `; capacity now ${e.capacity}` : ''}${reason}`,
      e.agentId,
    );
  } else if (isVerdict(e)) {
    const round = [
      e.rounds !== undefined ? `round ${e.rounds}` : '',
      e.verifierId !== undefined ? `by ${e.verifierId}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    log(
      s,
      e.ts,
      e.verdict === 'pass' ? 'info' : 'warn',
      `${who} verdict ${e.verdict}${round ? ` (${round})` : ''}${reason}`,
      e.agentId,
    );
  } else if (e.state === 'conflict' || (e.state === 'failed' && !failureShown)) {
    log(s, e.ts, 'error', `${who} ${e.state}${reason}`, e.agentId);
  }
}

/**
 * A verifier's verdict as it comes in. The item's final state repeats the last verdict (for its row), so only
 * the verifying event counts as news: each verdict is logged once.
 */
export function isVerdict(
  e: Extract<MurmurEvent, { type: 'swarm.item' }>,
): e is Extract<MurmurEvent, { type: 'swarm.item' }> & { verdict: 'pass' | 'fail' } {
  return e.state === 'verifying' && e.verdict !== undefined;
}

/** The hold ends when nothing waits on a rate limit and capacity is back, or when nothing is left to hold back. */
function holdIsOver(swarm: SwarmView): boolean {
  if (swarm.counts.rate_limited > 0) return false;
  if (swarm.counts.queued === 0) return true;
  const before = swarm.hold?.capacityBefore;
  return before === undefined || swarm.capacity === undefined || swarm.capacity >= before;
}
