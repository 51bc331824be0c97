#!/usr/bin/env node
// The murmur command. Kept tiny so `murmur --help` and `--version` start fast: each command loads lazily.
import { UsageError } from './args.js';
import { packageVersion } from './version.js';

export const HELP = `murmur — a multi-agent orchestrator: swarms and subagents with a live dashboard

Usage:
  murmur run [options] "TASK"           run a task with the main agent (it may start subagents and swarms)
  murmur swarm --template T (--items A B … | --items-file F | --glob PATTERN) [options]
                                        run one subagent per item, without a main agent
  murmur resume ID                      reopen a session after a crash or an abort and finish its work
  murmur demo                           a scripted swarm on a sample project (no API key needed)
  murmur mcp serve [--model M] [--cwd DIR]  serve run_agent and run_swarm over MCP (stdio)
  murmur sessions [--cwd DIR] [--json]  the workspace's sessions, newest first (ids for murmur resume)
  murmur schedule add|list|show|edit|pause|unpause|rm|run-now|preview …
                                        scheduled tasks (see murmur schedule --help)
  murmur scheduler [--cwd DIR]          the service that runs scheduled tasks (foreground)
  murmur serve [--port N] [--host H] [--allow-host NAME]… [--no-scheduler] [--cwd DIR]
                                        the web console (scheduled tasks, sessions, swarm timelines)
  murmur report ID [--html] [-o FILE] [--json]
                                        a session's report as text, JSON or one self-contained HTML file
  murmur worker --queue redis://… [--cwd DIR] [--concurrency N] [--model M]
                                        take swarm items from a Redis queue (see murmur swarm --queue)
  murmur --help | --version

Options (run):
  --model M              openai:MODEL | anthropic:MODEL | ollama:MODEL | scripted:FILE (default: $MURMUR_MODEL,
                         else openai:gpt-4.1 with OPENAI_API_KEY, else anthropic:claude-sonnet-4-6 with ANTHROPIC_API_KEY)
  --base-url URL         another OpenAI- or Anthropic-compatible endpoint (or OPENAI_BASE_URL / ANTHROPIC_BASE_URL)
  --cwd DIR              the workspace (default: the current folder)
  --agent NAME           run as the agent defined in .murmur/agents/NAME.md
  --events FILE          write every event as one JSON line
  --json                 print one JSON object {status, result, usage, agents} on stdout
  --no-dashboard         plain progress lines even on a terminal
  --permission-mode M    manual | auto | yolo (default manual)
  --swarm-mode           allow agent_swarm without asking
  --effort LEVEL         low | medium | high: reasoning_effort (OpenAI-compatible) or a thinking budget (Anthropic)

Options (swarm):
  --template T           the prompt for each item; {{item}} is replaced by the item
  --items A B …          the items; or --items-file F (one per line) or --glob PATTERN (matching files)
  --role R               explore | worker (coder, default) | verifier | a defined agent
  --verify               a verifier checks each completed item; failures go back to the worker
  --max-rounds N         verify rounds per item (default 2)
  --isolation worktree   each worker in its own git worktree, merged back when it completes
  --max-concurrency N    at most N subagents at once (or MURMUR_SWARM_MAX_CONCURRENCY)
  --queue redis://…      run the items on murmur workers through Redis (or MURMUR_QUEUE; rediss:// for TLS)
  --model, --base-url, --cwd, --events, --json, --no-dashboard, --permission-mode, --effort as for run

State lives in .murmur/ under the workspace (MURMUR_HOME overrides). Exit status 0 when the work completed.
`;

export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  try {
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
        throw new UsageError(
          `murmur: unknown command "${command}". Commands: run, swarm, resume, sessions, schedule, scheduler, serve, report, worker, demo, mcp serve; see murmur --help.`,
        );
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    let text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    // From the bundle: name the source files (its maps are read only now, never at start-up).
    if (error instanceof Error && error.stack) text = await import('./stack-map.js').then((m) => m.mapStack(text), () => text);
    process.stderr.write(`murmur: ${text}\n`);
    process.exitCode = 1;
  },
);
