// A murmur instance for one workspace: each run, swarm or resume gets its own engine (and session), built by the
// host assembly exactly as the command line builds it, with this instance's listeners on its bus.
import { EventBus } from '../host/event-bus.js';
import type { EventType, MurmurEvent as BusEvent } from '../protocol/events.js';
import { createMcpSource, type McpSource } from '../host/mcp-servers.js';
import { stateHome } from '../host/session-store.js';
import { listSessionSummaries, type SessionSummary } from '../host/session-list.js';
import { ConfigError } from '../host/workspace-config.js';
import { openResumable } from '../host/resume.js';
import { checkReopen } from './reopen-checks.js';
import { connectQueueTarget, type QueueTarget } from '../host/queue.js';
import { reportOf, swarmTitle, type RunRequest } from '../host/lifecycle.js';
import { startRun, type HostRun, type RunSetup, type StartRun } from '../host/run.js';
import { HostInputError } from '../host/errors.js';
import { checkedProvider, providerFactory, providerFromSpec, withGivenPrice } from '../host/models.js';
import type { ModelProvider } from '../host/model-provider.js';
import type { RunReport, SwarmReport } from '../protocol/reports.js';
import type { AgentProfile } from '../host/agent-profiles.js';
import { checkOptions, type CheckedOptions, type MurmurOptions } from './options.js';
import { fail } from './option-error.js';
import { handleOn } from './run-handle.js';
import type { EventOf, MurmurEvent, RunHandle } from './handle-types.js';
import type { AnySchema } from './schema.js';
import { loadOutputChecks } from '../host/output.js';
import { outputSpecOf, planItems, typedSwarmReport, type OutputOf, type TypedSwarmReport } from './output.js';
import { tracingFor } from './tracing.js';
import { askerFrom, checkSignal, checkSwarmNumbers } from './run-checks.js';
import { agentNameOf, agentsNaming, checkAgents, type AgentNames, type RegisteredAgent } from './agents.js';
import { checkToolAccess, knownTools, type ToolAccess } from './tool-access.js';
import { toolCallHook } from './tool-hook.js';
import type { KnownTools } from '../host/tool-names.js';
import type { ResumeOptions, RunOptions, SwarmOptions } from './run-options.js';

export type { ResumeOptions, RunOptions, SwarmOptions };

/** What `resume()` ends with: a run's report or a swarm's, told apart by `kind`. */
export type ResumeReport = RunReport | SwarmReport;
/** A session of the workspace, as `murmur sessions --json` prints it. */
export type { SessionSummary };

/** The library's words for the model choices in messages (not the command line's flags). */
const MODEL_WORDS = { model: 'the model option', choose: (spec: string) => `model: '${spec}'`, baseUrl: 'baseUrl' };

type Listener = (event: BusEvent) => void;
interface Subscription {
  type: string;
  listener: Listener;
  offs: Map<EventBus, () => void>;
}

/** A murmur instance for one workspace (createMurmur): runs, swarms, resumes and continued conversations, each a handle. */
export interface Murmur {
  /** The workspace (absolute). */
  readonly cwd: string;
  /** The model's name (`openai:gpt-4.1`, `scripted`…). */
  readonly model: string;
  /** Subscribes to one event type, or '*' for all (the events of `--events`, plus `message` and `message.delta`). Returns the unsubscribe. */
  on<T extends EventType>(type: T, listener: (event: EventOf<T>) => void): () => void;
  /** Subscribes to every event type; returns the unsubscribe. */
  on(type: '*', listener: (event: MurmurEvent) => void): () => void;
  /**
   * Runs a task with the main agent, or with `agent`. Returns at once a handle (thenable: `await` it for the
   * report, what `murmur run --json` prints). Bad options throw MurmurOptionsError here.
   */
  run<S extends AnySchema = AnySchema>(task: string, options?: RunOptions<S>): RunHandle<RunReport<OutputOf<S>>>;
  /**
   * One subagent per item, without a main agent; a handle whose report is what `murmur swarm --json` prints, each
   * row with its `input`.
   */
  swarm<T = string, S extends AnySchema = AnySchema>(
    options: SwarmOptions<T, S>,
  ): RunHandle<TypedSwarmReport<OutputOf<S>, T>>;
  /**
   * Continues a session left by a crash, an abort or a wait for a person (a swarm finishes only the items that had
   * not completed). `answers` answer what it waits for (its report's `interruptions`), by `agentId/callId` or call
   * id: the waiting calls run (or are refused with the person's reason) exactly where they stopped.
   */
  resume(sessionId: string, options?: ResumeOptions): RunHandle<ResumeReport>;
  /**
   * The person's next message to a run's conversation (finished or not): its main agent answers with everything said
   * before, as `murmur run --session ID "…"`. A swarm session, or one waiting for answers, throws MurmurOptionsError.
   */
  continue(sessionId: string, message: string, options?: { signal?: AbortSignal }): RunHandle<RunReport>;
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

  /** The agents defined in code, as the engine runs them (joined to the definition files'). */
  private readonly profiles: AgentProfile[];
  private readonly agentsFor: AgentNames;

  constructor(
    private readonly checked: CheckedOptions,
    private readonly provider: ModelProvider,
    private readonly agents: ReadonlyMap<string, RegisteredAgent>,
    private readonly known: KnownTools,
  ) {
    this.profiles = [...agents.values()].map((agent) => agent.profile);
    this.agentsFor = { agents, cwd: checked.cwd, env: checked.env };
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

  /**
   * The engine's plain values for a run on `bus` (the instance's MCP servers started first, once), with the run's
   * own tool access (a resume's session, sandbox and tool access are the Run's).
   */
  private async setup(kind: 'run' | 'swarm', bus: EventBus, toolAccess?: ToolAccess): Promise<RunSetup['assembly']> {
    const { cwd, config, env, options } = this.checked;
    // Agents of yours with a typed output answer through final_answer: its checker is loaded before they run.
    if (this.profiles.some((profile) => profile.output)) await loadOutputChecks();
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
    // Without a handler, a call that needs a person ends the run `waiting` with it among the report's interruptions
    // (answered by resume(id, { answers })); `permissions.headless` settles such calls by policy instead.
    // Only a kept session can be resumed: without one (sessions: false) such calls are settled by policy.
    const holdForPerson = !asker && config.permissions?.headless === undefined && options.sessions !== false;
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
      ...(asker
        ? { asker }
        : { headlessReason: 'murmur runs as a library without an approval handler, so nobody can answer' }),
      ...(holdForPerson ? { holdForPerson: true } : {}),
      ...(options.sessions === false ? { session: false } : {}),
      settings: {
        ...(options.permissionMode ? { permissionMode: options.permissionMode } : {}),
        ...(options.swarmMode === true ? { swarmMode: true } : {}),
        ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
        ...(options.effort ? { effort: options.effort } : {}),
      },
      // A tool of yours that an agent of yours names in its `tools` is granted to it too.
      tools: (options.tools ?? []).map(({ tool, roles }) => ({
        ...tool,
        grantedTo: [...roles, ...agentsNaming(tool.def.name, this.agents)],
      })),
      ...(this.profiles.length > 0 ? { agents: this.profiles } : {}),
      ...(options.onToolCall ? { onToolCall: toolCallHook(options.onToolCall, bus.sessionId ?? '') } : {}),
      ...(toolAccess ? { toolAccess } : {}),
      ...(tracing ? { tracing } : {}),
    };
  }

  run<S extends AnySchema = AnySchema>(task: string, options: RunOptions<S> = {}): RunHandle<RunReport<OutputOf<S>>> {
    if (typeof task !== 'string' || task.trim() === '') fail('task', 'give the task as a non-empty string.');
    const agent = options.agent === undefined ? undefined : agentNameOf('agent', options.agent, false, this.agentsFor);
    const toolAccess = checkToolAccess('toolAccess', options.toolAccess, this.known);
    checkSignal('signal', options.signal);
    const setup = async (bus: EventBus): Promise<RunSetup> => {
      // The schema is checked as the run starts (a bad one rejects `done` with MurmurOptionsError).
      const output = await outputSpecOf('', options.output, options.outputRetries);
      const request: RunRequest = {
        kind: 'task',
        task: task.trim(),
        ...(agent !== undefined ? { agent } : {}),
        ...(output ? { output } : {}),
      };
      return { assembly: await this.setup('run', bus, toolAccess), request };
    };
    return handleOn(
      this.start(options.signal, undefined, setup),
      (finished) => reportOf(finished) as RunReport<OutputOf<S>>,
    );
  }

  swarm<T = string, S extends AnySchema = AnySchema>(
    options: SwarmOptions<T, S>,
  ): RunHandle<TypedSwarmReport<OutputOf<S>, T>> {
    if (typeof options !== 'object' || options === null) fail('swarm', 'give { template, items }.');
    const planned = planItems(options.template, options.items);
    const role = options.role === undefined ? undefined : agentNameOf('swarm.role', options.role, true, this.agentsFor);
    const toolAccess = checkToolAccess('swarm.toolAccess', options.toolAccess, this.known);
    checkSwarmNumbers(options);
    checkSignal('swarm.signal', options.signal);
    const description = swarmTitle(planned.template ?? '(template function)', planned.labels, options.description);
    const setup = async (bus: EventBus): Promise<RunSetup> => {
      const output = await outputSpecOf('swarm.', options.output, options.outputRetries);
      const queue = options.queue === undefined ? undefined : await this.queue(options.queue);
      const assembly = await this.setup('swarm', bus, toolAccess);
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
            ...(role !== undefined ? { subagentType: role } : {}),
            ...(options.isolation !== undefined ? { isolation: options.isolation } : {}),
            ...(options.maxConcurrency !== undefined ? { maxConcurrency: options.maxConcurrency } : {}),
            ...(options.maxRounds !== undefined ? { maxRounds: options.maxRounds } : {}),
            ...(queue ? { queue } : {}),
          },
        },
      };
    };
    return handleOn(this.start(options.signal, undefined, setup), (finished) =>
      typedSwarmReport<OutputOf<S>, T>(reportOf(finished) as SwarmReport, options.items),
    );
  }

  continue(sessionId: string, message: string, options: { signal?: AbortSignal } = {}): RunHandle<RunReport> {
    if (typeof message !== 'string') fail('message', 'give the next message as a string.');
    return this.reopen(sessionId, options, message) as RunHandle<RunReport>;
  }

  resume(sessionId: string, options: ResumeOptions = {}): RunHandle<ResumeReport> {
    return this.reopen(sessionId, options);
  }

  /** A resume, or (with a message) a run's conversation continued. */
  private reopen(sessionId: string, options: ResumeOptions, message?: string): RunHandle<ResumeReport> {
    if (typeof sessionId !== 'string' || sessionId.trim() === '')
      fail('sessionId', 'give the id of a session of this workspace.');
    checkSignal('signal', options.signal);
    const opened = openResumable(this.cwd, this.checked.env, sessionId);
    if (!opened.ok) fail('sessionId', `${opened.error}.`);
    const { resumable } = opened;
    const queueUrl = checkReopen(resumable, options, message, this.checked.env, this.agents);
    // The Run reopens the session with what it ran with (its sandbox, its tool access) and the answers given.
    const setup = async (bus: EventBus): Promise<RunSetup> => {
      const queue = queueUrl ? await this.queue(queueUrl) : undefined;
      return {
        assembly: await this.setup(resumable.swarm ? 'swarm' : 'run', bus),
        request: {
          kind: 'resume',
          resumable,
          ...(queue ? { queue } : {}),
          ...(message !== undefined ? { message } : {}),
        },
      };
    };
    return handleOn(this.start(options.signal, resumable.session.id, setup, options.answers), reportOf);
  }

  /** A run through the host's lifecycle, on a bus carrying this instance's listeners; tracked until it ends. */
  private start(
    signal: AbortSignal | undefined,
    sessionId: string | undefined,
    setup: StartRun['setup'],
    answers?: StartRun['answers'],
  ): HostRun {
    const signals = [this.checked.options.signal, signal];
    // Closed: the run ends aborted before it starts (nothing is written).
    if (this.closed) signals.push(AbortSignal.abort('this murmur instance is closed'));
    const run = startRun({
      ...(sessionId !== undefined ? { sessionId } : {}),
      signals,
      env: this.checked.env,
      attach: (bus) => this.attach(bus),
      setup,
      ...(answers ? { answers } : {}),
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
  const known = await knownTools(
    cwd,
    env,
    config,
    (options.tools ?? []).map(({ tool }) => tool.def.name),
  );
  const agents = await checkAgents(options.agents, { cwd, env, known });
  let provider: ModelProvider;
  // Checked inside the pricing, which reads the result.
  if (typeof options.model === 'object') provider = withGivenPrice(checkedProvider(options.model), config.prices);
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
  return new MurmurInstance(checked, provider, agents, known);
}
