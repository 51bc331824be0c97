// `murmur run "TASK"`: the main agent on a task, with the screen, the event log and the session on disk.
import { boolFlag, parseArgs, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { COMMON_FLAGS } from './setup.js';
import { buildHost, type Host } from './host.js';
import type { RunOutcome } from '../orchestrator/engine.js';
import type { AgentProfile } from '../roles/profile.js';

const RUN_FLAGS = { ...COMMON_FLAGS, agent: { kind: 'string' } } as const;

export async function runCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs('run', argv, RUN_FLAGS);
  const task = args.positionals.join(' ').trim();
  if (!task) throw new UsageError('murmur run: missing the task. Usage: murmur run [options] "TASK" (see murmur --help).');
  const host = await buildHost('run', args, { title: task, sessionKind: 'run' });
  try {
    const profile = profileFor(host, args);
    const outcome = await host.engine.runTask(task, profile);
    return await host.finishRun(outcome, printOutcome(args, outcome));
  } finally {
    await host.close();
  }
}

function profileFor(host: Host, args: ParsedArgs): AgentProfile | undefined {
  const name = stringFlag(args, 'agent');
  if (name === undefined) return undefined;
  const profile = host.engine.profile(name);
  if (typeof profile === 'string') throw new UsageError(`murmur run: --agent ${JSON.stringify(name)}: ${profile}.`);
  return profile;
}

/** What goes to stdout: the answer, or one JSON object with --json. */
export function printOutcome(args: ParsedArgs, outcome: RunOutcome): string {
  if (boolFlag(args, 'json')) {
    const json: Record<string, unknown> = { status: outcome.status, result: outcome.result, usage: outcome.usage, agents: outcome.agents };
    if (outcome.reason !== undefined) json.reason = outcome.reason;
    if (outcome.sessionId !== undefined) json.sessionId = outcome.sessionId;
    return `${JSON.stringify(json)}\n`;
  }
  return outcome.result ? `${outcome.result}\n` : '';
}
