// A run on the command line, as an adapter over the host's Run (host/run.ts): parsed flags to plain values, plus what
// only a terminal has — the screen, the terminal asker, Ctrl-C and the event log — and, at the edge, the exit status.
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
import { chooseScreenMode, createScreen, type PendingScreen } from './screen.js';
import { askerForScreen } from './approvals.js';
import { interruptionId } from '../protocol/interruptions.js';
import type { RunOutcome } from '../protocol/run-outcome.js';
import type { RunSettings } from '../protocol/run-state.js';
import type { MurmurEvent } from '../protocol/events.js';
import { HELD_EXIT_CODE } from '../scheduler/held.js';
import type { PermissionMode } from '../host/permission-rules.js';
import type { EventLog } from '../host/command-parts.js';
import type { SessionStore } from '../host/session-store.js';
import type { McpSource } from '../host/mcp-servers.js';
import { namedSession } from './named-session.js';
import type { MurmurConfig } from '../orchestrator/config.js';
import { HostInputError } from '../host/errors.js';
import { startRun } from '../host/run.js';
import type { Answers } from '../host/answers.js';
import type { Finished, Refused, RunRequest } from '../host/lifecycle.js';
import { commandTracing } from './telemetry.js';
import { printFinished, writeAll } from './print-outcome.js';

export interface TerminalRunOptions {
  title: string;
  sessionKind: 'run' | 'swarm';
  /** The new session, made before the run (a scheduled run's); absent = --session-id's or a fresh one. */
  session?: SessionStore;
  /** Saved with the session besides the flags' (the swarm's --output-jsonl file). */
  settings?: RunSettings;
  /**
   * Nobody watches (a scheduled run, work the web console started): a call that needs a person is held as an
   * interruption and the run ends `waiting` (exit 75), instead of being asked on a screen or settled by policy.
   */
  hold?: boolean;
  /** A resume's answers to what its session waits for (--approve / --deny). */
  answers?: Answers;
  /** Aborts the run (a scheduled run's watchdog), as Ctrl-C does. */
  signal?: AbortSignal;
  /** Hears the finished run before its exit status is decided (a scheduled task's history). Must not throw. */
  onFinished?: (finished: Finished) => void;
}

/** The terminal's parts, made as the run sets up and closed when it ends. */
interface Parts {
  screen?: PendingScreen;
  mcp?: McpSource;
  eventLog?: EventLog;
  early: MurmurEvent[];
  stopCollecting?: () => void;
}

/**
 * Runs `request` on the command line and returns the exit status: 0 completed, 75 waiting for a person, 130 aborted,
 * 1 otherwise. Bad input found as the run starts is a UsageError (a refused request says `refusedAs` of it).
 */
export async function runInTerminal(
  command: string,
  args: ParsedArgs,
  options: TerminalRunOptions,
  request: RunRequest,
  refusedAs: (refused: Refused) => string,
): Promise<number> {
  const env = process.env;
  const cwd = workspaceFrom(command, args);
  const effort = stringFlag(args, 'effort') as MurmurConfig['effort'];
  // --effort wins over `effort` in murmur.toml; the engine reads it from the configuration.
  const config = effort ? { ...(await configFor(cwd)), effort } : await configFor(cwd);
  const provider = await providerFor(command, args, config, cwd, env);
  const mode = chooseScreenMode({ json: boolFlag(args, 'json'), noDashboard: args.flags.dashboard === false, env });
  const session =
    request.kind === 'resume' ? undefined : (options.session ?? namedSession(command, args, cwd, env).session);
  const sessionId = request.kind === 'resume' ? request.resumable.session.id : session?.id;
  const permissionMode = stringFlag(args, 'permission-mode') as PermissionMode | undefined;
  const baseUrl = stringFlag(args, 'base-url');
  // Only a given flag counts: its absence must not override `swarmMode = true` in the configuration.
  const swarmMode = args.flags['swarm-mode'] === true;
  const parts: Parts = { early: [] };
  // The screen and Ctrl-C abort the run through this signal.
  const aborter = new AbortController();
  let offInterrupt: (() => void) | undefined;
  const run = startRun({
    ...(sessionId !== undefined ? { sessionId } : {}),
    signals: [aborter.signal, options.signal],
    env,
    ...(options.answers ? { answers: options.answers } : {}),
    attach: (bus) => {
      // Warnings raised while setting up (bad agent files, skills, MCP entries) arrive before any screen listens.
      parts.stopCollecting = bus.on('log', (event) => parts.early.push(event));
      const eventLog = eventLogFor(command, args, bus);
      if (eventLog) parts.eventLog = eventLog;
      return () => undefined;
    },
    setup: async (bus) => {
      const mcp = await mcpSourceFor({ cwd, config, env, bus, provider });
      if (mcp) parts.mcp = mcp;
      // Made now (the asker needs it), drawn once the engine exists and the setup warnings are printed.
      const screen = createScreen({
        mode,
        bus,
        title: options.title,
        model: provider.name,
        env,
        onAbort: () => aborter.abort(),
      });
      parts.screen = screen;
      const { asker, headlessReason } = options.hold ? {} : askerForScreen({ mode, screen });
      return {
        assembly: {
          cwd,
          config,
          env,
          provider,
          providerFor: providerFactory(args, config, cwd, env, provider.name),
          frontEnd: 'cli',
          sessionKind: options.sessionKind,
          ...(mcp ? { mcp } : {}),
          ...(permissionMode ? { permissionMode } : {}),
          ...(swarmMode ? { swarmMode: true } : {}),
          ...(args.flags.sandbox === true ? { sandbox: { enabled: true } } : {}),
          ...(asker ? { asker } : {}),
          ...(headlessReason !== undefined ? { headlessReason } : {}),
          ...(options.hold ? { holdForPerson: true } : {}),
          ...(session ? { session } : {}),
          settings: {
            ...options.settings,
            ...(permissionMode ? { permissionMode } : {}),
            ...(swarmMode ? { swarmMode: true } : {}),
            ...(baseUrl !== undefined ? { baseUrl } : {}),
            ...(effort ? { effort } : {}),
          },
          ...commandTracing(),
        },
        request,
      };
    },
    ready: async () => {
      // Printed before the screen starts: they stay above the dashboard, which restores the screen when it ends.
      parts.stopCollecting?.();
      for (const event of parts.early)
        if (event.type === 'log')
          process.stderr.write(`murmur: ${event.level === 'info' ? '' : `${event.level}: `}${event.message}\n`);
      await parts.screen?.start();
      offInterrupt = onInterrupt(() => aborter.abort());
    },
  });
  try {
    const result = await run.done.catch((error: unknown) => {
      if (error instanceof HostInputError) throw new UsageError(`murmur: ${error.message}`);
      throw error;
    });
    parts.screen?.stop();
    if (!result.ok) throw new UsageError(`murmur ${command}: ${refusedAs(result.refused)}.`);
    options.onFinished?.(result.finished);
    writeAll(process.stdout, printFinished(args, result.finished));
    return exitStatus(command, args, result.finished.outcome);
  } finally {
    offInterrupt?.();
    parts.stopCollecting?.();
    parts.screen?.stop();
    await parts.mcp?.close();
    await parts.eventLog?.close();
  }
}

/** What the command says of a run that did not complete, and its exit status (75 = waiting, as the scheduler expects). */
function exitStatus(command: string, args: ParsedArgs, outcome: RunOutcome): number {
  const json = boolFlag(args, 'json');
  const cwdFlag = stringFlag(args, 'cwd');
  const inCwd = cwdFlag ? ` --cwd ${JSON.stringify(cwdFlag)}` : '';
  if (outcome.status === 'waiting') {
    if (!json) process.stderr.write(`${waitingText(outcome, inCwd)}\n`);
    return HELD_EXIT_CODE;
  }
  if (outcome.status !== 'completed' && !json) {
    process.stderr.write(`murmur: ${command} ended ${outcome.status}${outcome.reason ? `: ${outcome.reason}` : ''}\n`);
    if (outcome.sessionId)
      process.stderr.write(`murmur: to continue, run: murmur resume ${outcome.sessionId}${inCwd}\n`);
  }
  if (outcome.status === 'completed') return 0;
  return outcome.status === 'aborted' ? 130 : 1;
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
