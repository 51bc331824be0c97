// A run on the command line: parsed flags to plain values for the host assembly (host/assemble.ts), plus what only
// a terminal has — the screen, the terminal asker, Ctrl-C and the event log; requests go through the host's lifecycle.
import { boolFlag, stringFlag, UsageError, type ParsedArgs } from './args.js';
import {
  configFor,
  eventLogFor,
  mcpSourceFor,
  onInterrupt,
  providerFactory,
  providerFor,
  workspaceFrom,
} from './setup.js';
import { chooseScreenMode, createScreen, type Screen } from './screen.js';
import { hostAsker } from './approvals.js';
import { interruptionId, type Interruption } from '../protocol/interruptions.js';
import { HELD_EXIT_CODE } from '../scheduler/held.js';
import type { PermissionMode } from '../orchestrator/permissions/policy.js';
import { EventBus, type MurmurEvent } from '../orchestrator/events.js';
import type { Engine, EngineOptions, RunOutcome } from '../orchestrator/engine.js';
import type { EventLog } from '../orchestrator/events-log.js';
import { SessionStore } from '../orchestrator/session.js';
import { namedSession } from './named-session.js';
import type { MurmurConfig } from '../orchestrator/config.js';
import { assembleEngine } from '../host/assemble.js';
import { HostInputError } from '../host/errors.js';
import type { SandboxChoice } from '../host/sandbox.js';
import { runOnEngine, type Finished, type Refused, type RunRequest } from '../host/lifecycle.js';
import { commandTracing } from './telemetry.js';

export interface TerminalRun {
  engine: Engine;
  screen: Screen;
  config: MurmurConfig;
  args: ParsedArgs;
  /** Runs a request through the host's lifecycle (host/lifecycle.ts); refused = a usage error naming the flag. */
  run(request: RunRequest, refusedAs: (refused: Refused) => string): Promise<Finished>;
  /** Stops the screen, prints the outcome and returns the exit status. */
  finishRun(outcome: RunOutcome, stdoutText: string): Promise<number>;
  close(): Promise<void>;
}

export interface TerminalRunOptions {
  title: string;
  sessionKind: 'run' | 'swarm';
  /** Reopen this session instead of creating one. */
  session?: SessionStore;
  /** Adds engine options (the swarm's tool and adapter). */
  extend?: (options: EngineOptions) => void;
  /**
   * Nobody watches (a scheduled run, work the web console started): a call that needs a person is held as an
   * interruption and the run ends `waiting` (exit 75), instead of being asked on a screen or settled by policy.
   */
  hold?: boolean;
  /** What a resumed session waits for, with the answers given since (the console's, or --approve / --deny). */
  interruptions?: readonly Interruption[];
  /** The sandbox a resumed session ran with (on, and with the network); --sandbox turns it on too. */
  sandbox?: SandboxChoice;
}

export async function openTerminalRun(
  command: string,
  args: ParsedArgs,
  options: TerminalRunOptions,
): Promise<TerminalRun> {
  const env = process.env;
  const cwd = workspaceFrom(command, args);
  const effort = stringFlag(args, 'effort') as MurmurConfig['effort'];
  // --effort wins over `effort` in murmur.toml; the engine reads it from the configuration.
  const config = effort ? { ...(await configFor(cwd)), effort } : await configFor(cwd);
  const provider = await providerFor(command, args, config, cwd, env);
  const bus = new EventBus();
  // Warnings raised while setting up (bad agent files, skills, MCP entries) arrive before any screen listens.
  const early: MurmurEvent[] = [];
  const stopCollecting = bus.on('log', (event) => early.push(event));
  const eventLog: EventLog | undefined = eventLogFor(command, args, bus);
  const mcp = await mcpSourceFor({ cwd, config, env, bus, provider });
  const mode = chooseScreenMode({ json: boolFlag(args, 'json'), noDashboard: args.flags.dashboard === false, env });
  // The screen and Ctrl-C abort through this signal, so nothing needs the engine before it exists.
  const aborter = new AbortController();
  // Made now (the asker needs it), drawn once the engine exists and the setup warnings are printed.
  const screen = createScreen({
    mode,
    bus,
    title: options.title,
    model: provider.name,
    env,
    onAbort: () => aborter.abort(),
  });
  const chosen = options.hold ? {} : hostAsker({ mode, screen });
  const { asker, headlessReason } = chosen;
  const interruptions = options.interruptions ?? [];
  // With nobody to ask, a session that waits for a person goes on waiting (its calls are not settled by policy).
  const holdForPerson =
    options.hold === true || (!asker && interruptions.length > 0 && config.permissions?.headless === undefined);
  const permissionMode = stringFlag(args, 'permission-mode') as PermissionMode | undefined;
  const baseUrl = stringFlag(args, 'base-url');
  // Only a given flag counts: its absence must not override `swarmMode = true` in the configuration.
  const swarmMode = args.flags['swarm-mode'] === true;
  const sandbox: SandboxChoice | undefined =
    args.flags.sandbox === true ? { ...options.sandbox, enabled: true } : options.sandbox;
  let assembled;
  try {
    assembled = await assembleEngine({
      cwd,
      config,
      env,
      bus,
      provider,
      providerFor: providerFactory(args, config, cwd, env, provider.name),
      frontEnd: 'cli',
      sessionKind: options.sessionKind,
      ...(mcp ? { mcp } : {}),
      ...(permissionMode ? { permissionMode } : {}),
      ...(swarmMode ? { swarmMode: true } : {}),
      ...(sandbox ? { sandbox } : {}),
      ...(asker ? { asker } : {}),
      ...(headlessReason !== undefined ? { headlessReason } : {}),
      ...(holdForPerson ? { holdForPerson: true } : {}),
      ...(interruptions.length > 0 ? { interruptions } : {}),
      ...(options.session ? { session: options.session } : namedSession(command, args, cwd, env)),
      settings: {
        ...(permissionMode ? { permissionMode } : {}),
        ...(swarmMode ? { swarmMode: true } : {}),
        ...(baseUrl !== undefined ? { baseUrl } : {}),
        ...(effort ? { effort } : {}),
      },
      signal: aborter.signal,
      ...(options.extend ? { extend: options.extend } : {}),
      ...commandTracing(),
    });
  } catch (error) {
    await mcp?.close();
    await eventLog?.close();
    if (error instanceof HostInputError) throw new UsageError(`murmur: ${error.message}`);
    throw error;
  }
  const { engine } = assembled;

  // Printed before the screen starts: they stay above the dashboard, which restores the screen when it ends.
  stopCollecting();
  for (const event of early)
    if (event.type === 'log')
      process.stderr.write(`murmur: ${event.level === 'info' ? '' : `${event.level}: `}${event.message}\n`);
  await screen.start();
  const started: Screen = screen;
  const offInterrupt = onInterrupt(() => aborter.abort());
  let closed = false;

  return {
    engine,
    screen: started,
    config,
    args,
    async run(request, refusedAs) {
      const result = await runOnEngine(engine, request, env);
      if (!result.ok) throw new UsageError(`murmur ${command}: ${refusedAs(result.refused)}.`);
      return result.finished;
    },
    async finishRun(outcome, stdoutText) {
      started.stop();
      process.stdout.write(stdoutText);
      const json = boolFlag(args, 'json');
      const cwdFlag = stringFlag(args, 'cwd');
      const inCwd = cwdFlag ? ` --cwd ${JSON.stringify(cwdFlag)}` : '';
      if (outcome.status === 'waiting' && !json) {
        process.stderr.write(`${waitingText(outcome, inCwd)}\n`);
        return HELD_EXIT_CODE;
      }
      if (outcome.status === 'waiting') return HELD_EXIT_CODE;
      if (outcome.status !== 'completed' && !json) {
        process.stderr.write(
          `murmur: ${command} ended ${outcome.status}${outcome.reason ? `: ${outcome.reason}` : ''}\n`,
        );
        if (outcome.sessionId)
          process.stderr.write(`murmur: to continue, run: murmur resume ${outcome.sessionId}${inCwd}\n`);
      }
      if (outcome.status === 'completed') return 0;
      return outcome.status === 'aborted' ? 130 : 1;
    },
    async close() {
      if (closed) return;
      closed = true;
      offInterrupt();
      started.stop();
      await assembled.close();
      await mcp?.close();
      await eventLog?.close();
    },
  };
}

/** What a run that waits for a person says on stderr: each call it waits for, and how to answer it. */
function waitingText(outcome: RunOutcome, inCwd: string): string {
  const list = outcome.interruptions ?? [];
  const lines = [`murmur: waiting for a person: ${list.length} call(s) need an answer`];
  for (const i of list) lines.push(`  ${interruptionId(i)}  ${i.kind}: ${i.summary}`);
  const id = outcome.sessionId ?? 'ID';
  const first = list[0] ? interruptionId(list[0]) : 'AGENT/CALL';
  lines.push(
    `murmur: answer in a terminal with: murmur resume ${id}${inCwd}`,
    `murmur: or without one: murmur resume ${id}${inCwd} --approve ${first} (or --deny ${first} --reason "…")`,
  );
  return lines.join('\n');
}
