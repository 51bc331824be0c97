// The engine: the agent tree, background tasks, timers, the session on disk and the tool registry, wired
// together once. It is private to a Run (host/run.ts), which drives it; dashboards only subscribe to its bus.
import { setMaxListeners } from 'node:events';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildToolRegistry } from '../tools/registry.js';
import { profileOrProblem, type DefinitionProblem } from '../roles/definitions.js';
import { builtinProfile, type AgentProfile } from '../roles/profile.js';
import { makeConfigurer, type RuntimeDeps } from './agent-runtime.js';
import { toolPortsFrom } from './tool-ports.js';
import { processLeaseServer, EngineShellBridge } from './shell-bridge.js';
import { type Clock, systemClock } from './clock.js';
import { durationMs, type MurmurConfig } from './config.js';
import { EventBus } from './events.js';
import { defaultRetryPolicy } from './models/retry.js';
import { AgentTree, type AgentRecord, type AgentTreeOptions } from './agent-tree.js';
import { newSessionId, type SessionStore } from './session.js';
import { TaskRegistry } from './tasks.js';
import { TimerService } from './timers.js';
import { AgentDirectory } from './agent-directory.js';
import { RunRecords } from './run-records.js';
import { sharedAppendPool } from './append-pool.js';
import { hiddenByDenyRules } from './permissions/hidden-paths.js';
import { restoreAgents, type RestoreOptions } from './restore-agents.js';
import { definitionsFor, pipelinePorts } from './engine-definitions.js';
import type { SessionState } from './saved-state.js';
import type { RunStatus, SessionStatus } from '../protocol/run-status.js';
import { runStateOf } from './run-state.js';
import { RunSegments } from './run-segments.js';
import { settleWork } from './settle-work.js';
import { CRON_TOOL_NAMES, limitsFrom, type EngineOptions, type RunOutcome } from './engine-options.js';

export type { AgentSummary } from './types.js';
export type { RunSettings, SessionState } from './saved-state.js';

export { CRON_TOOL_NAMES, type EngineOptions, type RunOutcome } from './engine-options.js';

export class Engine {
  readonly bus: EventBus;
  readonly agentTree: AgentTree;
  readonly tasks: TaskRegistry;
  readonly timers: TimerService;
  readonly session: SessionStore | undefined;
  /** murmur-tools leases of this engine's agents (undefined when the bridge is off). */
  readonly shellBridge: EngineShellBridge | undefined;
  /**
   * The session's transcripts and events.jsonl (what `murmur serve` tails live and `murmur report` folds), written
   * by subscribers of the bus through the append pool; none without a session.
   */
  private readonly records: RunRecords | undefined;
  readonly definitions: ReadonlyMap<string, AgentProfile>;
  /** What was wrong with the agent definition files (also emitted as log events when the engine starts). */
  readonly definitionProblems: readonly DefinitionProblem[] = [];
  readonly cwd: string;
  readonly config: MurmurConfig;
  /** When the session began: this engine's start, or the saved session's once restored. */
  private created: number;
  /** Each stretch a process ran this session (a resumed one keeps its earlier ones). */
  private readonly segments: RunSegments;
  /** The main agent's task (saved as the session's title). */
  private task: string | undefined;
  /** The session's own swarm's newest state (a swarm session's; swarm/ reads it back on a resume). */
  private swarmState: unknown;
  /** Swarms started in this run so far: the next is `s-<count + 1>` (a resumed swarm raises it past its own). */
  private swarmCount = 0;
  /** Names this run (worktree branches): the session's id, else one made up for this engine. */
  readonly runId: string;
  private readonly clock: Clock;
  private status: SessionStatus = 'running';
  private abortedWhileBusy = false;
  /** Nothing is saved before the run starts: a resume refused after reopening its session leaves it as it was. */
  private begun = false;
  private readonly stopController = (() => {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    return controller;
  })();

  constructor(readonly options: EngineOptions<Engine>) {
    this.cwd = realpathSync(resolve(options.cwd));
    this.config = options.config ?? {};
    this.clock = options.clock ?? systemClock;
    this.bus = options.bus ?? new EventBus(() => this.clock.now());
    this.created = this.clock.now();
    this.segments = new RunSegments(() => this.clock.now());
    const env = options.env ?? process.env;
    this.session = options.session === false ? undefined : options.session;
    this.runId = this.session?.id ?? newSessionId(this.clock.now());
    const appendPool = options.appendPool ?? sharedAppendPool();
    if (this.session) this.records = new RunRecords(this.bus, this.session, appendPool);
    const loaded = definitionsFor(options, this.cwd, env, this.bus);
    this.definitions = loaded.profiles;
    this.definitionProblems = loaded.problems;

    // Built in dependency order: the agent directory first (background results and timers are delivered through it),
    // then the task registry and timers, then the tools and runtime that use them, then the agent tree that fills it.
    const directory = options.directory ?? new AgentDirectory(this.session?.dir);
    const saveState = () => this.saveState();
    this.tasks = new TaskRegistry({
      dir: this.session ? resolve(this.session.dir, 'tasks') : resolve(this.cwd, '.murmur', 'tasks-unsaved'),
      bus: this.bus,
      clock: this.clock,
      notify: directory.deliver,
      onChange: saveState,
      pool: appendPool,
    });
    this.timers = new TimerService(directory.deliver, this.clock);
    // A stopped agent's timers would keep the run alive and then fire for nobody.
    this.bus.on('agent.end', (event) => {
      if (event.status === 'aborted' || event.status === 'timeout') this.timers.cancel(event.agentId);
    });

    const features = {
      delegation: this.config.features?.delegation ?? true,
      webSearch: this.config.features?.webSearch ?? true,
    };
    // MURMUR_DISABLE_CRON=1: neither timers nor scheduled tasks in any agent's catalog.
    const withoutTools = env.MURMUR_DISABLE_CRON === '1' ? CRON_TOOL_NAMES : [];
    const tools = buildToolRegistry(
      toolPortsFrom(options, { tasks: this.tasks, timers: this.timers, bus: this.bus }, withoutTools),
    );
    const retry = {
      maxAttempts: this.config.retry?.maxAttempts ?? defaultRetryPolicy.maxAttempts,
      baseDelayMs: durationMs(this.config.retry?.baseDelay, defaultRetryPolicy.baseDelayMs),
      maxDelayMs: durationMs(this.config.retry?.maxDelay, defaultRetryPolicy.maxDelayMs),
    };
    const runtime: RuntimeDeps = {
      cwd: this.cwd,
      bus: this.bus,
      workspace: {
        root: this.cwd,
        extraRoots: (this.config.workspace?.extraRoots ?? []).map((p) => resolve(this.cwd, p)),
        allowSensitive: this.config.workspace?.allowSensitive ?? [],
        hidden: hiddenByDenyRules(this.config),
      },
      // Added to the built-in secret names, never instead of them.
      env: {
        secretPatterns: this.config.shell?.secretEnvPatterns ?? [],
        ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      },
      tools,
      capabilities: options.provider.capabilities,
      tasks: this.tasks,
      definitions: this.definitions,
      frontEnd: options.frontEnd ?? 'cli',
      features,
      maxTurns: this.config.maxTurns ?? 200,
    };
    if (this.session) runtime.session = this.session;
    if (options.mcp) Object.assign(runtime, options.mcp);
    if (options.interaction?.skills) runtime.skills = options.interaction.skills;
    if (options.swarmFor && options.swarmTool) runtime.swarmFor = (record) => options.swarmFor!(this, record);
    Object.assign(runtime, pipelinePorts(options));
    if (this.config.tools?.shellBridge !== false && options.shellBridge !== false) {
      const tasks = this.tasks;
      this.shellBridge = new EngineShellBridge(this.bus, processLeaseServer, {
        hasTasks: (id) => tasks.activeCount(id) > 0,
        isRunning: (id) => directory.get(id)?.agent.status === 'running',
      });
      runtime.shellBridge = this.shellBridge;
    }
    if (this.config.effort) runtime.effort = this.config.effort;

    const treeOptions: AgentTreeOptions = {
      bus: this.bus,
      provider: options.provider,
      configure: makeConfigurer(runtime),
      limits: limitsFrom(this.config, options.limits),
      retry,
      clock: this.clock,
      directory,
      onChange: saveState,
    };
    if (options.providerFor) treeOptions.providerFor = options.providerFor;
    if (options.random) treeOptions.random = options.random;
    if (options.modelGate) treeOptions.gate = options.modelGate;
    this.agentTree = new AgentTree(treeOptions);
  }

  /** The profile of a role or defined agent name, or an error listing the known ones. */
  profile(name: string): AgentProfile | string {
    return profileOrProblem(name, { profiles: this.definitions, problems: this.definitionProblems });
  }

  /** Runs a task as the main agent (or as a defined agent) and waits for every piece of background work. */
  async runTask(task: string, profile: AgentProfile = builtinProfile('main')): Promise<RunOutcome> {
    this.begin();
    this.task = task;
    const spawned = this.agentTree.spawn({ profile, description: 'main' });
    if (!spawned.ok) throw new Error(spawned.error);
    const main = spawned.record;
    this.saveState();
    await this.agentTree.run(main, task, { timeoutMs: profile.timeoutMs ?? Number.POSITIVE_INFINITY });
    await this.settle();
    return this.finish(main, await this.recordsLost());
  }

  /** Continues the main agent of a resumed session. */
  async continueMain(): Promise<RunOutcome> {
    const main = this.agentTree.get('main');
    if (!main) throw new Error('this session has no main agent to continue');
    this.begin();
    if (main.agent.status !== 'completed')
      await this.agentTree.run(main, undefined, { timeoutMs: Number.POSITIVE_INFINITY });
    await this.settle();
    return this.finish(main, await this.recordsLost());
  }

  private finish(main: AgentRecord, lost: string | undefined): RunOutcome {
    let status = main.agent.status;
    let reason = main.agent.reason;
    // main had answered, but the run was aborted while work it started was still going: not completed.
    if (status === 'completed' && this.abortedWhileBusy) {
      status = 'aborted';
      const given = String(this.signal.reason);
      reason = given !== 'aborted' ? given : 'the run was aborted before the background work finished';
    }
    // Work done, but not all of it on disk: never "completed" with a transcript or event missing.
    if (lost !== undefined) {
      if (status === 'completed') status = 'failed';
      reason = reason === undefined ? lost : `${reason}; ${lost}`;
    }
    // A main agent that cannot have ended (still running, idle, interrupted) ends the run `failed`; saved, the session
    // says `interrupted`, to be resumed.
    const ended: RunStatus | undefined =
      status === 'running' || status === 'idle' || status === 'interrupted' ? undefined : status;
    this.markEnded(ended ?? 'interrupted');
    this.saveState();
    const outcome: RunOutcome = {
      status: ended ?? 'failed',
      result: main.agent.state.lastText,
      usage: { ...this.agentTree.runUsage },
      agents: this.agentTree.summaries(),
    };
    if (reason !== undefined) outcome.reason = reason;
    if (this.session) outcome.sessionId = this.session.id;
    return this.withPast(outcome);
  }

  /** The run's outcome with what it waits for and its whole life so far (start and duration across resumes). */
  withPast(outcome: RunOutcome): RunOutcome {
    const pending = this.options.interruptions?.pending() ?? [];
    if (pending.length > 0) outcome.interruptions = pending;
    outcome.startedAt = this.created;
    outcome.durationMs = this.segments.durationMs();
    return outcome;
  }

  /** Waits until no agent runs, no background task is active and no timer is pending (or the run is aborted). */
  async settle(): Promise<void> {
    await settleWork({
      agentTree: this.agentTree,
      tasks: this.tasks,
      timers: this.timers,
      bus: this.bus,
      clock: this.clock,
    });
  }

  /**
   * Waits for what the run has written so far (transcripts, events.jsonl, task logs, state.json); why the session's
   * records are incomplete, or undefined. Agents whose transcript is incomplete are failed (run-records.ts); a run or
   * swarm whose records are incomplete ends failed.
   */
  async recordsLost(): Promise<string | undefined> {
    const lost = await this.records?.lost(this.agentTree);
    if (lost !== undefined) this.saveState();
    return lost;
  }

  /** Undefined while the session's files keep up with the run; else resolves once they are caught up enough. */
  recordsRoom(): Promise<void> | undefined {
    return this.records?.room();
  }

  /** Why an agent's transcript is incomplete (after recordsLost), or undefined. */
  transcriptLoss(agentId: string): string | undefined {
    return this.records?.transcriptLoss(agentId);
  }

  /** Aborted when the whole run is, with its reason (swarms driven from outside a tool call listen to it). */
  get signal(): AbortSignal {
    return this.stopController.signal;
  }

  /** Aborts every agent and background task (`reason` becomes theirs and the run's); finished work is kept. */
  abort(reason = 'aborted'): void {
    if (!this.stopController.signal.aborted)
      this.abortedWhileBusy = this.agentTree.busyCount > 0 || this.tasks.activeCount() > 0 || this.timers.count() > 0;
    this.stopController.abort(reason);
    this.agentTree.abortAll(reason);
    this.tasks.stopAll('the run was aborted');
    this.timers.cancel();
  }

  /** The run's state as saved (`state.json`): what a resume rebuilds it from. */
  stateSnapshot(): SessionState {
    return runStateOf({
      id: this.session?.id ?? '',
      kind: this.options.sessionKind ?? 'run',
      createdAt: this.created,
      now: this.clock.now(),
      cwd: this.cwd,
      model: this.options.provider.name,
      status: this.status,
      agents: this.agentTree.savedAgents(),
      tasks: this.tasks.all(),
      usage: this.agentTree.runUsage,
      task: this.task,
      swarm: this.swarmState,
      settings: this.options.settings,
      sessionRules: this.options.sessionRules?.list() ?? [],
      interruptions: this.options.interruptions?.pending() ?? [],
      segments: this.segments,
    });
  }

  /** Whether the run started (its state is being saved); a session made for a run that never did holds nothing. */
  get started(): boolean {
    return this.begun;
  }

  /** The run starts: from now on its state is saved. */
  private begin(): void {
    if (!this.begun) this.segments.start();
    this.begun = true;
  }

  /** Saves the session's own swarm's state (a swarm without a main agent): the run starts with its first save. */
  saveSwarmState(state: unknown): void {
    this.begin();
    this.swarmState = state;
    this.saveState();
  }

  /** Journals a change of the session's own swarm's item (its saved record) at once, once the run has started. */
  journalSwarmItem(swarmId: string, index: number, record: unknown): void {
    if (this.begun) this.session?.journalItem({ swarm: swarmId, index, record });
  }

  /** The id of a swarm of this run: a restored one keeps its id (later ones count past it), a new one gets the next. */
  nextSwarmId(restored?: string): string {
    if (restored !== undefined) {
      this.swarmCount = Math.max(this.swarmCount, Number(restored.replace(/^s-/, '')) || 0);
      return restored;
    }
    this.swarmCount++;
    return `s-${this.swarmCount}`;
  }

  saveState(): void {
    if (this.begun) this.session?.saveState(() => this.stateSnapshot());
  }

  /** How the run ended (a swarm's, from its items; `waiting` for a person), for the saved state and its segment. */
  markEnded(status: SessionStatus): void {
    this.status = status;
    if (this.begun) this.segments.end(status);
  }

  /** Rebuilds a saved session's agents: finished ones stay so, running ones are `interrupted` (transcripts repaired). */
  restore(state: SessionState, { alsoTaken = [], maySettle }: RestoreOptions = {}): { interrupted: AgentRecord[] } {
    if (!this.session) throw new Error('restore needs a session on disk');
    this.task = state.task;
    // The session keeps its past: when it began, and each earlier stretch (one a killed process left open ends at
    // its last save).
    this.created = state.createdAt;
    this.segments.restore(state.segments, state.updatedAt);
    const interrupted = restoreAgents(state, {
      session: this.session,
      tree: this.agentTree,
      definitions: this.definitions,
      bus: this.bus,
      maySettle,
    });
    // Ids continue after the old ones, and the subagents already started count against the spawn cap.
    this.agentTree.seedIds(
      [...state.agents.map((a) => a.id), ...alsoTaken],
      state.agents.filter((a) => a.depth > 0).length,
    );
    this.tasks.seed(state.tasks);
    return { interrupted };
  }

  async close(): Promise<void> {
    this.timers.stop();
    await this.shellBridge?.close();
    // The records first: a loss found now (the last events) still reaches the saved status and stderr.
    const lost = await this.records?.close();
    if (lost !== undefined) {
      if (this.status === 'completed') this.status = 'failed';
      process.emitWarning(`murmur: ${lost}`);
    }
    // A segment still open (aborted before its end was known) closes with the status saved.
    if (this.segments.open && this.begun) this.markEnded(this.status === 'running' ? 'interrupted' : this.status);
    this.saveState();
    await this.session?.flush();
  }
}
