// Starting a swarm from a request (the agent_swarm tool or `murmur swarm`): checks everything that can be
// checked before anything starts, then runs it and returns the results.
import { realpathSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Redis as RedisClient } from 'ioredis';
import { addUsage } from '../orchestrator/types.js';
import type { Engine } from '../orchestrator/engine.js';
import type { SwarmRequest } from '../tools/adapters.js';
import type { AgentRecord } from '../orchestrator/scheduler.js';
import { builtinProfile, type AgentProfile } from '../roles/profile.js';
import { allowedSubagentTypes, DEFAULT_SUBAGENT_TYPE, subagentProfileFor } from '../orchestrator/subagents.js';
import { stateHome } from '../orchestrator/session.js';
import { git, repoRoot } from './git.js';
import type { ItemResult } from './report.js';
import type { ItemLauncher } from './launcher.js';
import { LocalLauncher } from './local-launcher.js';
import type { SavedQueue } from './item-state.js';
import { queueName } from './queue/job.js';
import { holdsSecret } from './queue/url.js';
import { SwarmRun, type SavedSwarm, type SwarmItemRecord } from './runner.js';
import { maxConcurrency, swarmSettings, type SwarmSettings } from './settings.js';
import { validateSwarmItems } from './validate.js';
import { reworkPrompt } from './verify.js';
import { excludeStateFolder, WorktreeIsolation } from './worktree.js';

/** An agent_swarm request plus what only the host knows. */
export interface LaunchRequest extends SwarmRequest {
  /** --max-concurrency */
  maxConcurrency?: number;
  /** The per-call item limit (agent_swarm); `murmur swarm` has none. */
  maxItems: number;
  /** The fewest items: 2 for agent_swarm (the default), 1 for `murmur swarm`. */
  minItems?: number;
  /** Run the items on `murmur worker`s through this Redis queue instead of in this process. */
  queue?: QueueTarget;
}

/** A checked, reachable queue (see queue/url.ts). */
export interface QueueTarget {
  /** The URL as given (it may hold a password: never printed or saved with one). */
  url: string;
  /** The URL with its password hidden. */
  shown: string;
  open: () => RedisClient;
}

export type Prepared = { ok: true; run: SwarmRun } | { ok: false; error: string };

/** murmur's state folder for this engine (`.murmur`, or MURMUR_HOME). */
function stateFolder(engine: Engine): string {
  return engine.session?.home ?? stateHome(engine.cwd, engine.options.env ?? process.env);
}

/** Where worktrees live: in the session, else (no session on disk) in a folder of this run in the state folder. */
function worktreeHome(engine: Engine): string {
  return engine.session?.dir ?? join(stateFolder(engine), 'unsaved', engine.runId);
}

function openIsolation(engine: Engine, swarmId: string): Promise<WorktreeIsolation | string> {
  return WorktreeIsolation.open(engine.cwd, worktreeHome(engine), swarmId, stateFolder(engine), engine.runId);
}

/**
 * Whether a resumed subagent's changes can be merged soundly by a swarm with or without isolation: an isolated
 * one keeps editing its own worktree (without isolation nothing would merge it back), and one that worked in
 * the main tree cannot move into a worktree (its folder is fixed when it starts).
 */
function resumableHere(record: AgentRecord, isolated: boolean): string | undefined {
  if (!isolated && record.workspaceRoot !== undefined) {
    return `subagent "${record.id}" works in its own git worktree (${record.workspaceRoot}); resume it with isolation "worktree" so its changes are merged back`;
  }
  if (isolated && record.workspaceRoot === undefined) {
    return `subagent "${record.id}" worked in the main working tree and cannot move into a worktree now; resume it without isolation`;
  }
  return undefined;
}

/** Items whose subagents already work in a worktree go on in it, so their work is what gets merged. */
async function adoptWorktrees(engine: Engine, items: readonly SwarmItemRecord[], isolation: WorktreeIsolation): Promise<string | undefined> {
  for (const [index, item] of items.entries()) {
    const record = item.agentId !== undefined && !item.result ? engine.scheduler.get(item.agentId) : undefined;
    if (record?.workspaceRoot === undefined) continue;
    const problem = await isolation.adopt(index, record.workspaceRoot, record.id);
    if (problem) return problem;
  }
  return undefined;
}

function nextSwarmId(engine: Engine): string {
  engine.swarmCount++;
  return `s-${engine.swarmCount}`;
}

/** What a launcher is built from: the swarm's items and rules, resolved against the engine. */
interface SwarmPlan {
  swarmId: string;
  items: SwarmItemRecord[];
  profile: AgentProfile;
  parentId?: string;
  verify: boolean;
  maxRounds: number;
  isolation?: WorktreeIsolation;
  settings: SwarmSettings;
  template?: string;
}

/** The one place a swarm meets the engine: the local launcher runs its items as this engine's subagents. */
async function localLauncher(engine: Engine, plan: SwarmPlan): Promise<LocalLauncher> {
  return new LocalLauncher(
    {
      swarmId: plan.swarmId,
      items: plan.items,
      profile: plan.profile,
      verifierProfile: builtinProfile('verifier'),
      ...(plan.parentId !== undefined ? { parentId: plan.parentId } : {}),
      verify: plan.verify,
      maxRounds: plan.maxRounds,
      itemTimeoutMs: plan.settings.itemTimeoutMs,
      ...(plan.isolation ? { isolation: plan.isolation } : {}),
    },
    { scheduler: engine.scheduler, tasks: engine.tasks, bus: engine.bus, cwd: engine.cwd, inRepo: (await repoRoot(engine.cwd)) !== undefined, save: () => engine.saveState() },
  );
}

/**
 * The queue launcher: items go to `murmur worker`s as jobs that start at the workspace's commit. `saved` is the
 * queue of a resumed swarm (its name and base commit stay).
 */
async function queueLauncher(engine: Engine, plan: SwarmPlan, target: QueueTarget, saved?: SavedQueue): Promise<{ launcher: ItemLauncher; queue: SavedQueue } | string> {
  const root = await repoRoot(engine.cwd);
  if (!root) return `--queue needs a git repository (workers start each item at its commit), and ${engine.cwd} is not inside one`;
  let queue = saved;
  if (!queue) {
    const head = await git(root, ['rev-parse', '--verify', 'HEAD']);
    if (!head.ok) return `--queue needs a commit for the workers to start from, and the repository at ${root} has none yet`;
    const subdir = relative(realpathSync(root), realpathSync(engine.cwd));
    queue = { name: queueName(engine.runId, plan.swarmId), base: head.stdout.trim(), subdir: subdir.startsWith('..') ? '' : subdir, model: engine.options.provider.name };
    // Saved only without a secret (in the authority or the query): a resume then needs --queue or MURMUR_QUEUE again.
    if (!holdsSecret(target.url)) queue.url = target.url;
  }
  // The diffs apply to this tree, as worktree isolation's merges do: murmur's own folder stays out of git status.
  excludeStateFolder(root, stateFolder(engine));
  const { QueueLauncher } = await import('./queue/coordinator.js');
  const permissionMode = engine.options.settings?.permissionMode ?? engine.config.permissionMode;
  const effort = engine.config.effort;
  const c = plan.settings.controller;
  const launcher = await QueueLauncher.open(
    {
      swarmId: plan.swarmId,
      items: plan.items,
      profile: plan.profile,
      ...(plan.template !== undefined ? { template: plan.template } : {}),
      verify: plan.verify,
      maxRounds: plan.maxRounds,
      itemTimeoutMs: plan.settings.itemTimeoutMs,
      ...(permissionMode !== undefined ? { permissionMode } : {}),
      ...(effort !== undefined ? { effort } : {}),
      maxModelRequests: engine.scheduler.limits.maxModelRequests,
      queue,
      initialCapacity: c.maxConcurrency !== undefined ? Math.min(c.initialBurst, c.maxConcurrency) : c.initialBurst,
    },
    {
      open: target.open,
      root,
      patchesHome: worktreeHome(engine),
      emit: (event) => engine.bus.emit(event),
      save: () => engine.saveState(),
      addUsage: (usage) => addUsage(engine.scheduler.runUsage, usage),
    },
  );
  return { launcher, queue };
}

/** The launcher a plan runs on: the queue when one is given, else this process. */
async function launcherFor(engine: Engine, plan: SwarmPlan, target: QueueTarget | undefined, saved?: SavedQueue): Promise<{ launcher: ItemLauncher; queue?: SavedQueue } | string> {
  if (target) return queueLauncher(engine, plan, target, saved);
  return { launcher: await localLauncher(engine, plan) };
}

function runOf(engine: Engine, plan: SwarmPlan, launcher: ItemLauncher, description: string, template: string | undefined, queue?: SavedQueue): SwarmRun {
  return new SwarmRun(
    {
      swarmId: plan.swarmId,
      description,
      ...(template !== undefined ? { template } : {}),
      items: plan.items,
      role: plan.profile.name,
      ...(plan.parentId !== undefined ? { parentId: plan.parentId } : {}),
      verify: plan.verify,
      maxRounds: plan.maxRounds,
      isolation: plan.isolation ? 'worktree' : 'none',
      settings: plan.settings,
      ...(queue ? { extra: { queue } } : {}),
    },
    launcher,
  );
}

function profileFor(engine: Engine, parent: AgentRecord | undefined, type: string): AgentProfile | string {
  let profile: AgentProfile | string;
  if (parent) {
    // What the agent tool would give this parent: names compare by what they resolve to (coder = worker).
    const allowed = subagentProfileFor(parent.profile, type, engine.definitions);
    if (!allowed) return `unknown or disallowed subagent type "${type}"; allowed types: ${allowedSubagentTypes(parent.profile, engine.definitions).join(', ')}`;
    profile = allowed;
  } else profile = engine.profile(type);
  if (typeof profile === 'string') return profile;
  if (profile.role === 'main') return 'the main role cannot run as a swarm item; use worker, explore, verifier or a defined agent';
  return profile;
}

/** Validates a request against the engine and builds the run; nothing has started when this returns. */
export async function prepareSwarm(engine: Engine, parent: AgentRecord | undefined, request: LaunchRequest, env: NodeJS.ProcessEnv): Promise<Prepared> {
  const cap = maxConcurrency({ ...(request.maxConcurrency !== undefined ? { flag: request.maxConcurrency } : {}), env, config: engine.config });
  if (cap.error) return { ok: false, error: cap.error };
  const checked = validateSwarmItems(
    { items: request.items, ...(request.promptTemplate !== undefined ? { promptTemplate: request.promptTemplate } : {}), ...(request.resumeAgentIds ? { resumeAgentIds: request.resumeAgentIds } : {}) },
    request.maxItems,
    request.minItems,
  );
  if (!checked.ok) return checked;
  const profile = profileFor(engine, parent, request.subagentType ?? DEFAULT_SUBAGENT_TYPE);
  if (typeof profile === 'string') return { ok: false, error: profile };

  const items: SwarmItemRecord[] = checked.items.map((item, i) => ({ item, prompt: checked.prompts[i]!, rounds: 0 }));
  for (const id of request.resumeAgentIds ?? []) {
    const record = engine.scheduler.get(id);
    if (!record || record.parentId !== parent?.id) return { ok: false, error: `resume_agent_ids names "${id}", which is not one of your subagents` };
    if (record.agent.busy) return { ok: false, error: `subagent "${id}" is still running; it cannot be resumed now` };
    if (items.some((i) => i.agentId === id)) return { ok: false, error: `resume_agent_ids names "${id}" twice` };
    const unsound = resumableHere(record, request.isolation === 'worktree');
    if (unsound) return { ok: false, error: unsound };
    const entry: SwarmItemRecord = { item: record.item ?? record.description ?? id, agentId: id, rounds: 0 };
    entry.resumePrompt = request.resumePrompt ?? 'Continue the task where you stopped, and end with the whole handoff.';
    items.push(entry);
  }

  const settings = swarmSettings(engine.config, cap.value);
  const maxRounds = request.maxRounds ?? settings.maxRounds;
  const newAgents = checked.items.length * (request.verify ? 1 + maxRounds : 1) + (request.verify ? (request.resumeAgentIds?.length ?? 0) * maxRounds : 0);
  const left = engine.scheduler.limits.maxAgents - engine.scheduler.spawnedCount;
  if (newAgents > left) {
    return {
      ok: false,
      error: `this swarm may start up to ${newAgents} subagents but the run's spawn cap leaves ${left} (limit ${engine.scheduler.limits.maxAgents}; [limits] maxAgents in murmur.toml)`,
    };
  }

  const swarmId = nextSwarmId(engine);
  let isolation: WorktreeIsolation | undefined;
  // On a queue every item works in a fresh worktree of its worker; the coordinator applies the diffs.
  if (request.isolation === 'worktree' && !request.queue) {
    const opened = await openIsolation(engine, swarmId);
    if (typeof opened === 'string') return { ok: false, error: opened };
    const unsound = await adoptWorktrees(engine, items, opened);
    if (unsound) return { ok: false, error: unsound };
    isolation = opened;
  }
  const plan: SwarmPlan = {
    swarmId,
    items,
    profile,
    ...(parent ? { parentId: parent.id } : {}),
    verify: request.verify === true,
    maxRounds,
    ...(isolation ? { isolation } : {}),
    settings,
    ...(request.promptTemplate !== undefined ? { template: request.promptTemplate } : {}),
  };
  const description = request.description ?? request.promptTemplate?.split('\n', 1)[0]?.slice(0, 80) ?? 'swarm';
  const launched = await launcherFor(engine, plan, request.queue);
  if (typeof launched === 'string') return { ok: false, error: launched };
  return { ok: true, run: runOf(engine, plan, launched.launcher, description, request.promptTemplate, launched.queue) };
}

/** Rebuilds the run of a saved `murmur swarm` session: finished items keep their results. */
export async function restoreSwarm(engine: Engine, saved: SavedSwarm, maxConcurrencyFlag: number | undefined, env: NodeJS.ProcessEnv, queue?: QueueTarget): Promise<Prepared> {
  if (saved.queue && !queue) {
    return { ok: false, error: `swarm ${saved.swarmId} ran on a Redis queue whose URL holds a password (so it was not saved); give it again with --queue or MURMUR_QUEUE` };
  }
  // The cap the swarm ran with stands in for its flag, unless one is given now (flag or environment).
  const flag = maxConcurrencyFlag ?? (env.MURMUR_SWARM_MAX_CONCURRENCY?.trim() ? undefined : saved.maxConcurrency);
  const cap = maxConcurrency({ ...(flag !== undefined ? { flag } : {}), env, config: engine.config });
  if (cap.error) return { ok: false, error: cap.error };
  const profile = profileFor(engine, undefined, saved.role);
  if (typeof profile === 'string') return { ok: false, error: profile };
  let isolation: WorktreeIsolation | undefined;
  if (saved.isolation === 'worktree') {
    const opened = await openIsolation(engine, saved.swarmId);
    if (typeof opened === 'string') return { ok: false, error: opened };
    isolation = opened;
  }
  const items = saved.items.map((item) => {
    // Completed items never run again; a conflict keeps its branch for the user. Everything else continues
    // its agent from the transcript (or starts, if it never did).
    if (item.result && (item.result.outcome === 'completed' || item.result.outcome === 'conflict')) return item;
    const { result, ...rest } = item;
    return saved.verify && failedVerification(rest, saved.maxRounds) ? reworkAfterResume(rest, result?.reason) : rest;
  });
  const unsound = isolation ? await adoptWorktrees(engine, items, isolation) : undefined;
  if (unsound) return { ok: false, error: unsound };
  engine.swarmCount = Math.max(engine.swarmCount, Number(saved.swarmId.replace(/^s-/, '')) || 0);
  const plan: SwarmPlan = {
    swarmId: saved.swarmId,
    items,
    profile,
    verify: saved.verify,
    maxRounds: saved.maxRounds,
    ...(isolation ? { isolation } : {}),
    settings: swarmSettings(engine.config, cap.value),
    ...(saved.template !== undefined ? { template: saved.template } : {}),
  };
  const launched = await launcherFor(engine, plan, saved.queue ? queue : undefined, saved.queue);
  if (typeof launched === 'string') return { ok: false, error: launched };
  return { ok: true, run: runOf(engine, plan, launched.launcher, saved.description, saved.template, launched.queue) };
}

/** The item used up its verification rounds on fails: as it stands, a resume would only repeat the verdict. */
function failedVerification(item: SwarmItemRecord, maxRounds: number): boolean {
  return item.verdict === 'fail' && item.rounds >= maxRounds && item.agentId !== undefined;
}

/** Its worker goes on with the verifier's last reasons, then fresh verification rounds. */
function reworkAfterResume(item: SwarmItemRecord, failure: string | undefined): SwarmItemRecord {
  const { verdict: _verdict, reasons, ...rest } = item;
  // A state saved before the reasons were kept has them (cut short) in the failure's reason.
  const lastReasons = reasons ?? failure ?? '';
  return { ...rest, rounds: 0, resumePrompt: reworkPrompt(lastReasons, item.rounds) };
}

export function allCompleted(results: readonly ItemResult[]): boolean {
  return results.every((r) => r.outcome === 'completed' && r.verdict !== 'fail');
}
