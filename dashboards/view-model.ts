// The dashboard view model: a pure reducer that folds engine events into a snapshot, plus selectors.
// The blessed screen and the plain line renderer both draw from it; tests check it without a terminal.
//
// `reduce` MUTATES the snapshot in place and returns it: with 1,000 agents streaming text, copying the
// snapshot on every event would cost more than the agents. Every change bumps `snapshot.version`, so a
// renderer can tell whether anything changed since it last drew. Memory is bounded by fixed caps per agent
// (`ViewModelLimits`) and for the log.
import type { MurmurEvent, SwarmItemState } from '../orchestrator/events.js';
import { addUsage, emptyUsage, type Usage } from '../orchestrator/types.js';
import { formatDuration, oneLine, truncate } from './format.js';
import { onSwarmItem, zeroSwarmCounts } from './view-swarm.js';
import { log } from './view-log.js';
export * from './view-types.js';
import {
  defaultLimits,
  Ring,
  type AgentView,
  type Snapshot,
  type SwarmView,
  type ViewModelLimits,
} from './view-types.js';
import {
  appendStreamed,
  appendThinking,
  flushPartial,
  lastNonEmptyLine,
  pushLine,
  recordMessage,
} from './transcript-lines.js';
import { plural } from './plural.js';

export interface SnapshotOptions {
  title?: string;
  model?: string;
  /** Start of the elapsed clock (a run.start event moves it). */
  now: number;
  limits?: Partial<ViewModelLimits>;
}

export function initialSnapshot(options: SnapshotOptions): Snapshot {
  const limits = { ...defaultLimits, ...options.limits };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`view model limit ${key} must be a positive integer, got ${String(value)}`);
  }
  return {
    title: options.title ?? '',
    model: options.model ?? '',
    startedAt: options.now,
    agents: new Map(),
    swarms: new Map(),
    usage: emptyUsage(),
    costKnown: false,
    turns: 0,
    toolCalls: 0,
    retries: 0,
    events: 0,
    log: new Ring(limits.logEntries),
    version: 0,
    limits,
  };
}

/** Item, description or prompt: what the agent works on, in a few words. */
export function agentLabel(agent: AgentView): string {
  return agent.item ?? agent.description ?? agent.prompt;
}

// ---- the reducer ----

/** Folds one event into the snapshot (in place) and returns it. Unknown event types are ignored. */
export function reduce(s: Snapshot, e: MurmurEvent): Snapshot {
  s.events++;
  switch (e.type) {
    case 'run.start':
      s.title = e.task;
      s.model = e.model;
      s.mode = e.mode;
      s.startedAt = e.ts;
      s.sessionStartedAt ??= e.ts;
      delete s.endedAt;
      // A resumed session runs again: its last run.end no longer says how it stands.
      delete s.runStatus;
      break;
    case 'run.end':
      s.endedAt = e.ts;
      s.runStatus = e.status;
      if (e.startedAt !== undefined) s.sessionStartedAt = Math.min(e.startedAt, s.sessionStartedAt ?? e.startedAt);
      if (e.durationMs !== undefined) s.sessionMs = e.durationMs;
      log(
        s,
        e.ts,
        e.status === 'completed' ? 'info' : 'error',
        `run ${e.status} after ${formatDuration(e.ts - s.startedAt)}`,
      );
      break;
    case 'agent.start':
      onAgentStart(s, e);
      break;
    case 'agent.end':
      onAgentEnd(s, e);
      break;
    case 'turn.start': {
      const agent = agentFor(s, e.agentId, e.ts);
      agent.turns = Math.max(agent.turns, e.turn);
      agent.streamed = false;
      s.turns++;
      break;
    }
    case 'turn.end': {
      const agent = agentFor(s, e.agentId, e.ts);
      delete agent.retry;
      delete agent.thinking;
      if (e.usage) {
        addUsage(agent.usage, e.usage);
        addUsage(s.usage, e.usage);
        if (e.usage.cost !== undefined) s.costKnown = true;
      }
      if (e.error !== undefined) pushLine(s, agent, `✗ model error: ${e.error}`);
      break;
    }
    case 'tool.start': {
      const agent = agentFor(s, e.agentId, e.ts);
      const args = truncate(oneLine(e.args), s.limits.lineChars);
      delete agent.thinking;
      agent.tools.push({ callId: e.callId, tool: e.tool, args, since: e.ts });
      agent.toolCalls++;
      s.toolCalls++;
      pushLine(s, agent, `⚙ ${e.tool} ${args}`);
      break;
    }
    case 'tool.update': {
      const tool = agentFor(s, e.agentId, e.ts).tools.find((t) => t.callId === e.callId);
      const line = lastNonEmptyLine(e.text);
      if (tool && line) tool.output = truncate(line, s.limits.lineChars);
      break;
    }
    case 'tool.end': {
      const agent = agentFor(s, e.agentId, e.ts);
      const index = agent.tools.findIndex((t) => t.callId === e.callId);
      if (index >= 0) agent.tools.splice(index, 1);
      if (e.isError) agent.toolErrors++;
      break;
    }
    case 'message.delta': {
      const agent = agentFor(s, e.agentId, e.ts);
      if (e.thinking) {
        appendThinking(s, agent, e.text);
        break;
      }
      delete agent.thinking;
      agent.streamed = true;
      appendStreamed(s, agent, e.text);
      break;
    }
    case 'message':
      recordMessage(s, agentFor(s, e.agentId, e.ts), e.role, e.message);
      break;
    case 'message.synthetic':
      pushLine(s, agentFor(s, e.agentId, e.ts), `⟵ ${e.kind}${e.taskId ? ` (task ${e.taskId})` : ''}`);
      break;
    case 'model.retry': {
      const agent = agentFor(s, e.agentId, e.ts);
      const retry: NonNullable<AgentView['retry']> = {
        attempt: e.attempt,
        delayMs: e.delayMs,
        at: e.ts,
        reason: oneLine(e.reason),
      };
      if (e.status !== undefined) retry.status = e.status;
      agent.retry = retry;
      s.retries++;
      const what = `retry ${e.attempt}${e.status !== undefined ? ` after ${e.status}` : ''} in ${formatDuration(e.delayMs)}`;
      pushLine(s, agent, `↻ ${what}: ${retry.reason}`);
      log(s, e.ts, 'warn', `${agent.id} ${what}: ${retry.reason}`, agent.id);
      break;
    }
    case 'swarm.start': {
      const swarm: SwarmView = {
        id: e.swarmId,
        description: oneLine(e.description),
        role: e.role,
        startedAt: e.ts,
        items: e.items.map(() => 'queued' as SwarmItemState),
        counts: zeroSwarmCounts(),
      };
      swarm.counts.queued = e.items.length;
      if (e.maxConcurrency !== undefined) swarm.maxConcurrency = e.maxConcurrency;
      s.swarms.set(e.swarmId, swarm);
      log(
        s,
        e.ts,
        'info',
        `swarm ${e.swarmId} started: ${plural(e.items.length, 'item')} (${e.role}) — ${swarm.description}`,
      );
      break;
    }
    case 'swarm.item':
      onSwarmItem(s, e);
      break;
    case 'swarm.capacity': {
      // The controller says when a rate-limit hold starts and ends; its word wins over the inference above.
      const swarm = s.swarms.get(e.swarmId);
      if (!swarm) break;
      swarm.capacity = e.capacity;
      if (e.limited && !swarm.hold) swarm.hold = { since: e.ts };
      if (!e.limited && swarm.hold) delete swarm.hold;
      if (!swarm.hold) swarm.peakCapacity = Math.max(swarm.peakCapacity ?? 0, e.capacity);
      break;
    }
    case 'swarm.end': {
      const swarm = s.swarms.get(e.swarmId);
      if (swarm) {
        swarm.endedAt = e.ts;
        delete swarm.hold;
      }
      const counts = Object.entries(e.counts)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ');
      log(
        s,
        e.ts,
        'info',
        `swarm ${e.swarmId} ended after ${formatDuration(e.durationMs)}${counts ? ` (${counts})` : ''}`,
      );
      break;
    }
    case 'task.start':
    case 'task.end': {
      const agent = agentFor(s, e.agentId, e.ts);
      const text =
        e.type === 'task.start'
          ? `⧗ task ${e.taskId} started: ${oneLine(e.description)}`
          : `⧗ task ${e.taskId} ${e.status ?? 'ended'}`;
      pushLine(s, agent, text);
      if (e.type === 'task.end' && e.status !== undefined && e.status !== 'completed')
        log(s, e.ts, 'warn', `${agent.id} ${text.slice(2)}`, agent.id);
      break;
    }
    case 'todo.update': {
      const agent = agentFor(s, e.agentId, e.ts);
      agent.todos = e.todos.map((t) => ({ title: truncate(oneLine(t.title), s.limits.lineChars), status: t.status }));
      const done = e.todos.filter((t) => t.status === 'done').length;
      pushLine(s, agent, `☐ todo list: ${done}/${e.todos.length} done`);
      break;
    }
    case 'log':
      log(s, e.ts, e.level, oneLine(e.message), e.agentId);
      break;
    default:
      s.events--;
      return s;
  }
  s.version++;
  return s;
}

function newAgent(s: Snapshot, id: string, ts: number): AgentView {
  return {
    id,
    role: '',
    prompt: '',
    state: 'running',
    startedAt: ts,
    turns: 0,
    toolCalls: 0,
    toolErrors: 0,
    usage: emptyUsage(),
    tools: [],
    lastLine: '',
    transcript: new Ring(s.limits.transcriptLines),
    partial: '',
    order: s.agents.size,
    usageAtStart: emptyUsage(),
    streamed: false,
  };
}

/** The agent's row; events for an agent never announced (a dashboard started late) create one. */
function agentFor(s: Snapshot, id: string, ts: number): AgentView {
  let agent = s.agents.get(id);
  if (!agent) {
    agent = newAgent(s, id, ts);
    s.agents.set(id, agent);
  }
  return agent;
}

function onAgentStart(s: Snapshot, e: Extract<MurmurEvent, { type: 'agent.start' }>): void {
  const agent = agentFor(s, e.agentId, e.ts);
  agent.role = e.role;
  agent.prompt = truncate(oneLine(e.prompt), s.limits.lineChars);
  if (e.parentId !== undefined) agent.parentId = e.parentId;
  if (e.swarmId !== undefined) agent.swarmId = e.swarmId;
  if (e.item !== undefined) agent.item = oneLine(e.item);
  if (e.description !== undefined) agent.description = oneLine(e.description);
  if (e.model !== undefined) agent.model = e.model;
  agent.state = 'running';
  agent.startedAt = e.ts;
  delete agent.endedAt;
  delete agent.reason;
  delete agent.retry;
  agent.tools = [];
  agent.usageAtStart = { ...agent.usage };
  pushLine(s, agent, `▶ ${e.resumed ? 'resumed' : 'started'} (${e.role}): ${agent.prompt}`);
}

function onAgentEnd(s: Snapshot, e: Extract<MurmurEvent, { type: 'agent.end' }>): void {
  const agent = agentFor(s, e.agentId, e.ts);
  if (!agent.role) agent.role = e.role;
  flushPartial(s, agent);
  agent.state = e.status;
  agent.endedAt = e.ts;
  agent.tools = [];
  delete agent.retry;
  if (e.reason !== undefined) agent.reason = oneLine(e.reason);
  // agent.end's usage is authoritative for the run: correct whatever the turn events missed.
  const expected = addUsage({ ...agent.usageAtStart }, e.usage);
  const delta: Usage = {
    input: expected.input - agent.usage.input,
    output: expected.output - agent.usage.output,
    cacheRead: expected.cacheRead - agent.usage.cacheRead,
    cacheWrite: expected.cacheWrite - agent.usage.cacheWrite,
  };
  if (e.usage.cost !== undefined) {
    delta.cost = (expected.cost ?? 0) - (agent.usage.cost ?? 0);
    s.costKnown = true;
  }
  addUsage(s.usage, delta);
  agent.usage = expected;
  const summary = `${e.status} in ${formatDuration(e.durationMs)}${e.reason ? `: ${agent.reason}` : ''}`;
  pushLine(s, agent, `■ ${summary}`);
  if (e.status !== 'completed')
    log(s, e.ts, e.status === 'aborted' ? 'warn' : 'error', `${agent.id} ${agentLabel(agent)} ${summary}`, agent.id);
}

export * from './view-selectors.js';
export { isVerdict } from './view-swarm.js';
