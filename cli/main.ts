#!/usr/bin/env node
// The murmur command. Kept tiny so `murmur --help` and `--version` start fast: each command loads lazily.
import { asksForHelp, HelpRequest, UsageError } from './args.js';
import { exitQuietlyOnClosedStdout } from './closed-pipe.js';
import { installStackMapping } from './stack-map.js';
import { boundHeapGrowth } from './heap-growth.js';
import { resolveCommand, subcommands } from './commands.js';
import { commandHelp, groupHelp, helpFor, overview, unknownCommandMessage } from './help.js';
import { packageVersion } from './version.js';
import { flushTelemetry, startTelemetry } from './telemetry.js';

/** `murmur help [COMMAND [SUBCOMMAND]]`: the same text as `murmur COMMAND --help`. */
function help(words: readonly string[]): number {
  if (words.length === 0 || words[0]!.startsWith('-')) {
    process.stdout.write(overview());
    return 0;
  }
  const { command, group, rest } = resolveCommand(words);
  if (!command && !group) throw new UsageError(unknownCommandMessage(words[0]!, 'murmur help'));
  if (group && rest.length > 0) {
    const names = subcommands(group).map((c) => c.name.slice(group.length + 1));
    throw new UsageError(
      `murmur help: unknown subcommand "${rest[0]}" of murmur ${group}. Subcommands: ${names.join(', ')}.`,
    );
  }
  process.stdout.write(helpFor(words)!);
  return 0;
}

/** `--help` / `-h` after a command prints its help from the declarations, without loading the command's module. */
function helpBeforeLoading(argv: readonly string[]): number | undefined {
  const { command, group, rest } = resolveCommand(argv);
  if (group && rest[0] === 'help') return help([group, ...rest.slice(1)]);
  if (command && asksForHelp(rest, command.flags)) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  if (group && asksForHelp(rest, {})) {
    process.stdout.write(groupHelp(group));
    return 0;
  }
  return undefined;
}

export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h') {
    process.stdout.write(overview());
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  try {
    if (command === 'help') return help(rest);
    const helped = helpBeforeLoading(argv);
    if (helped !== undefined) return helped;
    // Loads the OpenTelemetry SDK only when an OTLP endpoint is configured; its spans are flushed below.
    await startTelemetry(process.env);
    return await runCommand(command, rest);
  } catch (error) {
    // A command's parser met --help where main.ts's look-ahead did not (it is called the same way in tests).
    if (error instanceof HelpRequest) {
      process.stdout.write(helpFor(error.command.split(' ')) ?? overview());
      return 0;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  } finally {
    await flushTelemetry();
  }
}

/** Each command loads lazily. */
async function runCommand(command: string, rest: readonly string[]): Promise<number> {
  switch (command) {
    case 'run':
      return await (await import('./run.js')).runCommand(rest);
    case 'swarm':
      return await (await import('./swarm.js')).swarmCommand(rest);
    case 'resume':
      return await (await import('./resume.js')).resumeCommand(rest);
    case 'demo':
      return await (await import('./demo.js')).demoCommand(rest);
    case 'mcp':
      return await (await import('./mcp-serve.js')).mcpCommand(rest);
    case 'sessions':
      return await (await import('./sessions.js')).sessionsCommand(rest);
    case 'schedule':
      return await (await import('./schedule.js')).scheduleCommand(rest);
    case 'scheduler':
      return await (await import('./scheduler.js')).schedulerCommand(rest);
    case 'serve':
      return await (await import('./serve.js')).serveCommand(rest);
    case 'report':
      return await (await import('./report.js')).reportCommand(rest);
    case 'worker':
      return await (await import('./worker.js')).workerCommand(rest);
    default:
      throw new UsageError(unknownCommandMessage(command));
  }
}

exitQuietlyOnClosedStdout();
installStackMapping();
boundHeapGrowth();

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // installStackMapping made the stack name source files (maps are read only now, never at start-up).
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`murmur: ${text}\n`);
    process.exitCode = 1;
  },
);
