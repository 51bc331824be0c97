// Plain progress lines for CI, pipes and --no-dashboard: a line when an agent starts and ends, notable
// events (retries, rate limits, verdicts), a one-line summary every few seconds and the final report.
// A plain subscriber of the event bus, drawing from the same view model as the dashboard.
import { systemClock, type Clock } from '../orchestrator/clock.js';
import type { EventBus } from '../orchestrator/events.js';
import type { MurmurEvent } from '../orchestrator/events.js';
import { formatClock, formatCost, formatDuration, formatTokens, oneLine, truncate } from './format.js';
import {
  agentLabel,
  initialSnapshot,
  isRateLimited,
  isVerdict,
  progress,
  reduce,
  type AgentView,
  type AgentViewState,
  type Snapshot,
} from './view-model.js';
import { plural } from './plural.js';

/** Agent states whose end line already told of a failure. */
const FAILURE_SHOWN: ReadonlySet<AgentViewState> = new Set(['failed', 'timeout', 'budget', 'aborted']);

export interface LineReporterOptions {
  bus: EventBus;
  out: { write(text: string): unknown };
  /** Colour is asked for (say, the output is a terminal); NO_COLOR still turns it off. */
  color?: boolean;
  /** Milliseconds between summary lines; default 5,000. */
  summaryEveryMs?: number;
  clock?: Clock;
  /** For NO_COLOR; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  title?: string;
  model?: string;
}

export interface LineReporter {
  /** Unsubscribes and stops the summary timer. Safe to call twice. */
  stop(): void;
  /** The summary line as it would be printed now. */
  summary(): string;
  readonly snapshot: Snapshot;
}

/** Colour only when asked and allowed: NO_COLOR set to anything non-empty forbids it (no-color.org). */
export function colorAllowed(asked: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return asked && !(env.NO_COLOR !== undefined && env.NO_COLOR !== '');
}

const ENDED_SWARM_AGENTS_KEPT = 1000;
const ENDED: ReadonlySet<AgentViewState> = new Set(['completed', 'failed', 'timeout', 'aborted', 'budget', 'conflict']);

const SGR = { green: 32, red: 31, yellow: 33, cyan: 36, magenta: 35, dim: 2, bold: 1 } as const;
type Style = keyof typeof SGR;

export function startLineReporter(options: LineReporterOptions): LineReporter {
  const clock = options.clock ?? systemClock;
  const every = options.summaryEveryMs ?? 5000;
  if (!(every > 0)) throw new RangeError(`summaryEveryMs must be a positive number of milliseconds, got ${every}`);
  const useColor = colorAllowed(options.color ?? false, options.env);
  const paint = (style: Style, text: string) => (useColor ? `\x1b[${SGR[style]}m${text}\x1b[0m` : text);
  // Lines never show an agent's transcript: one line kept per agent instead of 120, each of a swarm's many rows.
  const snapshot = initialSnapshot({
    title: options.title ?? '',
    model: options.model ?? '',
    now: clock.now(),
    limits: { transcriptLines: 1 },
  });
  const write = (line: string) => {
    try {
      options.out.write(`${line}\n`);
    } catch {
      // A closed pipe must not take the run down with it.
    }
  };
  const stamp = (ts: number) => paint('dim', `[${formatClock(ts - snapshot.startedAt)}]`);
  const who = (agent: AgentView | undefined, id: string) => {
    if (!agent) return id;
    const label = truncate(oneLine(agentLabel(agent)), 80);
    return `${id} (${agent.role || '?'})${label ? ` ${label}` : ''}`;
  };

  const summary = (): string => {
    const p = progress(snapshot);
    // Done is completed: items that failed, were aborted or wait for a person are counted on their own.
    const parts = [`${p.completed}/${p.total} done`];
    if (p.running > 0) parts.push(`${p.running} running`);
    if (p.queued > 0) parts.push(`${p.queued} queued`);
    if (p.rateLimited > 0) parts.push(paint('magenta', `${p.rateLimited} rate-limited`));
    if (p.failed > 0) parts.push(paint('red', `${p.failed} failed`));
    if (p.aborted > 0) parts.push(paint('yellow', `${p.aborted} aborted`));
    if (p.waiting > 0) parts.push(paint('yellow', `${p.waiting} waiting for a person`));
    parts.push(`tokens ${formatTokens(snapshot.usage.input)} in / ${formatTokens(snapshot.usage.output)} out`);
    if (snapshot.costKnown) parts.push(formatCost(snapshot.usage.cost ?? 0));
    if (isRateLimited(snapshot)) parts.push(paint('magenta', 'RATE LIMITED'));
    return parts.join(' · ');
  };

  // A swarm's ended agents leave the view past the newest ENDED_SWARM_AGENTS_KEPT: their lines are printed, the
  // swarm's counts hold the rest, and a swarm of a million items keeps a thousand rows, not a million. The set keeps
  // them in the order they first ended (one that ends again, after a rework, keeps its place).
  const endedSwarmAgents = new Set<string>();
  const retireEnded = (agentId: string) => {
    endedSwarmAgents.add(agentId);
    if (endedSwarmAgents.size <= ENDED_SWARM_AGENTS_KEPT) return;
    const gone = endedSwarmAgents.values().next().value!;
    endedSwarmAgents.delete(gone);
    // One at work again (its rework) stays; it comes back to the set when it ends.
    const view = snapshot.agents.get(gone);
    if (view && ENDED.has(view.state)) snapshot.agents.delete(gone);
  };

  const onEvent = (e: MurmurEvent) => {
    // Before the fold: whether the item's agent already ended with a failure line of its own.
    const agentBefore =
      e.type === 'swarm.item' && e.agentId !== undefined ? snapshot.agents.get(e.agentId)?.state : undefined;
    reduce(snapshot, e);
    switch (e.type) {
      case 'agent.start':
        write(
          `${stamp(e.ts)} ${paint('cyan', '▶')} ${who(snapshot.agents.get(e.agentId), e.agentId)} ${e.resumed ? 'resumed' : 'started'}`,
        );
        break;
      case 'agent.end': {
        const agent = snapshot.agents.get(e.agentId);
        const ok = e.status === 'completed';
        const mark = ok ? paint('green', '✓') : e.status === 'aborted' ? paint('yellow', '■') : paint('red', '✗');
        const facts = `${plural(e.turns, 'turn')} · ${plural(e.toolCalls, 'tool call')} · ${formatTokens(e.usage.input + e.usage.output)} tokens`;
        const reason = e.reason !== undefined ? `: ${truncate(oneLine(e.reason), 200)}` : '';
        const status = ok ? e.status : paint(e.status === 'aborted' ? 'yellow' : 'red', e.status);
        write(
          `${stamp(e.ts)} ${mark} ${who(agent, e.agentId)} ${status} in ${formatDuration(e.durationMs)} · ${facts}${reason}`,
        );
        if (agent?.swarmId !== undefined) retireEnded(e.agentId);
        break;
      }
      case 'model.retry':
        write(
          `${stamp(e.ts)} ${paint('yellow', '↻')} ${e.agentId} retry ${e.attempt}${e.status !== undefined ? ` after ${e.status}` : ''} in ${formatDuration(e.delayMs)}: ${truncate(oneLine(e.reason), 200)}`,
        );
        break;
      case 'swarm.start':
        write(
          `${stamp(e.ts)} swarm ${e.swarmId} started: ${plural(e.items.length, 'item')} (${e.role}) — ${truncate(oneLine(e.description), 120)}`,
        );
        break;
      case 'swarm.item': {
        const reason = e.reason !== undefined ? `: ${truncate(oneLine(e.reason), 200)}` : '';
        const item = `${e.agentId ?? `item ${e.index + 1}`} ${truncate(oneLine(e.item), 80)}`;
        if (e.state === 'rate_limited')
          write(
            `${stamp(e.ts)} ${paint('magenta', '⏸')} ${item} rate limited${e.capacity !== undefined ? `; capacity now ${e.capacity}` : ''}${reason}`,
          );
        else if (isVerdict(e)) {
          const round = e.rounds !== undefined ? ` (round ${e.rounds})` : '';
          write(
            `${stamp(e.ts)} ${e.verdict === 'pass' ? paint('green', '✓') : paint('red', '✗')} ${item} verdict ${e.verdict}${round}${reason}`,
          );
        } else if (e.state === 'conflict') write(`${stamp(e.ts)} ${paint('red', '✗')} ${item} conflict${reason}`);
        // An item that failed after its agent completed (verification, a merge): no agent line said so.
        else if (e.state === 'failed' && (agentBefore === undefined || !FAILURE_SHOWN.has(agentBefore)))
          write(`${stamp(e.ts)} ${paint('red', '✗')} ${item} failed${reason}`);
        break;
      }
      case 'swarm.end': {
        const counts = Object.entries(e.counts)
          .filter(([, n]) => n > 0)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ');
        write(
          `${stamp(e.ts)} swarm ${e.swarmId} ended in ${formatDuration(e.durationMs)}${counts ? `: ${counts}` : ''}`,
        );
        break;
      }
      case 'log':
        if (e.level !== 'info')
          write(`${stamp(e.ts)} ${paint(e.level === 'error' ? 'red' : 'yellow', e.level)} ${oneLine(e.message)}`);
        break;
      case 'run.end': {
        const status = e.status === 'completed' ? paint('green', e.status) : paint('red', e.status);
        write(
          `${stamp(e.ts)} ${paint('bold', 'run')} ${status} in ${formatDuration(e.ts - snapshot.startedAt)} · ${summary()}`,
        );
        lastPrinted = snapshot.version;
        break;
      }
      default:
        break;
    }
  };

  let stopped = false;
  let lastPrinted = -1;
  let timer: unknown;
  const schedule = () => {
    timer = clock.setTimeout(tick, every);
    (timer as { unref?: () => void } | undefined)?.unref?.();
  };
  const tick = () => {
    if (stopped) return;
    schedule();
    // Quiet when nothing happened and nothing runs; otherwise a heartbeat, so CI never sits in silence.
    const running = progress(snapshot).running > 0;
    if (snapshot.version === lastPrinted && !running) return;
    if (snapshot.agents.size === 0 && snapshot.swarms.size === 0) return;
    lastPrinted = snapshot.version;
    write(`${stamp(clock.now())} ${summary()}`);
  };
  const unsubscribe = options.bus.on('*', onEvent);
  schedule();

  return {
    stop() {
      if (stopped) return;
      stopped = true;
      unsubscribe();
      if (timer !== undefined) clock.clearTimeout(timer);
    },
    summary,
    snapshot,
  };
}
