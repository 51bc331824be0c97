// Planning a swarm from a request (the agent_swarm tool, `murmur swarm`, run_swarm, the library) or from a saved
// one: everything that can be checked is checked before anything starts. The host then picks the launcher the plan
// runs on (this process, or a queue) and builds the run with `swarmRun`. Sees the engine only as a SwarmEngine.
import type { SwarmRequest } from '../tools/adapters.js';
import type { AgentProfile, OutputSpec } from '../roles/profile.js';
import { DEFAULT_SUBAGENT_TYPE } from '../roles/subagent-policy.js';
import { newItems, queuedItem, type ItemList, type SwarmItem } from './item-state.js';
import type { ItemLauncher } from './item-launcher.js';
import { SwarmRun } from './runner.js';
import { restoredItem, type SavedSwarm } from './saved-swarm.js';
import { maxConcurrency, swarmSettings, type SwarmSettings } from './settings.js';
import type { SwarmAgent } from './swarm-agents.js';
import type { SwarmEngine } from './swarm-engine.js';
import { validateSwarmItems } from './validate.js';
import { WorktreeIsolation } from './worktree.js';

/** An agent_swarm request plus what only the host knows. */
export interface LaunchRequest extends SwarmRequest {
  /** --max-concurrency */
  maxConcurrency?: number;
  /** The per-call item limit (agent_swarm); `murmur swarm` has none. */
  maxItems: number;
  /** The fewest items: 2 for agent_swarm (the default), 1 for `murmur swarm`. */
  minItems?: number;
  /** Each item's prompt when the caller made them (object items, a template function); else the template's. */
  prompts?: readonly string[];
  /** The items as the library was given them (objects), saved for the report's `input`. */
  inputs?: readonly unknown[];
  /** A typed output every item's worker answers with (through final_answer). */
  output?: OutputSpec;
}

/** The items' profile, answering with the swarm's typed output when it has one. */
function withOutput(profile: AgentProfile, output: OutputSpec | undefined): AgentProfile {
  return output ? { ...profile, output } : profile;
}

/** A checked swarm, ready for a launcher: its items and rules, resolved against the host. */
export interface SwarmPlan {
  swarmId: string;
  description: string;
  template?: string;
  items: ItemList;
  profile: AgentProfile;
  parentId?: string;
  verify: boolean;
  maxRounds: number;
  isolation?: WorktreeIsolation;
  settings: SwarmSettings;
  /** Saved with the swarm: the library's object items, for the report. */
  inputs?: readonly unknown[];
}

export type Planned = { ok: true; plan: SwarmPlan } | { ok: false; error: string };
export type Prepared = { ok: true; run: SwarmRun } | { ok: false; error: string };

function openIsolation(host: SwarmEngine, swarmId: string): Promise<WorktreeIsolation | string> {
  return WorktreeIsolation.open(host.cwd, host.runHome, swarmId, host.stateHome, host.runId);
}

/**
 * Whether a resumed subagent's changes can be merged soundly by a swarm with or without isolation: an isolated
 * one keeps editing its own worktree (without isolation nothing would merge it back), and one that worked in
 * the main tree cannot move into a worktree (its folder is fixed when it starts).
 */
function resumableHere(agent: SwarmAgent, isolated: boolean): string | undefined {
  if (!isolated && agent.workspaceRoot !== undefined) {
    return `subagent "${agent.id}" works in its own git worktree (${agent.workspaceRoot}); resume it with isolation "worktree" so its changes are merged back`;
  }
  if (isolated && agent.workspaceRoot === undefined) {
    return `subagent "${agent.id}" worked in the main working tree and cannot move into a worktree now; resume it without isolation`;
  }
  return undefined;
}

/** Items whose subagents already work in a worktree go on in it, so their work is what gets merged. */
async function adoptWorktrees(
  host: SwarmEngine,
  items: ItemList,
  isolation: WorktreeIsolation,
): Promise<string | undefined> {
  for (let index = 0; index < items.length; index++) {
    const item = items.at(index)!;
    const agent = item.agentId !== undefined && item.status !== 'done' ? host.agent(item.agentId) : undefined;
    if (agent?.workspaceRoot === undefined) continue;
    const problem = await isolation.adopt(index, agent.workspaceRoot, agent.id);
    if (problem) return problem;
  }
  // Worktrees of this swarm that no item holds (free in the pool of the process before) are this one's pool.
  isolation.collectLeftovers();
  return undefined;
}

function profileFor(host: SwarmEngine, parentId: string | undefined, type: string): AgentProfile | string {
  const profile = host.profile(type, parentId);
  if (typeof profile === 'string') return profile;
  if (profile.role === 'main')
    return 'the main role cannot run as a swarm item; use worker, explore, verifier or a defined agent';
  return profile;
}

/**
 * Checks a request against the host and plans the swarm; nothing has started when this returns. `remote`: the
 * items run elsewhere (a queue's workers each work in a fresh worktree), so no worktrees are opened here.
 */
export async function planSwarm(
  host: SwarmEngine,
  parentId: string | undefined,
  request: LaunchRequest,
  env: NodeJS.ProcessEnv,
  remote = false,
): Promise<Planned> {
  const cap = maxConcurrency({
    ...(request.maxConcurrency !== undefined ? { flag: request.maxConcurrency } : {}),
    env,
    config: host.config,
  });
  if (cap.error) return { ok: false, error: cap.error };
  const checked = validateSwarmItems(
    {
      items: request.items,
      ...(request.promptTemplate !== undefined ? { promptTemplate: request.promptTemplate } : {}),
      ...(request.prompts !== undefined ? { prompts: request.prompts } : {}),
      ...(request.resumeAgentIds ? { resumeAgentIds: request.resumeAgentIds } : {}),
    },
    request.maxItems,
    request.minItems,
  );
  if (!checked.ok) return checked;
  const profile = profileFor(host, parentId, request.subagentType ?? DEFAULT_SUBAGENT_TYPE);
  if (typeof profile === 'string') return { ok: false, error: profile };
  if (request.inputs !== undefined && request.inputs.length !== checked.items.length)
    return { ok: false, error: `${request.inputs.length} inputs were given for ${checked.items.length} items` };

  const resumed: SwarmItem[] = [];
  for (const id of request.resumeAgentIds ?? []) {
    const agent = host.agent(id);
    if (!agent || agent.parentId !== parentId)
      return { ok: false, error: `resume_agent_ids names "${id}", which is not one of your subagents` };
    if (agent.busy) return { ok: false, error: `subagent "${id}" is still running; it cannot be resumed now` };
    if (resumed.some((i) => i.agentId === id)) return { ok: false, error: `resume_agent_ids names "${id}" twice` };
    const unsound = resumableHere(agent, request.isolation === 'worktree');
    if (unsound) return { ok: false, error: unsound };
    const resumePrompt = request.resumePrompt ?? 'Continue the task where you stopped, and end with the whole handoff.';
    resumed.push(queuedItem(agent.item ?? agent.description ?? id, { agentId: id, resumePrompt }));
  }
  // New items are made as the swarm reads them; only subagents to resume make a list of objects.
  const fresh = newItems(checked.items, checked.promptOf);
  const items: ItemList =
    resumed.length === 0 ? fresh : [...Array.from({ length: fresh.length }, (_, i) => fresh.at(i)!), ...resumed];

  const settings = swarmSettings(host.config, cap.value);
  const maxRounds = request.maxRounds ?? settings.maxRounds;
  const newAgents =
    checked.items.length * (request.verify ? 1 + maxRounds : 1) +
    (request.verify ? (request.resumeAgentIds?.length ?? 0) * maxRounds : 0);
  const room = host.spawnRoom();
  const left = room.limit - room.spawned;
  if (newAgents > left) {
    return {
      ok: false,
      error: `this swarm may start up to ${newAgents} subagents but the run's spawn cap leaves ${left} (limit ${room.limit}; [limits] maxAgents in murmur.toml)`,
    };
  }

  const swarmId = host.nextSwarmId();
  let isolation: WorktreeIsolation | undefined;
  if (request.isolation === 'worktree' && !remote) {
    const opened = await openIsolation(host, swarmId);
    if (typeof opened === 'string') return { ok: false, error: opened };
    const unsound = await adoptWorktrees(host, items, opened);
    if (unsound) return { ok: false, error: unsound };
    isolation = opened;
  }
  return {
    ok: true,
    plan: {
      swarmId,
      description: request.description ?? request.promptTemplate?.split('\n', 1)[0]?.slice(0, 80) ?? 'swarm',
      ...(request.promptTemplate !== undefined ? { template: request.promptTemplate } : {}),
      items,
      profile: withOutput(profile, request.output),
      ...(parentId !== undefined ? { parentId } : {}),
      verify: request.verify === true,
      maxRounds,
      ...(isolation ? { isolation } : {}),
      settings,
      ...(request.inputs !== undefined ? { inputs: request.inputs } : {}),
    },
  };
}

/** Plans the rest of a saved `murmur swarm` session: finished items keep their results (see restoredItem). */
export async function planRestore(
  host: SwarmEngine,
  saved: SavedSwarm,
  maxConcurrencyFlag: number | undefined,
  env: NodeJS.ProcessEnv,
  output?: OutputSpec,
  keepEnded = false,
): Promise<Planned> {
  // The cap the swarm ran with stands in for its flag, unless one is given now (flag or environment).
  const flag = maxConcurrencyFlag ?? (env.MURMUR_SWARM_MAX_CONCURRENCY?.trim() ? undefined : saved.maxConcurrency);
  const cap = maxConcurrency({ ...(flag !== undefined ? { flag } : {}), env, config: host.config });
  if (cap.error) return { ok: false, error: cap.error };
  const profile = profileFor(host, undefined, saved.role);
  if (typeof profile === 'string') return { ok: false, error: profile };
  let isolation: WorktreeIsolation | undefined;
  if (saved.isolation === 'worktree') {
    const opened = await openIsolation(host, saved.swarmId);
    if (typeof opened === 'string') return { ok: false, error: opened };
    // An attempt the saved state does not know of may have merged before the process died.
    await opened.mayHaveMergedBefore();
    isolation = opened;
  }
  const items = saved.items.map((record) => restoredItem(record, saved.verify, saved.maxRounds, keepEnded));
  const unsound = isolation ? await adoptWorktrees(host, items, isolation) : undefined;
  if (unsound) return { ok: false, error: unsound };
  return {
    ok: true,
    plan: {
      swarmId: host.nextSwarmId(saved.swarmId),
      description: saved.description,
      ...(saved.template !== undefined ? { template: saved.template } : {}),
      items,
      profile: withOutput(profile, output),
      verify: saved.verify,
      maxRounds: saved.maxRounds,
      ...(isolation ? { isolation } : {}),
      settings: swarmSettings(host.config, cap.value),
      ...(saved.inputs !== undefined ? { inputs: saved.inputs } : {}),
    },
  };
}

/** The run of a plan on its launcher; `extra` is saved with its state (a queue's coordinates). */
export function swarmRun(
  host: SwarmEngine,
  plan: SwarmPlan,
  launcher: ItemLauncher,
  extra?: Record<string, unknown>,
): SwarmRun {
  return new SwarmRun(
    {
      swarmId: plan.swarmId,
      description: plan.description,
      ...(plan.template !== undefined ? { template: plan.template } : {}),
      items: plan.items,
      role: plan.profile.name,
      ...(plan.parentId !== undefined ? { parentId: plan.parentId } : {}),
      verify: plan.verify,
      maxRounds: plan.maxRounds,
      isolation: plan.isolation ? 'worktree' : 'none',
      settings: plan.settings,
      ...(extra || plan.inputs ? { extra: { ...extra, ...(plan.inputs ? { inputs: plan.inputs } : {}) } } : {}),
    },
    launcher,
    host,
  );
}
