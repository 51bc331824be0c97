// Resuming a session, written once for every front end: open the session and read its saved state (a value naming
// what is wrong when it cannot be resumed), take the answers given to what it waits for, and — once the engine
// exists — restore it and tell the main agent which subagents were interrupted. The lifecycle (lifecycle.ts) runs
// what was restored; a call that waited for a person runs again there, answered (or asked again).

import type { SandboxChoice } from './sandbox.js';
import type { Engine, RunSettings, SessionState } from '../orchestrator/engine.js';
import type { AgentRecord } from '../orchestrator/agent-tree.js';
import { SessionStore, stateHome } from '../orchestrator/session.js';
import { readSavedState } from '../orchestrator/saved-state.js';
import type { Environment } from '../orchestrator/environment.js';
import type { SavedSwarm } from '../swarm/saved-swarm.js';
import type { Interruption } from '../protocol/interruptions.js';

/** A session that can be resumed, with what its engine needs. */
export interface Resumable {
  session: SessionStore;
  state: SessionState;
  /** The saved swarm of a `murmur swarm` session; absent for a run. */
  swarm?: SavedSwarm;
  /** What the run is called on screens and in run.start. */
  title: string;
  /** The choices the session ran with (model, endpoint, permission mode…), for a resume that does not give them again. */
  settings: RunSettings;
  /** The model the session ran with. */
  model: string | undefined;
  /** What the session waits for, with the answers given since (the console's, or this resume's); [] when nothing. */
  interruptions: Interruption[];
  /** The sandbox its shells ran in (from its settings): a resume runs them there again; absent = none. */
  sandbox?: SandboxChoice;
  /**
   * A retry (`murmur resume --retry`, host/retry.ts): the labels of the items run again with a fresh agent; every
   * other item that ended stays as it ended.
   */
  retrying?: string[];
}

/** The sandbox a session's settings say its shells ran in. */
function savedSandbox(settings: RunSettings): SandboxChoice | undefined {
  return settings.sandbox ? { enabled: true, ...(settings.sandboxNetwork ? { network: true } : {}) } : undefined;
}

export type Opened = { ok: true; resumable: Resumable } | { ok: false; error: string };

/** Opens session `id` of the workspace for a resume; nothing on disk changes. */
export function openResumable(cwd: string, env: Environment, id: string): Opened {
  let session: SessionStore;
  try {
    session = SessionStore.open(stateHome(cwd, env), id);
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  const read = readSavedState(session.dir);
  if (!read.ok) return { ok: false, error: read.error };
  const { state } = read;
  const resumable: Resumable = {
    session,
    state,
    title: state.task ?? `session ${id}`,
    settings: state.settings ?? {},
    model: state.model || undefined,
    interruptions: state.interruptions ?? [],
  };
  const sandbox = savedSandbox(resumable.settings);
  if (sandbox) resumable.sandbox = sandbox;
  if (state.kind === 'swarm') {
    const swarm = state.swarm as SavedSwarm | undefined;
    if (!swarm)
      return {
        ok: false,
        error: `session ${session.id} is a swarm session without saved swarm state; it cannot be resumed`,
      };
    resumable.swarm = swarm;
    resumable.title = swarm.description;
  }
  return { ok: true, resumable };
}

/**
 * The agents defined in code (the library's defineAgent) that the session's agents or its swarm's items used: only a
 * host that defines them again can resume it.
 */
export function codeAgentsUsed(resumable: Resumable): string[] {
  const code = new Set(resumable.settings.codeAgents ?? []);
  if (code.size === 0) return [];
  const used = new Set(resumable.state.agents.map((agent) => agent.profile));
  if (resumable.swarm) used.add(resumable.swarm.role);
  return [...code].filter((name) => used.has(name));
}

/** Rebuilds the saved agents on the engine; for a run, the main agent is told which subagents were interrupted. */
export function restoreOn(engine: Engine, resumable: Resumable): void {
  // The swarm's journal may name agents started after the last snapshot of the agents: their ids stay taken.
  const items = resumable.swarm?.items ?? [];
  const journaled = items.flatMap((i) => [i.agentId, i.verifierId]);
  // Agents of items that may run again come back whole; the rest of the settled ones as their rows.
  const ended = (i: (typeof items)[number]) => i.result?.outcome === 'completed' || i.result?.outcome === 'conflict';
  const needed = new Set(items.filter((i) => !ended(i)).flatMap((i) => [i.agentId, i.verifierId]));
  const { interrupted } = engine.restore(resumable.state, {
    alsoTaken: journaled.filter((id): id is string => id !== undefined),
    maySettle: (id) => !needed.has(id),
  });
  // The session's "allow always" answers hold again, so a call already allowed is not asked twice.
  engine.options.sessionRules?.restore(resumable.state.sessionRules ?? []);
  if (!resumable.swarm) noteInterruptedSubagents(engine, interrupted);
}

/** The parent lost its waiting tool calls with the process: it is told which subagents can be continued. */
function noteInterruptedSubagents(engine: Engine, interrupted: readonly AgentRecord[]): void {
  const children = interrupted.filter((r) => r.parentId !== undefined);
  const main = engine.agentTree.get('main');
  if (!main || children.length === 0) return;
  const list = children
    .map((r) => `${r.id} (${r.profile.name}${r.description ? `: ${r.description}` : ''})`)
    .join(', ');
  main.agent.enqueue(
    {
      role: 'user',
      content: `<session-resumed>The process stopped and this session was resumed. These subagents were interrupted and can be continued with the agent tool's resume parameter: ${list}.</session-resumed>`,
      synthetic: { kind: 'session-resumed' },
    },
    false,
  );
  if (main.agent.status === 'completed') main.agent.interrupt();
}
