// One declaration per command: its usage, summary, flags and examples. The parser (each command's module), the
// help (`murmur X --help`, `murmur help X`), `murmur --help` and the README's command contract all read these,
// through cli/help.ts. Light on purpose: nothing here imports a command's module.
import type { FlagSpecs } from './args.js';
import {
  DEMO_FLAGS,
  MCP_FLAGS,
  REPORT_FLAGS,
  RESUME_FLAGS,
  RUN_FLAGS,
  SCHEDULE_FLAGS,
  SCHEDULER_FLAGS,
  SERVE_FLAGS,
  SESSIONS_FLAGS,
  SWARM_FLAGS,
  WORKER_FLAGS,
} from './flags.js';

export interface CommandSpec {
  /** As typed after `murmur`: `run`, `schedule add`, `mcp serve`. */
  name: string;
  /** The usage's fixed part after the name: positionals and required flags. Every other visible flag follows as `[--flag VALUE]`. */
  args?: string;
  /** What comes after the optional flags (`"TASK"`). */
  trailing?: string;
  /** One line: what the command does. */
  summary: string;
  flags: FlagSpecs;
  /** Whole command lines, at least one. */
  examples: readonly string[];
  /** Extra lines for the help, after the flags. */
  notes?: readonly string[];
}

const STATE_NOTE =
  'State lives in .murmur/ under the workspace (MURMUR_HOME overrides). Exit status 0 when the work completed, 1 when it did not, 2 for bad input, 130 when aborted.';

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'run',
    trailing: '"TASK"',
    summary: 'run a task with the main agent (it may start subagents and swarms)',
    flags: RUN_FLAGS,
    examples: [
      'murmur run "add a --verbose flag to cli.ts and test it"',
      'murmur run --model anthropic:claude-sonnet-4-6 --permission-mode auto --json "fix the failing test"',
      'murmur run --session 20261130-021503-ab12 "now add a test for the empty case"',
    ],
    notes: [STATE_NOTE],
  },
  {
    name: 'swarm',
    args: '--template T (--items A B … | --items-file F | --glob PATTERN)',
    summary: 'run one subagent per item, without a main agent',
    flags: SWARM_FLAGS,
    examples: [
      "murmur swarm --template 'Add JSDoc to every export in {{item}}' --glob 'src/**/*.ts' --verify",
      "murmur swarm --template 'Summarize {{item}}' --items README.md CHANGELOG.md --role explore --json",
    ],
    notes: ['Give the items with exactly one of --items, --items-file or --glob.', STATE_NOTE],
  },
  {
    name: 'worker',
    args: '--queue redis://[user:pass@]HOST:PORT[/DB]',
    summary: 'take swarm items from a Redis queue (see murmur swarm --queue)',
    flags: WORKER_FLAGS,
    examples: ['MURMUR_QUEUE=redis://:PASSWORD@queue.internal:6379 murmur worker --cwd ~/src/project --concurrency 4'],
    notes: [
      'Runs until Ctrl-C or SIGTERM; running items finish first. MURMUR_QUEUE_STALLED_MS: the lock time of a running item (default 30000); the item of a killed worker moves within about 1–1.5× of it.',
    ],
  },
  {
    name: 'resume',
    args: 'ID',
    summary: 'reopen a session after a crash or an abort and finish its work, or run ended swarm items again',
    flags: RESUME_FLAGS,
    examples: [
      'murmur resume 20261130-021503-ab12',
      'murmur resume 20261130-021503-ab12 --no-dashboard --json',
      'murmur resume 20261130-021503-ab12 --retry-failed',
      'murmur resume 20261130-021503-ab12 --retry src/a.ts src/b.ts',
    ],
    notes: [
      "The ids are in murmur sessions. The run continues with the session's model, endpoint and rules unless given again.",
      'A retry reopens a swarm session that ended: the items named run again with a fresh agent (their attempt + 1), the others stay as they ended, and murmur report shows every attempt of an item.',
    ],
  },
  {
    name: 'sessions',
    summary: "the workspace's sessions, newest first (ids for murmur resume)",
    flags: SESSIONS_FLAGS,
    examples: ['murmur sessions', 'murmur sessions --cwd ~/src/project --json'],
  },
  {
    name: 'report',
    args: 'ID',
    summary: "a session's report (text, JSON or one self-contained HTML file)",
    flags: REPORT_FLAGS,
    examples: ['murmur report 20261130-021503-ab12', 'murmur report 20261130-021503-ab12 --html -o swarm.html'],
  },
  {
    name: 'schedule add',
    args: '(--cron EXPR | --every N(d|w|mo) --at HH:MM [--start DATE]) --prompt TEXT',
    summary: 'a new scheduled task, run by murmur scheduler or murmur serve',
    flags: SCHEDULE_FLAGS.add,
    examples: [
      'murmur schedule add --cron "0 9 * * 1-5" --prompt "summarize yesterday\'s commits in NOTES.md" --title Standup',
      'murmur schedule add --every 2w --at 08:30 --prompt "update the dependencies" --permission-mode auto',
    ],
  },
  {
    name: 'schedule list',
    summary: 'the scheduled tasks of every workspace (or one), with their next run',
    flags: SCHEDULE_FLAGS.list,
    examples: ['murmur schedule list', 'murmur schedule list --status active --json'],
  },
  {
    name: 'schedule show',
    args: 'ID',
    summary: 'the task, its next 3 ideal run times, its history',
    flags: SCHEDULE_FLAGS.show,
    examples: ['murmur schedule show st-0a1b2c3d4e'],
  },
  {
    name: 'schedule edit',
    args: 'ID',
    summary: 'change a task; its identity and history are kept',
    flags: SCHEDULE_FLAGS.edit,
    examples: ['murmur schedule edit st-0a1b2c3d4e --cron "0 10 * * 1-5"', 'murmur schedule edit st-0a1b2c3d4e --keep'],
  },
  {
    name: 'schedule pause',
    args: 'ID',
    summary: 'stop firing until unpaused',
    flags: SCHEDULE_FLAGS.simple,
    examples: ['murmur schedule pause st-0a1b2c3d4e'],
  },
  {
    name: 'schedule unpause',
    args: 'ID',
    summary: 'fire again (fires missed while paused are not replayed)',
    flags: SCHEDULE_FLAGS.simple,
    examples: ['murmur schedule unpause st-0a1b2c3d4e'],
  },
  {
    name: 'schedule rm',
    args: 'ID',
    summary: 'remove a task',
    flags: SCHEDULE_FLAGS.simple,
    examples: ['murmur schedule rm st-0a1b2c3d4e'],
  },
  {
    name: 'schedule run-now',
    args: 'ID',
    summary: 'run a task once now (when a scheduler serves its workspace)',
    flags: SCHEDULE_FLAGS.simple,
    examples: ['murmur schedule run-now st-0a1b2c3d4e'],
  },
  {
    name: 'schedule preview',
    args: '(--cron EXPR | --every N(d|w|mo) --at HH:MM [--start DATE])',
    summary: "a schedule's next run times, without creating a task",
    flags: SCHEDULE_FLAGS.preview,
    examples: [
      'murmur schedule preview --cron "0 9 * * 1-5" --timezone Europe/Berlin',
      'murmur schedule preview --every 1mo --at 09:00 --start 2026-01-31 --count 5',
    ],
  },
  {
    name: 'scheduler',
    summary: 'the service that runs scheduled tasks (foreground)',
    flags: SCHEDULER_FLAGS,
    examples: ['murmur scheduler', 'murmur scheduler --cwd ~/src/project'],
    notes: [
      'One line per fire and per finished run on stdout. Ctrl-C stops it; running sessions are saved for murmur resume.',
    ],
  },
  {
    name: 'serve',
    summary: 'the web console (scheduled tasks, sessions, swarm timelines) and the scheduler',
    flags: SERVE_FLAGS,
    examples: ['murmur serve', 'murmur serve --port 0 --no-scheduler --cwd ~/src/project'],
    notes: ["The first line on stdout is the console's link with this start's token."],
  },
  {
    name: 'mcp serve',
    summary: 'serve run_agent and run_swarm over MCP on stdin/stdout (logs go to stderr)',
    flags: MCP_FLAGS,
    examples: ['murmur mcp serve --model anthropic:claude-sonnet-4-6 --cwd ~/src/project'],
  },
  {
    name: 'demo',
    summary: 'a scripted swarm on a sample project (no API key needed)',
    flags: DEMO_FLAGS,
    examples: ['murmur demo', 'murmur demo --no-dashboard'],
  },
];

/** Commands with subcommands: `murmur schedule add`; `murmur mcp` has only `serve`, which it stands for. */
export const GROUPS: Readonly<Record<string, { summary: string; fallback?: string }>> = {
  schedule: { summary: 'scheduled tasks (run by murmur scheduler or murmur serve)' },
  mcp: { summary: 'murmur as an MCP server', fallback: 'serve' },
};

export function commandSpec(name: string): CommandSpec {
  const spec = COMMANDS.find((c) => c.name === name);
  if (!spec) throw new Error(`no command declaration for "${name}"`);
  return spec;
}

/** The subcommands of a group, in declaration order. */
export function subcommands(group: string): CommandSpec[] {
  return COMMANDS.filter((c) => c.name.startsWith(`${group} `));
}

/** What ARGV names: a command, a group (`schedule` alone) or nothing known; with the words after it. */
export function resolveCommand(argv: readonly string[]): { command?: CommandSpec; group?: string; rest: string[] } {
  const [first, second, ...more] = argv;
  if (first === undefined) return { rest: [] };
  const group = GROUPS[first];
  if (group) {
    const sub = COMMANDS.find((c) => c.name === `${first} ${second}`);
    if (sub) return { command: sub, rest: more };
    if (group.fallback) return { command: commandSpec(`${first} ${group.fallback}`), rest: argv.slice(1) };
    return { group: first, rest: argv.slice(1) };
  }
  const command = COMMANDS.find((c) => c.name === first);
  return command ? { command, rest: argv.slice(1) } : { rest: argv.slice(1) };
}
