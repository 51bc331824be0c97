// `murmur swarm`: one subagent per item, without a main agent; prints the report (JSON with --json).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { boolFlag, parseArgs, positiveIntFlag, stringFlag, UsageError, type ParsedArgs } from './args.js';
import { workspaceFrom } from './setup.js';
import { SWARM_FLAGS } from './flags.js';
import { buildHost } from './host.js';
import { printFinished } from './print-outcome.js';
import type { SwarmLaunch } from '../host/swarm.js';
import { swarmTitle } from '../host/lifecycle.js';
import { validateSwarmItems } from '../swarm/validate.js';
import { loadAgentDefinitions } from '../roles/definitions.js';
import { knownProfileNames, resolveProfile } from '../roles/profile.js';
import { queueFromFlagOrEnv } from './worker.js';

async function itemsFrom(args: ParsedArgs, cwd: string): Promise<string[]> {
  const sources = ['items', 'items-file', 'glob'].filter((k) => args.flags[k] !== undefined);
  if (sources.length !== 1) {
    throw new UsageError(`murmur swarm: give the items with exactly one of --items A B …, --items-file F or --glob PATTERN${sources.length > 1 ? ` (got ${sources.map((s) => `--${s}`).join(' and ')})` : ''}.`);
  }
  if (args.flags.items !== undefined) return args.flags.items as string[];
  const file = stringFlag(args, 'items-file');
  if (file !== undefined) {
    try {
      return readFileSync(resolve(cwd, file), 'utf8').split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
    } catch (error) {
      throw new UsageError(`murmur swarm: cannot read --items-file ${JSON.stringify(file)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
    }
  }
  const pattern = stringFlag(args, 'glob')!;
  const { glob } = await import('tinyglobby');
  const files = await glob(pattern, { cwd, onlyFiles: true, ignore: ['**/node_modules/**', '**/.git/**', '.murmur/**'] });
  if (files.length === 0) throw new UsageError(`murmur swarm: --glob ${JSON.stringify(pattern)} matches no file under ${cwd}.`);
  return files.sort();
}

/** What can be refused without a session: no folder is left behind by a swarm that never started. */
function checkBeforeStart(template: string, items: readonly string[], role: string | undefined, cwd: string): void {
  const checked = validateSwarmItems({ promptTemplate: template, items }, Number.POSITIVE_INFINITY, 1);
  if (!checked.ok) throw new UsageError(`murmur swarm: ${checked.error.replace('prompt_template', '--template')}.`);
  if (role === undefined) return;
  const definitions = loadAgentDefinitions({ workspace: cwd, ...(process.env.HOME ? { userHome: process.env.HOME } : {}) }).profiles;
  const profile = resolveProfile(role, definitions);
  if (!profile) throw new UsageError(`murmur swarm: --role ${JSON.stringify(role)} is not a role or a defined agent; known: ${knownProfileNames(definitions).join(', ')}.`);
  if (profile.role === 'main') throw new UsageError('murmur swarm: --role main cannot run swarm items; use worker, explore, verifier or a defined agent.');
}

export async function swarmCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs('swarm', argv, SWARM_FLAGS);
  if (args.positionals.length > 0) throw new UsageError(`murmur swarm: unexpected argument ${JSON.stringify(args.positionals[0])}; items go after --items.`);
  const template = stringFlag(args, 'template');
  if (template === undefined) throw new UsageError('murmur swarm: --template is required (the prompt for each item, with {{item}}).');
  const cwd = workspaceFrom('swarm', args);
  const items = await itemsFrom(args, cwd);
  const maxConcurrency = positiveIntFlag('swarm', args, 'max-concurrency');
  const maxRounds = positiveIntFlag('swarm', args, 'max-rounds');
  const description = swarmTitle(template, items, stringFlag(args, 'description'));
  checkBeforeStart(template, items, stringFlag(args, 'role'), cwd);
  // A bad, unreachable or refusing queue is exit 2 before any session exists.
  const queue = await queueFromFlagOrEnv('swarm', stringFlag(args, 'queue'), process.env);
  const host = await buildHost('swarm', args, { title: description, sessionKind: 'swarm' });
  try {
    const role = stringFlag(args, 'role');
    const isolation = stringFlag(args, 'isolation') as 'none' | 'worktree' | undefined;
    const launch: SwarmLaunch = {
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
    };
    const finished = await host.run({ kind: 'swarm', launch }, (refused) => refused.message);
    return await host.finishRun(finished.outcome, printFinished(args, finished));
  } finally {
    await host.close();
  }
}
