// `murmur swarm`: one subagent per item, without a main agent; prints the report (JSON with --json).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { boolFlag, parseArgs, positiveIntFlag, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { workspaceFrom } from './setup.js';
import { SWARM_FLAGS } from './flags.js';
import { runInTerminal } from './terminal-run.js';
import type { SwarmLaunch } from '../host/swarm.js';
import { swarmTitle, type Finished } from '../host/lifecycle.js';
import { agentNameProblem, swarmItemsProblem } from '../host/checks.js';
import { queueFromFlagOrEnv } from './worker.js';
import { openOutputJsonl, outputJsonlPath, outputSpecFrom } from './output-options.js';

async function itemsFrom(args: ParsedArgs, cwd: string): Promise<string[]> {
  const sources = ['items', 'items-file', 'glob'].filter((k) => args.flags[k] !== undefined);
  if (sources.length !== 1) {
    throw new UsageError(
      `murmur swarm: give the items with exactly one of --items A B …, --items-file F or --glob PATTERN${sources.length > 1 ? ` (got ${sources.map((s) => `--${s}`).join(' and ')})` : ''}.`,
    );
  }
  if (args.flags.items !== undefined) return args.flags.items as string[];
  const file = stringFlag(args, 'items-file');
  if (file !== undefined) {
    try {
      return readFileSync(resolve(cwd, file), 'utf8')
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter(Boolean);
    } catch (error) {
      throw new UsageError(
        `murmur swarm: cannot read --items-file ${JSON.stringify(file)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
      );
    }
  }
  const pattern = stringFlag(args, 'glob')!;
  const { globItems } = await import('../host/glob-items.js');
  const files = await globItems(pattern, cwd);
  if (files.length === 0)
    throw new UsageError(`murmur swarm: --glob ${JSON.stringify(pattern)} matches no file under ${cwd}.`);
  return files;
}

/** What can be refused without a session: no folder is left behind by a swarm that never started. */
function checkBeforeStart(template: string, items: readonly string[], role: string | undefined, cwd: string): void {
  const itemsProblem = swarmItemsProblem(template, items, '--template');
  if (itemsProblem) throw new UsageError(`murmur swarm: ${itemsProblem}.`);
  const roleProblem = role === undefined ? undefined : agentNameProblem(cwd, process.env, role, true);
  if (roleProblem) throw new UsageError(`murmur swarm: --role ${roleProblem}.`);
}

/**
 * The swarm the flags ask for, checked. Its own function, so no frame of the command holds the items while the
 * swarm runs (the run lets go of the launch's list once planned: a million labels otherwise stay for the run).
 */
async function launchFrom(args: ParsedArgs, cwd: string): Promise<SwarmLaunch & { description: string }> {
  const template = stringFlag(args, 'template');
  if (template === undefined)
    throw new UsageError('murmur swarm: --template is required (the prompt for each item, with {{item}}).');
  const items = await itemsFrom(args, cwd);
  const maxConcurrency = positiveIntFlag('swarm', args, 'max-concurrency');
  const maxRounds = positiveIntFlag('swarm', args, 'max-rounds');
  const description = swarmTitle(template, items, stringFlag(args, 'description'));
  checkBeforeStart(template, items, stringFlag(args, 'role'), cwd);
  // A bad, unreachable or refusing queue is exit 2 before any session exists.
  const queue = await queueFromFlagOrEnv('swarm', stringFlag(args, 'queue'), process.env);
  const output = await outputSpecFrom('swarm', args);
  const role = stringFlag(args, 'role');
  const isolation = stringFlag(args, 'isolation') as 'none' | 'worktree' | undefined;
  return {
    promptTemplate: template,
    items,
    description,
    verify: boolFlag(args, 'verify'),
    maxItems: Number.POSITIVE_INFINITY,
    minItems: 1,
    ...(role !== undefined ? { subagentType: role } : {}),
    ...(isolation !== undefined ? { isolation } : {}),
    ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
    ...(maxRounds !== undefined ? { maxRounds } : {}),
    ...(queue ? { queue } : {}),
    ...(output ? { output } : {}),
  };
}

export async function swarmCommand(
  argv: readonly string[],
  hooks: { onFinished?: (finished: Finished) => void } = {},
): Promise<number> {
  const args = parseArgs('swarm', argv, SWARM_FLAGS);
  if (args.positionals.length > 0)
    throw new UsageError(
      `murmur swarm: unexpected argument ${JSON.stringify(args.positionals[0])}; items go after --items.`,
    );
  const cwd = workspaceFrom('swarm', args);
  const launch = await launchFrom(args, cwd);
  const { description } = launch;
  const jsonl = outputJsonlPath(args);
  const onItem = jsonl !== undefined ? openOutputJsonl('swarm', jsonl, false) : undefined;
  // Started by the web console (--hold): a request that needs a person waits, to be answered on its page (exit 75).
  const hold = boolFlag(args, 'hold');
  if (hold) args.flags.json = true;
  return runInTerminal(
    'swarm',
    args,
    {
      title: description,
      sessionKind: 'swarm',
      ...(hold ? { hold: true } : {}),
      ...(hooks.onFinished ? { onFinished: hooks.onFinished } : {}),
      // Saved with the session: a resume appends the items not yet written.
      ...(jsonl !== undefined ? { settings: { outputJsonl: jsonl } } : {}),
    },
    { kind: 'swarm', launch, ...(onItem ? { onItem } : {}) },
    (refused) => refused.message,
  );
}
