// `murmur run "TASK"`: the main agent on a task, with the screen, the event log and the session on disk.
import { boolFlag, parseArgs, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { workspaceFrom } from './setup.js';
import { RUN_FLAGS } from './flags.js';
import { loadAgentDefinitions, profileOrProblem } from '../roles/definitions.js';
import { buildHost, type Host } from './host.js';
import type { RunOutcome } from '../orchestrator/engine.js';
import type { AgentProfile } from '../roles/profile.js';
import { runReport } from '../host/reports.js';

export async function runCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs('run', argv, RUN_FLAGS);
  const task = args.positionals.join(' ').trim();
  if (!task) throw new UsageError('murmur run: missing the task. Usage: murmur run [options] "TASK" (see murmur run --help).');
  // A bad --agent is a usage error before anything starts (no session is left behind).
  checkAgentFlag(args);
  const host = await buildHost('run', args, { title: task, sessionKind: 'run' });
  try {
    const profile = profileFor(host, args);
    const outcome = await host.engine.runTask(task, profile);
    return await host.finishRun(outcome, printOutcome(args, outcome));
  } finally {
    await host.close();
  }
}

function checkAgentFlag(args: ParsedArgs): void {
  const name = stringFlag(args, 'agent');
  if (name === undefined) return;
  const env = process.env;
  const loaded = loadAgentDefinitions({ workspace: workspaceFrom('run', args), ...(env.HOME ? { userHome: env.HOME } : {}) });
  const profile = profileOrProblem(name, loaded);
  if (typeof profile === 'string') throw new UsageError(`murmur run: --agent ${JSON.stringify(name)}: ${profile}.`);
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
  if (boolFlag(args, 'json')) return `${JSON.stringify(runReport(outcome))}\n`;
  return outcome.result ? `${outcome.result}\n` : '';
}
