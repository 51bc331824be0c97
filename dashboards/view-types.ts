// The view model's data: what the dashboard and the plain lines know about a run. Types and the bounded ring,
// with no behaviour of the reducer, so the reducer, its selectors and the transcript helpers can all use them.
import type { SwarmItemState } from '../orchestrator/events.js';
import type { Usage } from '../orchestrator/types.js';

export type AgentViewState =
  | 'queued'
  | 'running'
  | 'rate_limited'
  | 'verifying'
  | 'waiting'
  | 'completed'
  | 'failed'
  | 'timeout'
  | 'aborted'
  | 'budget'
  | 'conflict';

export interface ViewModelLimits {
  /** Transcript lines kept per agent (the Enter pane shows the tail). */
  transcriptLines: number;
  /** Characters kept per transcript line and per activity line. */
  lineChars: number;
  /** Entries kept in the log of notable events. */
  logEntries: number;
}

export const defaultLimits: ViewModelLimits = { transcriptLines: 120, lineChars: 300, logEntries: 200 };

/** A fixed-capacity buffer that keeps the newest entries. */
export class Ring<T> {
  private items: T[] = [];
  private start = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`ring capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    if (this.items.length < this.capacity) this.items.push(item);
    else {
      this.items[this.start] = item;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  /** The newest `n` entries (all by default), oldest first. */
  tail(n = this.items.length): T[] {
    const all =
      this.start === 0 ? this.items.slice() : [...this.items.slice(this.start), ...this.items.slice(0, this.start)];
    return n >= all.length ? all : all.slice(all.length - n);
  }
}

export interface ToolInFlight {
  callId: string;
  tool: string;
  args: string;
  since: number;
  /** The last line of the tool's streamed output. */
  output?: string;
}

export interface AgentView {
  id: string;
  role: string;
  parentId?: string;
  swarmId?: string;
  item?: string;
  description?: string;
  /** The first line of the task. */
  prompt: string;
  model?: string;
  state: AgentViewState;
  /** Why the agent (or its swarm item) failed or stopped. */
  reason?: string;
  verdict?: 'pass' | 'fail';
  rounds?: number;
  /** When this run started (a resumed agent restarts its clock). */
  startedAt: number;
  endedAt?: number;
  /** Turns in the agent's life so far. */
  turns: number;
  toolCalls: number;
  toolErrors: number;
  usage: Usage;
  tools: ToolInFlight[];
  /** The latest line of streamed or final assistant text. */
  lastLine: string;
  retry?: { attempt: number; status?: number; delayMs: number; at: number; reason: string };
  transcript: Ring<string>;
  /** Streamed text after the last newline, not yet in the transcript. */
  partial: string;
  /** Order of first appearance: a stable tie-breaker for sorting. */
  order: number;
  /** Internal: usage before the current run, so agent.end's per-run usage can be reconciled. */
  usageAtStart: Usage;
  /** Internal: whether text of the current turn was streamed (then the final message repeats it). */
  streamed: boolean;
  /** Set while the model streams its reasoning: the newest line of it ('' before the first line ends). */
  thinking?: string;
  /** The agent's todo list (todo_list), newest version. */
  todos?: { title: string; status: 'pending' | 'in_progress' | 'done' }[];
}

export interface SwarmView {
  id: string;
  description: string;
  role: string;
  startedAt: number;
  endedAt?: number;
  /** The state of every item, by index. */
  items: SwarmItemState[];
  counts: Record<SwarmItemState, number>;
  capacity?: number;
  maxConcurrency?: number;
  /** The highest capacity seen outside a rate-limit hold. */
  peakCapacity?: number;
  /** Set while rate-limit adaptation holds the swarm back. */
  hold?: { since: number; capacityBefore?: number };
}

export type LogLevel = 'info' | 'warn' | 'error';

export interface LogEntry {
  ts: number;
  level: LogLevel;
  text: string;
  agentId?: string;
}

export interface Snapshot {
  title: string;
  model: string;
  mode?: 'run' | 'swarm';
  startedAt: number;
  endedAt?: number;
  runStatus?: string;
  /** The session's first start and the time its runs took in all (the last run.end's, across resumes; while a
   * resumed run goes on, its earlier runs' time). */
  sessionStartedAt?: number;
  sessionMs?: number;
  agents: Map<string, AgentView>;
  swarms: Map<string, SwarmView>;
  usage: Usage;
  /** Whether any usage carried a price. */
  costKnown: boolean;
  turns: number;
  toolCalls: number;
  retries: number;
  events: number;
  log: Ring<LogEntry>;
  /** Bumped on every change. */
  version: number;
  limits: ViewModelLimits;
}
