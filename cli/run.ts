// `murmur run "TASK"`: the main agent on a task, with the screen, the event log and the session on disk.
import { boolFlag, parseArgs, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { workspaceFrom } from './setup.js';
import { RUN_FLAGS } from './flags.js';
import { loadAgentDefinitions, prepareAgentDefinitions, profileOrProblem } from '../host/agent-profiles.js';
import { runInTerminal } from './terminal-run.js';
import { outputSpecFrom } from './output-options.js';

export async function runCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs('run', argv, RUN_FLAGS);
  const task = args.positionals.join(' ').trim();
  if (!task)
    throw new UsageError('murmur run: missing the task. Usage: murmur run [options] "TASK" (see murmur run --help).');
  const session = stringFlag(args, 'session');
  // Its module reads sessions (and what resume reads): loaded only for a conversation continued.
  if (session !== undefined) return (await import('./continue.js')).continueCommand(args, session, task);
  // A bad --agent is a usage error before anything starts (no session is left behind).
  await checkAgentFlag(args);
  const agent = stringFlag(args, 'agent');
  const output = await outputSpecFrom('run', args);
  // Started by the web console (--hold): a request that needs a person waits, to be answered on its page (exit 75).
  const hold = boolFlag(args, 'hold');
  if (hold) args.flags.json = true;
  return runInTerminal(
    'run',
    args,
    { title: task, sessionKind: 'run', ...(hold ? { hold: true } : {}) },
    { kind: 'task', task, ...(agent !== undefined ? { agent } : {}), ...(output ? { output } : {}) },
    (refused) => `--agent ${refused.message}`,
  );
}

async function checkAgentFlag(args: ParsedArgs): Promise<void> {
  const name = stringFlag(args, 'agent');
  if (name === undefined) return;
  const env = process.env;
  const places = { workspace: workspaceFrom('run', args), ...(env.HOME ? { userHome: env.HOME } : {}) };
  await prepareAgentDefinitions(places);
  const loaded = loadAgentDefinitions(places);
  const profile = profileOrProblem(name, loaded);
  if (typeof profile === 'string') throw new UsageError(`murmur run: --agent ${JSON.stringify(name)}: ${profile}.`);
}
