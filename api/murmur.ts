// A murmur instance for one workspace: each run, swarm or resume gets its own engine (and session), built by the
// host assembly exactly as the command line builds it, with this instance's listeners on its bus.
import { EventBus, type EventType, type MurmurEvent as BusEvent } from '../orchestrator/events.js';
import type { EngineOptions } from '../orchestrator/engine.js';
import type { ModelProvider } from '../orchestrator/models/provider.js';
import { createMcpSource, type McpSource } from '../orchestrator/mcp-source.js';
import { stateHome, type SessionStore } from '../orchestrator/session.js';
import { listSessionSummaries, type SessionSummary } from '../orchestrator/session-list.js';
import { ConfigError } from '../orchestrator/config.js';
import { BUILTIN_TOOL_NAMES } from '../tools/registry.js';
import { PLAN_MODE_TOOL_NAMES } from '../tools/interact/plan-mode.js';
import { CREATE_SCHEDULED_TASK } from '../tools/agents/create-scheduled-task.js';
import { openResumable } from '../host/resume.js';
import { connectQueueTarget, queueUrlFromEnv, type QueueTarget } from '../host/queue.js';
import { agentNameProblem } from '../host/checks.js';
import { reportOf, swarmTitle, type RunRequest } from '../host/lifecycle.js';
import { startRun, type HostRun, type RunSetup, type StartRun } from '../host/run-handle.js';
import { HostInputError } from '../host/errors.js';
import type { SandboxChoice } from '../host/sandbox.js';
import { providerFactory, providerFromSpec } from '../host/models.js';
import type { RunReport, SwarmReport } from '../host/reports.js';
import { checkOptions, type CheckedOptions, type MurmurOptions } from './options.js';
import { fail } from './option-error.js';
import { handleOn } from './run-handle.js';
import type { EventOf, MurmurEvent, RunHandle } from './handle-types.js';
import type { Static, TSchema } from '@sinclair/typebox';
import { FINAL_ANSWER } from '../orchestrator/final-answer.js';
import { outputSpecOf, planItems, typedSwarmReport, type SwarmTemplate, type TypedSwarmReport } from './output.js';
import { tracingFor } from './tracing.js';
import { askerFrom, checkSignal, checkSwarmNumbers } from './run-checks.js';

/** What `resume()` ends with: a run's report or a swarm's, told apart by `kind`. */
export type ResumeReport = RunReport | SwarmReport;
/** A session of the workspace, as `murmur sessions --json` prints it. */
export type { SessionSummary };

/** The library's words for the model choices in messages (not the command line's flags). */
const MODEL_WORDS = { model: 'the model option', choose: (spec: string) => `model: '${spec}'`, baseUrl: 'baseUrl' };

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

type Listener = (event: BusEvent) => void;
interface Subscription {
  type: string;
  listener: Listener;
  offs: Map<EventBus, () => void>;
}

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
  /**
   * Runs a task with the main agent, or with `agent`. Returns at once a handle (thenable: `await` it for the
   * report, what `murmur run --json` prints). Bad options throw MurmurOptionsError here.
   */
  run<S extends TSchema = TSchema>(task: string, options?: RunOptions<S>): RunHandle<RunReport<Static<S>>>;
  /**
   * One subagent per item, without a main agent; a handle whose report is what `murmur swarm --json` prints, each
   * row with its `input`.
   */
  swarm<T = string, S extends TSchema = TSchema>(
    options: SwarmOptions<T, S>,
  ): RunHandle<TypedSwarmReport<Static<S>, T>>;
  /** Continues a session left by a crash or an abort (a swarm finishes only the items that had not completed). */
  resume(sessionId: string, options?: { signal?: AbortSignal }): RunHandle<ResumeReport>;
  /** The workspace's sessions, newest first: what `murmur sessions --json` prints. */
  listSessions(): SessionSummary[];
  /** Aborts the runs still going (their reports say so), waits for them, and stops the MCP servers it started. */
  close(): Promise<void>;
}

class MurmurInstance implements Murmur {
  private readonly listeners = new Set<Subscription>();
  private readonly buses = new Set<EventBus>();
  private mcp: Promise<McpSource | undefined> | undefined;
  /** The runs in progress (close() aborts them); once closed, a new run ends aborted without starting. */
  private readonly running = new Set<HostRun>();
  private closed = false;
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
    // A copy for each run: each run's bus stamps its own sessionId.
    this.shared.on('log', (event) => {
      for (const bus of this.buses) bus.emit({ ...event });
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

  /** The engine's plain values for a run on `bus` (the instance's MCP servers started first, once). */
  private async setup(
    kind: 'run' | 'swarm',
    bus: EventBus,
    session?: SessionStore,
    extend?: (options: EngineOptions) => void,
    sandbox?: SandboxChoice,
  ): Promise<RunSetup['assembly']> {
    const { cwd, config, env, options } = this.checked;
    // A closed instance starts no MCP servers again: its run ends aborted before it starts.
    if (!this.closed) this.mcp ??= createMcpSource({ cwd, config, env, bus: this.shared, provider: this.provider });
    const mcp = this.closed
      ? undefined
      : await this.mcp?.catch((error: unknown) => {
          // .mcp.json cannot be read or parsed: the instance's MCP servers are unusable, said as an option error.
          if (error instanceof ConfigError) fail('mcpServers', `the workspace's ${error.message}`);
          throw error;
        });
    const asker = askerFrom(options);
    const tracing = tracingFor(options);
    return {
      cwd,
      config,
      env,
      provider: this.provider,
      providerFor: providerFactory(
        {
          config,
          cwd,
          env,
          words: MODEL_WORDS,
          ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
        },
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
      ...(tracing ? { tracing } : {}),
    };
  }

  run<S extends TSchema = TSchema>(task: string, options: RunOptions<S> = {}): RunHandle<RunReport<Static<S>>> {
    if (typeof task !== 'string' || task.trim() === '') fail('task', 'give the task as a non-empty string.');
    if (options.agent !== undefined) this.checkProfile('agent', options.agent, false);
    checkSignal('signal', options.signal);
    const setup = async (bus: EventBus): Promise<RunSetup> => {
      // The schema is checked as the run starts (a bad one rejects `done` with MurmurOptionsError).
      const output = await outputSpecOf('', options.output, options.outputRetries);
      const request: RunRequest = {
        kind: 'task',
        task: task.trim(),
        ...(options.agent !== undefined ? { agent: options.agent } : {}),
        ...(output ? { output } : {}),
      };
      return { assembly: await this.setup('run', bus), request };
    };
    return handleOn(
      this.start(options.signal, undefined, setup),
      (finished) => reportOf(finished) as RunReport<Static<S>>,
    );
  }

  swarm<T = string, S extends TSchema = TSchema>(
    options: SwarmOptions<T, S>,
  ): RunHandle<TypedSwarmReport<Static<S>, T>> {
    if (typeof options !== 'object' || options === null) fail('swarm', 'give { template, items }.');
    const planned = planItems(options.template, options.items);
    if (options.role !== undefined) this.checkProfile('swarm.role', options.role, true);
    checkSwarmNumbers(options);
    checkSignal('swarm.signal', options.signal);
    const description = swarmTitle(planned.template ?? '(template function)', planned.labels, options.description);
    const setup = async (bus: EventBus): Promise<RunSetup> => {
      const output = await outputSpecOf('swarm.', options.output, options.outputRetries);
      const queue = options.queue === undefined ? undefined : await this.queue(options.queue);
      const assembly = await this.setup('swarm', bus);
      return {
        assembly,
        request: {
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
      };
    };
    return handleOn(this.start(options.signal, undefined, setup), (finished) =>
      typedSwarmReport<Static<S>, T>(reportOf(finished) as SwarmReport, options.items),
    );
  }

  resume(sessionId: string, options: { signal?: AbortSignal } = {}): RunHandle<ResumeReport> {
    if (typeof sessionId !== 'string' || sessionId.trim() === '')
      fail('sessionId', 'give the id of a session of this workspace.');
    checkSignal('signal', options.signal);
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
    // A session whose shells ran in the sandbox resumes in it.
    const sandbox: SandboxChoice | undefined = resumable.settings.sandbox
      ? { enabled: true, ...(resumable.settings.sandboxNetwork ? { network: true } : {}) }
      : undefined;
    const setup = async (bus: EventBus): Promise<RunSetup> => {
      const queue = queueUrl ? await this.queue(queueUrl) : undefined;
      const kind = resumable.swarm ? 'swarm' : 'run';
      return {
        assembly: await this.setup(kind, bus, resumable.session, resumable.extend, sandbox),
        request: { kind: 'resume', resumable, ...(queue ? { queue } : {}) },
      };
    };
    return handleOn(this.start(options.signal, resumable.session.id, setup), reportOf);
  }

  /** A run through the host's lifecycle, on a bus carrying this instance's listeners; tracked until it ends. */
  private start(signal: AbortSignal | undefined, sessionId: string | undefined, setup: StartRun['setup']): HostRun {
    const signals = [this.checked.options.signal, signal];
    // Closed: the run ends aborted before it starts (nothing is written).
    if (this.closed) signals.push(AbortSignal.abort('this murmur instance is closed'));
    const run = startRun({
      ...(sessionId !== undefined ? { sessionId } : {}),
      signals,
      env: this.checked.env,
      attach: (bus) => this.attach(bus),
      setup,
    });
    this.running.add(run);
    const forget = () => this.running.delete(run);
    run.done.then(forget, forget);
    return run;
  }

  listSessions(): SessionSummary[] {
    return listSessionSummaries(stateHome(this.cwd, this.checked.env));
  }

  async close(): Promise<void> {
    this.closed = true;
    const runs = [...this.running];
    for (const run of runs) run.abort('murmur.close() was called');
    await Promise.allSettled(runs.map((run) => run.done));
    const mcp = await this.mcp?.catch(() => undefined);
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
        words: MODEL_WORDS,
      });
    } catch (error) {
      if (error instanceof HostInputError) fail(error.option, error.message);
      throw error;
    }
  }
  return new MurmurInstance(checked, provider);
}
