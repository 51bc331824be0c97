// One run's lifecycle, the Run's steps (run.ts), the same for every front end (the command line, `murmur mcp serve`,
// the scheduled-run launcher and the library): check the request, announce the run (run.start), run the task, the swarm or the
// resumed session on the engine, announce its end (run.end) and return what happened as data. A request refused
// before anything started is a value naming the part at fault; no event is emitted and nothing is saved.
import type { Engine, RunOutcome } from '../orchestrator/engine.js';
import { builtinProfile } from '../roles/profile.js';
import type { ItemResult, ItemResults } from '../swarm/report.js';
import type { SwarmRun } from '../swarm/runner.js';
import type { Environment } from '../orchestrator/environment.js';
import { runReport, swarmReport, withItemUsage, type RunReport, type SwarmReport } from './reports.js';
import type { QueueTarget, SwarmLaunch, SwarmStatus } from './swarm.js';
import { restoreOn, type Resumable } from './resume.js';
import { withRunOutput, type OutputSpec } from './output.js';
import { addMessage, continueProblem } from './continue.js';

export type RunRequest =
  /** The main agent (or `agent`: a role or a defined agent's name) on a task; `title` for screens (default: the task). */
  | { kind: 'task'; task: string; agent?: string; title?: string; output?: OutputSpec }
  /** One subagent per item, without a main agent; `onItem` hears each item's result as it ends. */
  | { kind: 'swarm'; launch: SwarmLaunch; onItem?: ItemListener }
  /**
   * A saved session, continued (a swarm finishes only the items that had not completed); `queue` for a queue swarm;
   * `message`: a run's conversation takes it as the person's next message (continue.ts).
   */
  | { kind: 'resume'; resumable: Resumable; queue?: QueueTarget; onItem?: ItemListener; message?: string };

/** Hears a swarm item's result as it ends (and, on a resume, those that ended before). Must not throw. */
export type ItemListener = (result: ItemResult) => void;

export interface RunFinished {
  kind: 'run';
  outcome: RunOutcome;
}

export interface SwarmFinished {
  kind: 'swarm';
  status: SwarmStatus;
  /** One row per item, in input order (a big swarm's read from its session as iterated). */
  results: ItemResults;
  /** The run as a whole (usage, agents, session), with the swarm's status. */
  outcome: RunOutcome;
}

export type Finished = RunFinished | SwarmFinished;

/**
 * A request refused before it started: the part at fault (`agent`, `swarm`, `session`, a resume's `answers`) and why,
 * with what is accepted.
 */
export interface Refused {
  part: 'agent' | 'swarm' | 'session' | 'answers';
  message: string;
}

export type LifecycleResult = { ok: true; finished: Finished } | { ok: false; refused: Refused };

/** A swarm's title: the one given, else the template's first line and the item count. */
export function swarmTitle(template: string, items: readonly string[], given?: string): string {
  return given ?? `${template.split('\n', 1)[0]!.slice(0, 60)} × ${items.length}`;
}

function letGoOfItems(launch: SwarmLaunch): void {
  launch.items = [];
  delete launch.prompts;
  delete launch.inputs;
}

function refused(part: Refused['part'], message: string): LifecycleResult {
  return { ok: false, refused: { part, message } };
}

function announce(engine: Engine, mode: 'run' | 'swarm', title: string): void {
  engine.bus.emit({ type: 'run.start', mode, task: title, model: engine.options.provider.name });
}

function ended(engine: Engine, finished: Finished): LifecycleResult {
  const { status, usage, interruptions, startedAt, durationMs } = finished.outcome;
  engine.bus.emit({
    type: 'run.end',
    status,
    usage,
    ...(interruptions && interruptions.length > 0 ? { waiting: interruptions.length } : {}),
    ...(startedAt !== undefined ? { startedAt } : {}),
    ...(durationMs !== undefined ? { durationMs } : {}),
  });
  return { ok: true, finished };
}

/** Why the run was aborted (what the caller gave), or undefined when it was not. */
function abortReason(engine: Engine): string | undefined {
  return engine.signal.aborted ? String(engine.signal.reason) : undefined;
}

/** A run aborted before its main agent started: nothing ran and nothing new is saved (a new session is discarded). */
function notStarted(engine: Engine, sessionId?: string): RunFinished {
  const outcome: RunOutcome = {
    status: 'aborted',
    result: '',
    reason: abortReason(engine) ?? 'aborted',
    usage: { ...engine.agentTree.runUsage },
    agents: engine.agentTree.summaries(),
  };
  if (sessionId !== undefined) outcome.sessionId = sessionId;
  return { kind: 'run', outcome: engine.withPast(outcome) };
}

// The swarm machinery (runner, worktrees, git) loads with the first swarm, not for a run of one agent.
const swarms = () => import('./swarm.js');

async function finishSwarm(engine: Engine, run: SwarmRun, onItem?: ItemListener): Promise<LifecycleResult> {
  const ran = await (await swarms()).runSwarmOn(engine, run, onItem);
  const { status, reason: lost } = ran;
  const results = withItemUsage(ran.results, engine.agentTree.records);
  const outcome = { status, result: '', usage: { ...engine.agentTree.runUsage } } as RunOutcome;
  // Made when read: a big swarm's agents are a row each (the reports read the rows' usage, not this list).
  Object.defineProperty(outcome, 'agents', {
    get: () => engine.agentTree.summaries(),
    enumerable: true,
    configurable: true,
  });
  // An aborted swarm says why (the caller's reason), then whether its records are incomplete.
  const why = status === 'aborted' ? abortReason(engine) : undefined;
  const reason = why !== undefined && lost !== undefined ? `${why}; ${lost}` : (why ?? lost);
  if (reason !== undefined) outcome.reason = reason;
  if (engine.session) outcome.sessionId = engine.session.id;
  return ended(engine, { kind: 'swarm', status, results, outcome: engine.withPast(outcome) });
}

/** Runs a request on an engine built for it (a resume's engine reopens its session); the caller closes the engine. */
export async function runOnEngine(engine: Engine, request: RunRequest, env: Environment): Promise<LifecycleResult> {
  switch (request.kind) {
    case 'task': {
      const profile = request.agent === undefined ? builtinProfile('main') : engine.profile(request.agent);
      if (typeof profile === 'string') return refused('agent', `${JSON.stringify(request.agent)}: ${profile}`);
      announce(engine, 'run', request.title ?? request.task);
      if (engine.signal.aborted) return ended(engine, notStarted(engine));
      const answering = request.output ? { ...profile, output: request.output } : profile;
      return ended(engine, {
        kind: 'run',
        outcome: withRunOutput(engine, await engine.runTask(request.task, answering)),
      });
    }
    case 'swarm': {
      const { launch } = request;
      const prepared = await (await swarms()).prepareSwarm(engine, undefined, launch, env);
      if (!prepared.ok) return refused('swarm', prepared.error);
      announce(engine, 'swarm', swarmTitle(launch.promptTemplate ?? '', launch.items, launch.description));
      // The run holds the items now (a session's swarm, in its queued file): the request lets go of its lists,
      // which every frame up to the caller would otherwise keep for the whole run (a million labels, say).
      letGoOfItems(launch);
      return finishSwarm(engine, prepared.run, request.onItem);
    }
    case 'resume': {
      const { resumable, message } = request;
      const cannot = message !== undefined ? continueProblem(resumable, message) : undefined;
      if (cannot !== undefined) return refused('session', cannot);
      // Nothing is saved until the resumed run starts: a resume refused here leaves the session as it was.
      restoreOn(engine, resumable);
      if (message !== undefined) addMessage(engine, message);
      if (resumable.swarm) {
        const prepared = await (
          await swarms()
        ).restoreSwarm(engine, resumable.swarm, undefined, env, request.queue, resumable.retrying !== undefined);
        if (!prepared.ok) return refused('session', prepared.error);
        announce(engine, 'swarm', resumable.title);
        return finishSwarm(engine, prepared.run, request.onItem);
      }
      announce(engine, 'run', resumable.title);
      // Aborted before it went on: the session stays as it was, to be resumed later.
      if (engine.signal.aborted) return ended(engine, notStarted(engine, resumable.session.id));
      return ended(engine, { kind: 'run', outcome: withRunOutput(engine, await engine.continueMain()) });
    }
  }
}

/**
 * The report of a finished request: what `--json` prints and the library returns for it. (Here, not in reports.ts:
 * the public declarations reach reports.ts, and these types would pull the queue's into them.)
 */
export function reportOf(finished: SwarmFinished): SwarmReport;
export function reportOf(finished: RunFinished): RunReport;
export function reportOf(finished: Finished): RunReport | SwarmReport;
export function reportOf(finished: Finished): RunReport | SwarmReport {
  if (finished.kind === 'run') return runReport(finished.outcome);
  const { results, status, outcome } = finished;
  return swarmReport(results, status, outcome.sessionId, outcome.reason, outcome);
}
