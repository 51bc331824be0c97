// A murmur instance for one workspace: each run, swarm or resume gets its own engine (and session), built by the
// host assembly exactly as the command line builds it, with this instance's listeners on its bus.
import { EventBus, type EventOf, type EventType, type MurmurEvent } from '../orchestrator/events.js';
import type { Engine, EngineOptions } from '../orchestrator/engine.js';
import type { ModelProvider } from '../orchestrator/models/provider.js';
import type { Asker } from '../orchestrator/permissions/asker.js';
import { createMcpSource, type McpSource } from '../orchestrator/mcp-source.js';
import type { SessionStore } from '../orchestrator/session.js';
import { ConfigError } from '../orchestrator/config.js';
import { BUILTIN_TOOL_NAMES } from '../tools/registry.js';
import { PLAN_MODE_TOOL_NAMES } from '../tools/interact/plan-mode.js';
import { CREATE_SCHEDULED_TASK } from '../tools/agents/create-scheduled-task.js';
import { openResumable } from '../host/resume.js';
import { connectQueueTarget, queueUrlFromEnv, type QueueTarget } from '../host/queue.js';
import { agentNameProblem } from '../host/checks.js';
import { reportOf, runOnEngine, swarmTitle, type Finished, type RunRequest } from '../host/lifecycle.js';
import { assembleEngine } from '../host/assemble.js';
import { HostInputError } from '../host/errors.js';
import type { SandboxChoice } from '../host/sandbox.js';
import { providerFactory, providerFromSpec } from '../host/models.js';
import { runReport, type RunReport, type SwarmReport } from '../host/reports.js';
import { checkOptions, type CheckedOptions, type MurmurOptions } from './options.js';
import { MurmurOptionsError } from './errors.js';
import type { Static, TSchema } from '@sinclair/typebox';
import { FINAL_ANSWER } from '../orchestrator/final-answer.js';
import { outputSpecOf, planItems, typedSwarmReport, type SwarmTemplate, type TypedSwarmReport } from './output.js';
import { tracingFor } from './tracing.js';

export interface RunOptions<S extends TSchema = TSchema> {
  /** A role (`worker`, `explore`…) or a defined agent's name; absent = the main agent. */
  agent?: string;
  /** Aborts this run (finished work is kept). */
  signal?: AbortSignal;
  /** A typed output: the agent answers through final_answer, checked against this schema; the report's `output`. */
  output?: S;
  /** Invalid answers sent back with the validation errors before the run fails (default 1). */
  outputRetries?: number;
}

export interface SwarmOptions<T = string, S extends TSchema = TSchema> {
  /**
   * The prompt for each item: a string where every {{item}} is replaced by the item (by its JSON for an object;
   * {{field}} by that field of an object item), or a function of the item.
   */
  template: SwarmTemplate<T>;
  /** Strings, or any values with a template function or {{field}} placeholders (each row's `input`). */
  items: readonly T[];
  /** A typed output for every item: each worker answers through final_answer; each row's `output`. */
  output?: S;
  /** Invalid answers sent back with the validation errors before an item fails (default 1). */
  outputRetries?: number;
  /** explore, worker (default), verifier, or a defined agent's name. */
  role?: string;
  /** A verifier checks each completed item; failures go back to the worker. */
  verify?: boolean;
  /** Verify rounds per item (default 2). */
  maxRounds?: number;
  /** worktree: each worker in its own git worktree, merged back when it completes. */
  isolation?: 'none' | 'worktree';
  maxConcurrency?: number;
  /** A short title (default: the template's first line and the item count). */
  description?: string;
  /** Run the items on `murmur worker`s through this Redis queue (redis://…) instead of in this process. */
  queue?: string;
  signal?: AbortSignal;
}

type Listener = (event: MurmurEvent) => void;
interface Subscription {
  type: string;
  listener: Listener;
  offs: Map<EventBus, () => void>;
}

/** The tools a host adds besides the registry's: a custom tool may not take their names. */
/** Names a library user's tool may not take: the built-in tools and the host's own. */
const TAKEN_TOOL_NAMES: ReadonlySet<string> = new Set([
  ...BUILTIN_TOOL_NAMES,
  CREATE_SCHEDULED_TASK,
  ...PLAN_MODE_TOOL_NAMES,
  FINAL_ANSWER,
]);

export interface Murmur {
  /** The workspace (absolute). */
  readonly cwd: string;
  /** The model's name (`openai:gpt-4.1`, `scripted`…). */
  readonly model: string;
  /** Subscribes to one event type, or '*' for all (the events of `--events`, plus `message` and `message.delta`). Returns the unsubscribe. */
  on<T extends EventType>(type: T, listener: (event: EventOf<T>) => void): () => void;
  on(type: '*', listener: (event: MurmurEvent) => void): () => void;
  /** Runs a task with the main agent, or with `agent`; the report is what `murmur run --json` prints. */
  run<S extends TSchema = TSchema>(task: string, options?: RunOptions<S>): Promise<RunReport<Static<S>>>;
  /** One subagent per item, without a main agent; the report is what `murmur swarm --json` prints, each row with its `input`. */
  swarm<T = string, S extends TSchema = TSchema>(options: SwarmOptions<T, S>): Promise<TypedSwarmReport<Static<S>, T>>;
  /** Continues a session left by a crash or an abort (a swarm finishes only the items that had not completed). */
  resume(sessionId: string, options?: { signal?: AbortSignal }): Promise<RunReport | SwarmReport>;
  /** Stops MCP servers started for this instance. */
  close(): Promise<void>;
}

function fail(option: string, message: string): never {
  throw new MurmurOptionsError(option, `murmur: option ${option}: ${message}`);
}

function askerFrom(options: MurmurOptions): Asker | undefined {
  const { onApproval, onQuestion } = options;
  if (!onApproval && !onQuestion) return undefined;
  return {
    approve: async (request, signal) =>
      onApproval ? onApproval(request, signal) : { kind: 'deny', feedback: 'this host answers no permission requests' },
    question: async (request, requester, signal) =>
      onQuestion
        ? onQuestion(request, requester, signal)
        : { kind: 'declined', reason: 'this host answers no questions' },
    plan: async () => ({
      kind: 'reject',
      reason: 'this host approves no plans (set permissions.approvePlans to approve them)',
    }),
  };
}

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const given = signals.filter((s): s is AbortSignal => s !== undefined);
  if (given.length <= 1) return given[0];
  return AbortSignal.any(given);
}

class MurmurInstance implements Murmur {
  private readonly listeners = new Set<Subscription>();
  private readonly buses = new Set<EventBus>();
  private mcp: Promise<McpSource | undefined> | undefined;
  /** The MCP source outlives each run: its warnings arrive here and go to every run in progress. */
  private readonly shared = new EventBus();
  readonly cwd: string;
  readonly model: string;

  constructor(
    private readonly checked: CheckedOptions,
    private readonly provider: ModelProvider,
  ) {
    this.cwd = checked.cwd;
    this.model = provider.name;
    this.shared.on('log', (event) => {
      for (const bus of this.buses) bus.emit(event);
    });
  }

  on(type: string, listener: (event: never) => void): () => void {
    const entry: Subscription = { type, listener: listener as Listener, offs: new Map() };
    this.listeners.add(entry);
    // A run already going hears it from now on.
    for (const bus of this.buses) entry.offs.set(bus, bus.on(type as EventType, entry.listener));
    return () => {
      this.listeners.delete(entry);
      for (const off of entry.offs.values()) off();
      entry.offs.clear();
    };
  }

  /** Subscribes the listeners to a run's bus (only the types listened to, so unwatched events are never built). */
  private attach(bus: EventBus): () => void {
    this.buses.add(bus);
    for (const entry of this.listeners) entry.offs.set(bus, bus.on(entry.type as EventType, entry.listener));
    return () => {
      this.buses.delete(bus);
      for (const entry of this.listeners) {
        entry.offs.get(bus)?.();
        entry.offs.delete(bus);
      }
    };
  }

  /** One engine on a fresh bus carrying this instance's listeners. */
  private async open(
    kind: 'run' | 'swarm',
    signal: AbortSignal | undefined,
    session?: SessionStore,
    extend?: (options: EngineOptions) => void,
    sandbox?: SandboxChoice,
  ): Promise<{ engine: Engine; done: () => Promise<void> }> {
    const { cwd, config, env, options } = this.checked;
    const bus = new EventBus();
    const off = this.attach(bus);
    this.mcp ??= createMcpSource({ cwd, config, env, bus: this.shared, provider: this.provider });
    const mcp = await this.mcp.catch((error: unknown) => {
      off();
      // .mcp.json cannot be read or parsed: the instance's MCP servers are unusable, said as an option error.
      if (error instanceof ConfigError) fail('mcpServers', `the workspace's ${error.message}`);
      throw error;
    });
    const asker = askerFrom(options);
    const aborts = anySignal(options.signal, signal);
    const tracing = tracingFor(options);
    const { engine, close } = await assembleEngine({
      cwd,
      config,
      env,
      bus,
      provider: this.provider,
      providerFor: providerFactory(
        { config, cwd, env, ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}) },
        this.provider.name,
      ),
      frontEnd: 'cli',
      sessionKind: kind,
      ...(mcp ? { mcp } : {}),
      ...(options.permissionMode ? { permissionMode: options.permissionMode } : {}),
      ...(options.swarmMode === true ? { swarmMode: true } : {}),
      ...(sandbox ? { sandbox } : {}),
      ...(asker
        ? { asker }
        : { headlessReason: 'murmur runs as a library without an approval handler, so nobody can answer' }),
      ...(session ? { session } : options.sessions === false ? { session: false } : {}),
      settings: {
        ...(options.permissionMode ? { permissionMode: options.permissionMode } : {}),
        ...(options.swarmMode === true ? { swarmMode: true } : {}),
        ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
        ...(options.effort ? { effort: options.effort } : {}),
      },
      ...(extend ? { extend } : {}),
      tools: (options.tools ?? []).map(({ tool, roles }) => ({ ...tool, grantedTo: [...roles] })),
      ...(aborts ? { signal: aborts } : {}),
      ...(tracing ? { tracing } : {}),
    }).catch((error: unknown) => {
      off();
      if (error instanceof HostInputError) fail(error.option, error.message);
      throw error;
    });
    return {
      engine,
      done: async () => {
        await close();
        off();
      },
    };
  }

  async run<S extends TSchema = TSchema>(task: string, options: RunOptions<S> = {}): Promise<RunReport<Static<S>>> {
    if (typeof task !== 'string' || task.trim() === '') fail('task', 'give the task as a non-empty string.');
    if (options.agent !== undefined) this.checkProfile('agent', options.agent, false);
    const output = await outputSpecOf('', options.output, options.outputRetries);
    const finished = await this.runRequest(
      'run',
      {
        kind: 'task',
        task: task.trim(),
        ...(options.agent !== undefined ? { agent: options.agent } : {}),
        ...(output ? { output } : {}),
      },
      options.signal,
    );
    return runReport(finished.outcome) as RunReport<Static<S>>;
  }

  async swarm<T = string, S extends TSchema = TSchema>(
    options: SwarmOptions<T, S>,
  ): Promise<TypedSwarmReport<Static<S>, T>> {
    if (typeof options !== 'object' || options === null) fail('swarm', 'give { template, items }.');
    const planned = planItems(options.template, options.items);
    const output = await outputSpecOf('swarm.', options.output, options.outputRetries);
    if (options.role !== undefined) this.checkProfile('swarm.role', options.role, true);
    for (const key of ['maxConcurrency', 'maxRounds'] as const) {
      const value = options[key];
      if (value !== undefined && (!Number.isInteger(value) || value < 1))
        fail(`swarm.${key}`, `${JSON.stringify(value)} is not accepted; give a whole number, at least 1.`);
    }
    if (options.isolation !== undefined && options.isolation !== 'none' && options.isolation !== 'worktree')
      fail('swarm.isolation', `${JSON.stringify(options.isolation)} is not accepted; use none or worktree.`);
    const queue = options.queue === undefined ? undefined : await this.queue(options.queue);
    const description = swarmTitle(planned.template ?? '(template function)', planned.labels, options.description);
    const finished = await this.runRequest(
      'swarm',
      {
        kind: 'swarm',
        launch: {
          ...(planned.template !== undefined ? { promptTemplate: planned.template } : {}),
          items: planned.labels,
          ...(planned.prompts ? { prompts: planned.prompts } : {}),
          ...(planned.inputs ? { inputs: planned.inputs } : {}),
          ...(output ? { output } : {}),
          description,
          verify: options.verify === true,
          maxItems: Number.POSITIVE_INFINITY,
          minItems: 1,
          ...(options.role !== undefined ? { subagentType: options.role } : {}),
          ...(options.isolation !== undefined ? { isolation: options.isolation } : {}),
          ...(options.maxConcurrency !== undefined ? { maxConcurrency: options.maxConcurrency } : {}),
          ...(options.maxRounds !== undefined ? { maxRounds: options.maxRounds } : {}),
          ...(queue ? { queue } : {}),
        },
      },
      options.signal,
    );
    if (finished.kind !== 'swarm') throw new Error('a swarm request finished as a run');
    return typedSwarmReport(reportOf(finished), options.items);
  }

  async resume(sessionId: string, options: { signal?: AbortSignal } = {}): Promise<RunReport | SwarmReport> {
    if (typeof sessionId !== 'string' || sessionId.trim() === '')
      fail('sessionId', 'give the id of a session of this workspace.');
    const opened = openResumable(this.cwd, this.checked.env, sessionId);
    if (!opened.ok) fail('sessionId', `${opened.error}.`);
    const { resumable } = opened;
    const savedQueue = resumable.swarm?.queue;
    // A queue URL with a password is never saved: MURMUR_QUEUE gives it again.
    const fromEnv = queueUrlFromEnv(this.checked.env);
    if (savedQueue && !fromEnv.ok) fail('sessionId', `${fromEnv.error}.`);
    const queueUrl = savedQueue ? (fromEnv.ok ? fromEnv.url : undefined) || savedQueue.url : undefined;
    if (savedQueue && !queueUrl)
      fail(
        'sessionId',
        `session ${resumable.session.id} ran on a queue whose URL was not saved (it held a password); set MURMUR_QUEUE to resume it.`,
      );
    const queue = queueUrl ? await this.queue(queueUrl) : undefined;
    const request: RunRequest = { kind: 'resume', resumable, ...(queue ? { queue } : {}) };
    const finished = await this.runRequest(
      resumable.swarm ? 'swarm' : 'run',
      request,
      options.signal,
      resumable.session,
      resumable.extend,
      // A session whose shells ran in the sandbox resumes in it.
      resumable.settings.sandbox
        ? { enabled: true, ...(resumable.settings.sandboxNetwork ? { network: true } : {}) }
        : undefined,
    );
    return reportOf(finished);
  }

  /** A request on its own engine, through the host's lifecycle; a refused request is MurmurOptionsError naming the option. */
  private async runRequest(
    kind: 'run' | 'swarm',
    request: RunRequest,
    signal: AbortSignal | undefined,
    session?: SessionStore,
    extend?: (options: EngineOptions) => void,
    sandbox?: SandboxChoice,
  ): Promise<Finished> {
    const { engine, done } = await this.open(kind, signal, session, extend, sandbox);
    try {
      const result = await runOnEngine(engine, request, this.checked.env);
      if (!result.ok)
        fail(result.refused.part === 'session' ? 'sessionId' : result.refused.part, `${result.refused.message}.`);
      return result.finished;
    } finally {
      await done();
    }
  }

  async close(): Promise<void> {
    const mcp = await this.mcp;
    this.mcp = undefined;
    await mcp?.close();
  }

  private checkProfile(option: string, name: string, forItems: boolean): void {
    const problem = agentNameProblem(this.cwd, this.checked.env, name, forItems);
    if (problem) fail(option, `${problem}.`);
  }

  private async queue(raw: string): Promise<QueueTarget> {
    const connected = await connectQueueTarget(raw, 'queue');
    if (!connected.ok) fail('swarm.queue', `${connected.error}.`);
    return connected.target;
  }
}

/** A murmur for a workspace. Bad options throw MurmurOptionsError (naming the option and what is accepted). */
export async function createMurmur(options: MurmurOptions): Promise<Murmur> {
  const checked = await checkOptions(options);
  const { cwd, config, env } = checked;
  for (const [index, { tool }] of (options.tools ?? []).entries()) {
    if (TAKEN_TOOL_NAMES.has(tool.def.name))
      fail(`tools[${index}]`, `${JSON.stringify(tool.def.name)} is the name of a built-in tool; choose another.`);
  }
  let provider: ModelProvider;
  if (typeof options.model === 'object') provider = options.model;
  else {
    try {
      provider = await providerFromSpec({
        config,
        cwd,
        env,
        ...(options.model !== undefined ? { model: options.model } : {}),
        ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
      });
    } catch (error) {
      if (error instanceof HostInputError) fail(error.option, error.message);
      throw error;
    }
  }
  return new MurmurInstance(checked, provider);
}
