// Starting a swarm from a request (the agent_swarm tool or `murmur swarm`): checks everything that can be
// checked before anything starts, then runs it and returns the results.
import { join } from 'node:path';
import type { Engine } from '../orchestrator/engine.js';
import type { SwarmRequest } from '../tools/adapters.js';
import type { AgentRecord } from '../orchestrator/scheduler.js';
import { builtinProfile, type AgentProfile } from '../roles/profile.js';
import { allowedSubagentTypes, DEFAULT_SUBAGENT_TYPE, subagentProfileFor } from '../orchestrator/subagents.js';
import { newSessionId, stateHome } from '../orchestrator/session.js';
import { repoRoot } from './git.js';
import type { ItemResult } from './report.js';
import { SwarmRun, type SavedSwarm, type SwarmItemRecord } from './runner.js';
import { maxConcurrency, swarmSettings } from './settings.js';
import { validateSwarmItems } from './validate.js';
import { reworkPrompt } from './verify.js';
import { WorktreeIsolation } from './worktree.js';

/** An agent_swarm request plus what only the host knows. */
export interface LaunchRequest extends SwarmRequest {
  /** --max-concurrency */
  maxConcurrency?: number;
  /** The per-call item limit (agent_swarm); `murmur swarm` has none. */
  maxItems: number;
}

export type Prepared = { ok: true; run: SwarmRun } | { ok: false; error: string };

const swarmCounters = new WeakMap<Engine, number>();

/** murmur's state folder for this engine (`.murmur`, or MURMUR_HOME). */
function stateFolder(engine: Engine): string {
  return engine.session?.home ?? stateHome(engine.cwd, engine.options.env ?? process.env);
}

const unsavedRunIds = new WeakMap<Engine, string>();

/** Names this run in worktree branches: the session's id, else one made up for this engine. */
function runId(engine: Engine): string {
  if (engine.session) return engine.session.id;
  let id = unsavedRunIds.get(engine);
  if (!id) unsavedRunIds.set(engine, (id = newSessionId()));
  return id;
}

/** Where worktrees live: in the session, else (no session on disk) in a folder of this run in the state folder. */
function worktreeHome(engine: Engine): string {
  return engine.session?.dir ?? join(stateFolder(engine), 'unsaved', runId(engine));
}

function openIsolation(engine: Engine, swarmId: string): Promise<WorktreeIsolation | string> {
  return WorktreeIsolation.open(engine.cwd, worktreeHome(engine), swarmId, stateFolder(engine), runId(engine));
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
  const n = (swarmCounters.get(engine) ?? 0) + 1;
  swarmCounters.set(engine, n);
  return `s-${n}`;
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
  if (request.isolation === 'worktree') {
    const opened = await openIsolation(engine, swarmId);
    if (typeof opened === 'string') return { ok: false, error: opened };
    const unsound = await adoptWorktrees(engine, items, opened);
    if (unsound) return { ok: false, error: unsound };
    isolation = opened;
  }
  return {
    ok: true,
    run: new SwarmRun(
      {
        swarmId,
        description: request.description ?? request.promptTemplate?.split('\n', 1)[0]?.slice(0, 80) ?? 'swarm',
        ...(request.promptTemplate !== undefined ? { template: request.promptTemplate } : {}),
        items,
        profile,
        verifierProfile: builtinProfile('verifier'),
        ...(parent ? { parentId: parent.id } : {}),
        verify: request.verify === true,
        maxRounds,
        ...(isolation ? { isolation } : {}),
        settings,
      },
      { scheduler: engine.scheduler, tasks: engine.tasks, bus: engine.bus, cwd: engine.cwd, inRepo: (await repoRoot(engine.cwd)) !== undefined, onChange: () => engine.saveState() },
    ),
  };
}

/** Rebuilds the run of a saved `murmur swarm` session: finished items keep their results. */
export async function restoreSwarm(engine: Engine, saved: SavedSwarm, maxConcurrencyFlag: number | undefined, env: NodeJS.ProcessEnv): Promise<Prepared> {
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
  swarmCounters.set(engine, Math.max(swarmCounters.get(engine) ?? 0, Number(saved.swarmId.replace(/^s-/, '')) || 0));
  return {
    ok: true,
    run: new SwarmRun(
      {
        swarmId: saved.swarmId,
        description: saved.description,
        ...(saved.template !== undefined ? { template: saved.template } : {}),
        items,
        profile,
        verifierProfile: builtinProfile('verifier'),
        verify: saved.verify,
        maxRounds: saved.maxRounds,
        ...(isolation ? { isolation } : {}),
        settings: swarmSettings(engine.config, cap.value),
      },
      { scheduler: engine.scheduler, tasks: engine.tasks, bus: engine.bus, cwd: engine.cwd, inRepo: (await repoRoot(engine.cwd)) !== undefined, onChange: () => engine.saveState() },
    ),
  };
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
