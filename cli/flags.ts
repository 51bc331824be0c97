// Every command's flags, declared once: the parser reads the kinds and choices, help and the README's command
// contract (cli/help.ts) read the descriptions, defaults and value names. Light on purpose: `murmur X --help`
// loads this file, never the command's own module.
import type { FlagSpec, FlagSpecs } from './args.js';

const MODES = ['manual', 'auto', 'yolo'] as const;
const EFFORTS = ['low', 'medium', 'high'] as const;

const model: FlagSpec = {
  kind: 'string',
  value: 'M',
  description: 'the model: openai:MODEL | anthropic:MODEL | ollama:MODEL | scripted:FILE',
  default:
    "$MURMUR_MODEL, else murmur.toml's model, else the default of OPENAI_API_KEY's or ANTHROPIC_API_KEY's provider",
};
const baseUrl: FlagSpec = {
  kind: 'string',
  value: 'URL',
  description: 'another OpenAI- or Anthropic-compatible endpoint',
  default: "OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's",
};
const cwd: FlagSpec = { kind: 'string', value: 'DIR', description: 'the workspace', default: 'the current folder' };
const json: FlagSpec = {
  kind: 'boolean',
  description: 'print one JSON object on stdout: {status, result, usage, agents, sessionId}',
};
const permissionMode: FlagSpec = {
  kind: 'string',
  choices: MODES,
  description:
    'manual asks before writes and commands; auto also allows edits inside the workspace; yolo asks for nothing',
  default: "murmur.toml's permissionMode, else manual",
};
const effort: FlagSpec = {
  kind: 'string',
  choices: EFFORTS,
  description: 'how hard the model thinks: reasoning_effort (OpenAI-compatible) or a thinking budget (Anthropic)',
  default: "murmur.toml's effort, else the model's own",
};
const queue: FlagSpec = {
  kind: 'string',
  value: 'redis://…',
  description: 'a Redis queue (rediss:// for TLS); a URL with a password is better given in MURMUR_QUEUE',
  default: 'MURMUR_QUEUE',
};

const sandbox: FlagSpec = {
  kind: 'boolean',
  description:
    "agents' bash commands in a bubblewrap sandbox: the workspace writable, the rest read-only, no secrets, no network",
  default: "murmur.toml's [sandbox] enabled, else off",
};

/** What run, swarm and resume share. */
export const COMMON_FLAGS: FlagSpecs = {
  model,
  'base-url': baseUrl,
  cwd,
  events: { kind: 'string', value: 'FILE', description: 'write every event to FILE as one JSON line' },
  json,
  dashboard: {
    kind: 'boolean',
    negated: true,
    description: 'plain progress lines on stderr instead of the live dashboard',
    default: 'the dashboard on a terminal',
  },
  'permission-mode': permissionMode,
  'swarm-mode': { kind: 'boolean', description: 'let agents start swarms (agent_swarm) without asking' },
  effort,
  sandbox,
};

const outputSchema: FlagSpec = {
  kind: 'string',
  value: 'FILE.json',
  description:
    'a JSON Schema the answer must match: the agent answers through final_answer, checked and sent back once if invalid',
};

/** The id of the new session (the web console names the session it starts, to open it): not for people. */
const sessionId: FlagSpec = { kind: 'string', hidden: true };

export const RUN_FLAGS: FlagSpecs = {
  ...COMMON_FLAGS,
  'output-schema': { ...outputSchema, description: `${outputSchema.description}; --json's output holds it` },
  agent: {
    kind: 'string',
    value: 'NAME',
    description: 'run as the agent defined in .murmur/agents/NAME.md (or ~/.murmur/agents/)',
  },
  session: {
    kind: 'string',
    value: 'ID',
    description:
      "continue session ID's conversation: TASK is its next message, answered with everything said before (the session's model and settings)",
  },
  'session-id': sessionId,
  // The web console's runs: a request that needs a person is held (as in a scheduled run), not denied.
  hold: { kind: 'boolean', hidden: true },
};

export const SWARM_FLAGS: FlagSpecs = {
  template: { kind: 'string', value: 'T', description: 'the prompt for each item; {{item}} is replaced by the item' },
  items: { kind: 'list', value: 'A B …', description: 'the items, as arguments' },
  'items-file': { kind: 'string', value: 'F', description: 'the items, one per line of F' },
  glob: { kind: 'string', value: 'PATTERN', description: 'the items: the files matching PATTERN under the workspace' },
  role: {
    kind: 'string',
    value: 'R',
    description: 'explore | worker (coder) | verifier | an agent defined in .murmur/agents/',
    default: 'worker',
  },
  verify: { kind: 'boolean', description: 'a verifier checks each completed item; failures go back to the worker' },
  'max-rounds': { kind: 'string', value: 'N', description: 'verify rounds per item', default: '2' },
  isolation: {
    kind: 'string',
    choices: ['none', 'worktree'],
    description: 'worktree: each worker in its own git worktree, merged back when it completes',
    default: 'none',
  },
  'max-concurrency': {
    kind: 'string',
    value: 'N',
    description: 'at most N subagents at once',
    default: "MURMUR_SWARM_MAX_CONCURRENCY, else murmur.toml's swarm.maxConcurrency",
  },
  description: {
    kind: 'string',
    value: 'TEXT',
    description: "the swarm's title in the dashboard, murmur sessions and the report",
    default: "the template's first line × the item count",
  },
  queue: { ...queue, description: 'run the items on murmur workers through Redis (rediss:// for TLS)' },
  'output-schema': { ...outputSchema, description: `${outputSchema.description}; each item's is its output` },
  'output-jsonl': {
    kind: 'string',
    value: 'FILE',
    description:
      'one JSON line per finished item as it finishes: {index, item, outcome, output?, reason?, agentId, verdict?}; a resume appends the rest',
  },
  ...COMMON_FLAGS,
  json: {
    ...json,
    description: 'print one JSON object on stdout: {summary, resumeAgentIds, items, status, sessionId}',
  },
  'session-id': sessionId,
  // The web console's runs: a request that needs a person is held (as in a scheduled run), not denied.
  hold: { kind: 'boolean', hidden: true },
};

const SESSIONS = "the session's";
export const RESUME_FLAGS: FlagSpecs = {
  ...COMMON_FLAGS,
  model: { ...model, default: SESSIONS },
  'base-url': { ...baseUrl, default: SESSIONS },
  'permission-mode': { ...permissionMode, default: SESSIONS },
  'swarm-mode': { ...COMMON_FLAGS['swarm-mode']!, default: SESSIONS },
  effort: { ...effort, default: SESSIONS },
  sandbox: { ...sandbox, default: "the session's (a session run in the sandbox resumes in it)" },
  // A queue swarm whose URL holds a password was saved without it, so it is given again.
  queue: {
    ...queue,
    description: "a queue swarm's Redis URL again (one holding a password is not saved)",
    default: 'MURMUR_QUEUE, else the saved URL',
  },
  // The web console's resume after a person answered there: requests nobody answered are held again, not denied.
  hold: { kind: 'boolean', hidden: true },
  approve: {
    kind: 'list',
    value: 'CALL…',
    description:
      'approve calls the session waits for (AGENT/CALL, or the call id alone when one agent made it; see the cards it printed)',
  },
  always: { kind: 'boolean', description: 'with --approve: allow such calls for the rest of the session' },
  deny: {
    kind: 'list',
    value: 'CALL…',
    description: 'deny calls the session waits for; --reason says why to the agent',
  },
  reason: { kind: 'string', value: 'TEXT', description: 'with --deny: what the agent is told' },
  retry: {
    kind: 'list',
    value: 'ITEM…',
    description:
      'run these items of an ended swarm again (by label), each with a fresh agent on its next attempt; the others stay as they ended',
  },
  'retry-failed': {
    kind: 'boolean',
    description: 'run again every item that failed, conflicted, was aborted or failed its verification',
  },
};

export const SESSIONS_FLAGS: FlagSpecs = {
  cwd,
  json: { ...json, description: 'print the sessions as one JSON array' },
};

export const DEMO_FLAGS: FlagSpecs = {
  dashboard: COMMON_FLAGS.dashboard!,
  json: { ...json, description: "print the swarm's JSON report on stdout (no commentary)" },
};

export const MCP_FLAGS: FlagSpecs = {
  model,
  'base-url': baseUrl,
  cwd,
  // Accepted for the permission system; nobody can answer an approval question over MCP.
  'permission-mode': {
    ...permissionMode,
    description: 'what tools may do; nobody can be asked over MCP, so a call that needs approval is refused',
  },
  sandbox,
};

export const WORKER_FLAGS: FlagSpecs = {
  queue: {
    ...queue,
    value: 'redis://[user:pass@]HOST:PORT[/DB]',
    description: 'the Redis queue the coordinator (murmur swarm --queue) fills',
  },
  cwd: { ...cwd, description: "a clone of the coordinator's git repository; items run in fresh worktrees of it" },
  concurrency: { kind: 'string', value: 'N', description: 'items run at once', default: '1' },
  model: {
    ...model,
    description: "the model for every item, instead of the coordinator's",
    default: "each item's (the coordinator's model)",
  },
  'base-url': baseUrl,
  name: {
    kind: 'string',
    value: 'NAME',
    description: "this worker's name in the coordinator's report",
    default: 'the host name',
  },
  sandbox: {
    ...sandbox,
    description: "every item's bash commands in a bubblewrap sandbox (items of a sandboxed swarm always are)",
  },
};

export const SERVE_FLAGS: FlagSpecs = {
  port: { kind: 'string', value: 'N', description: 'the port; 0 picks a free one', default: '4777' },
  host: {
    kind: 'string',
    value: 'H',
    description: 'the address to listen on (not loopback: anyone with the link can reach it)',
    default: '127.0.0.1',
  },
  'allow-host': {
    kind: 'list',
    value: 'NAME',
    description: 'another Host header to answer to (with a --host other than loopback)',
  },
  scheduler: {
    kind: 'boolean',
    negated: true,
    description: 'the console only, without the scheduler service in the same process',
    default: 'the scheduler runs too',
  },
  cwd: {
    ...cwd,
    description: "the console's workspace (with it, the scheduler serves only this one)",
    default: 'the current folder; the scheduler serves every workspace',
  },
};

export const REPORT_FLAGS: FlagSpecs = {
  html: {
    kind: 'boolean',
    description: 'write one self-contained HTML file (the console page with its timeline) and print its path',
  },
  output: {
    kind: 'string',
    short: 'o',
    value: 'FILE',
    description: 'with --html: where to write it',
    default: "report.html in the session's folder",
  },
  json: { ...json, description: 'print the JSON object that --json printed at the end of the run' },
  cwd,
};

export const SCHEDULER_FLAGS: FlagSpecs = {
  cwd: { ...cwd, description: 'serve only this workspace', default: 'every workspace in ~/.murmur/workspaces.json' },
  // The child mode the service itself uses for each run (`--exec-run RUN …`, prompt on stdin): not for people.
  'exec-run': { kind: 'string', hidden: true },
  task: { kind: 'string', hidden: true },
  'session-id': { kind: 'string', hidden: true },
  'scheduler-pid': { kind: 'string', hidden: true },
  model: { ...model, hidden: true },
  'permission-mode': { ...permissionMode, hidden: true },
  effort: { ...effort, hidden: true },
  json: { ...json, hidden: true },
};

/** What `murmur schedule add` and `edit` set. */
export const DEFINITION_FLAGS: FlagSpecs = {
  cron: {
    kind: 'string',
    value: 'EXPR',
    description: '5 fields: minute hour day-of-month month day-of-week ("0 9 * * 1-5")',
  },
  every: { kind: 'string', value: 'N(d|w|mo)', description: 'every N days, weeks or months (with --at)' },
  at: { kind: 'string', value: 'HH:MM', description: 'the time of day of an --every schedule' },
  start: {
    kind: 'string',
    value: 'DATE',
    description: 'the first day of an --every schedule (YYYY-MM-DD)',
    default: 'today',
  },
  until: {
    kind: 'string',
    value: 'DATE',
    description: 'the last day it runs (YYYY-MM-DD); an interval ending on its first day runs once',
  },
  prompt: { kind: 'string', value: 'TEXT', description: 'what each run does' },
  title: { kind: 'string', value: 'T', description: 'a short name for lists', default: "the prompt's first line" },
  timezone: { kind: 'string', value: 'Z', description: 'an IANA zone (Europe/Berlin)', default: "this machine's" },
  once: { kind: 'boolean', description: 'fire once, then end' },
  'max-fires': { kind: 'string', value: 'N', description: 'end a recurring task after N fires' },
  'permission-mode': {
    kind: 'string',
    value: 'M',
    description: 'manual | auto | yolo for its runs (a call that needs a person holds the run)',
    default: "the workspace's",
  },
  model: { ...model, description: 'the model for its runs', default: "the workspace's" },
  effort: { kind: 'string', value: 'E', description: 'low | medium | high for its runs' },
  json: { kind: 'boolean', description: 'print the task as one JSON object' },
};

const taskJson: FlagSpec = DEFINITION_FLAGS.json!;
const scheduleCwd: FlagSpec = { ...cwd, description: "the task's workspace" };

const definitionOnly: FlagSpecs = Object.fromEntries(
  Object.entries(DEFINITION_FLAGS).filter(([name]) => name !== 'json'),
);

export const SCHEDULE_FLAGS = {
  add: { ...definitionOnly, cwd: scheduleCwd, json: taskJson },
  list: {
    status: {
      kind: 'string',
      choices: ['all', 'active', 'paused', 'failed', 'ended'],
      description: 'only the tasks with this status',
      default: 'all',
    },
    cwd: { ...cwd, description: "only this workspace's tasks", default: 'every workspace' },
    json: { ...json, description: 'print the tasks as one JSON array' },
  },
  show: { json: taskJson },
  edit: { ...DEFINITION_FLAGS, keep: { kind: 'boolean', description: 'a task an agent created never goes stale' } },
  simple: {},
  preview: {
    cron: DEFINITION_FLAGS.cron!,
    every: DEFINITION_FLAGS.every!,
    at: DEFINITION_FLAGS.at!,
    start: DEFINITION_FLAGS.start!,
    until: DEFINITION_FLAGS.until!,
    timezone: DEFINITION_FLAGS.timezone!,
    count: { kind: 'string', value: 'N', description: 'how many run times (at most 1000)', default: '3' },
    json: { ...json, description: 'print the times as one JSON array' },
  },
} satisfies Record<string, FlagSpecs>;
