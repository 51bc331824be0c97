// A saved session's agents, rebuilt on a fresh agent tree: finished agents stay finished; running ones come back
// `interrupted`, their transcripts repaired (a cut last line dropped, results of finished subagents filled in)
// so they can continue. An agent whose profile is gone is skipped, with its descendants, and said so.
import type { AgentProfile } from '../roles/profile.js';
import { builtinProfile, resolveProfile } from '../roles/profile.js';
import type { AgentRecord, AgentTree } from './agent-tree.js';
import type { Message } from './types.js';
import { openCalls } from './loop.js';
import type { EventBus } from './events.js';
import type { SavedAgent, SessionState } from './saved-state.js';
import type { SessionStore } from './session.js';
import { finishedSubagentResults, repairTranscript } from './transcript-repair.js';
import { interruptionId } from '../protocol/interruptions.js';
import { inSettledLog } from './settled-log.js';

/** `alsoTaken`: agent ids named elsewhere (the journal); `maySettle`: which settled agents may come back as rows alone. */
export interface RestoreOptions {
  alsoTaken?: readonly string[];
  maySettle?: (agentId: string) => boolean;
}

export interface RestoreInto {
  session: SessionStore;
  tree: AgentTree;
  definitions: ReadonlyMap<string, AgentProfile>;
  bus: EventBus;
  /** Whether a settled agent of an earlier process may stay settled (nothing runs it again); default: none may. */
  maySettle?: ((agentId: string) => boolean) | undefined;
}

/** Spawns the saved agents (parents first) and returns the ones to continue. */
export function restoreAgents(
  state: SessionState,
  { session, tree, definitions, bus, maySettle }: RestoreInto,
): AgentRecord[] {
  const interrupted: AgentRecord[] = [];
  // An agent that settled in an earlier process (a session swarm's ended item's) comes back as its row alone.
  // A parent stays whole: its subagents come back under it.
  const parents = new Set(state.agents.map((saved) => saved.parentId));
  const live = state.agents.filter((saved) => {
    if (!inSettledLog(saved) || !maySettle?.(saved.id) || parents.has(saved.id)) return true;
    tree.restoreSettled(saved);
    return false;
  });
  const byDepth = live.sort((a, b) => a.depth - b.depth);
  const skipped = new Set<string>();
  const loaded = session.readTranscripts(live.map((a) => a.id));
  const transcripts = new Map([...loaded].map(([id, t]) => [id, t.messages]));
  const pending = new Set((state.interruptions ?? []).map(interruptionId));
  for (const saved of byDepth) {
    const named =
      resolveProfile(saved.profile, definitions) ?? (saved.profile === 'main' ? builtinProfile('main') : undefined);
    // An agent that answered with the run's typed output answers with it again.
    const output = saved.output ? state.settings?.output : undefined;
    const profile = named && output ? { ...named, output } : named;
    if (!profile) {
      bus.emit({
        type: 'log',
        level: 'warn',
        message: `resume: agent ${saved.id} used "${saved.profile}", which is no longer defined; it is skipped`,
      });
      skipped.add(saved.id);
      continue;
    }
    if (saved.parentId !== undefined && skipped.has(saved.parentId)) {
      bus.emit({
        type: 'log',
        level: 'warn',
        message: `resume: agent ${saved.id} is skipped with its parent ${saved.parentId}`,
      });
      skipped.add(saved.id);
      continue;
    }
    const transcript = loaded.get(saved.id)!;
    // A waiting agent's open calls stay open (it runs them when it goes on), and so does a call kept for a person.
    const waiting = saved.status === 'waiting';
    const messages = repairTranscript(
      transcript.messages,
      finishedSubagentResults(saved.id, live, transcripts),
      (call) => waiting || pending.has(interruptionId({ agentId: saved.id, callId: call.id })),
    );
    // Keep the file equal to the conversation the agent continues from (cut line dropped, results filled in).
    if (transcript.damaged || messages.length !== transcript.messages.length)
      session.replaceTranscript(saved.id, messages, saved.swarmId !== undefined);
    const spec: Parameters<AgentTree['spawn']>[0] = { profile, id: saved.id, messages };
    if (saved.parentId !== undefined) spec.parentId = saved.parentId;
    else if (saved.depth > 0) spec.detached = true;
    if (saved.description !== undefined) spec.description = saved.description;
    if (saved.swarmId !== undefined) spec.swarmId = saved.swarmId;
    if (saved.item !== undefined) spec.item = saved.item;
    if (saved.attempt !== undefined) spec.attempt = saved.attempt;
    const callId = saved.callId ?? startingCallOf(saved, transcripts);
    if (callId !== undefined) spec.callId = callId;
    // A worktree item keeps working in its worktree, not in the main tree.
    if (saved.workspaceRoot !== undefined) spec.workspaceRoot = saved.workspaceRoot;
    const spawned = tree.spawn(spec);
    if (!spawned.ok) continue;
    const agent = spawned.record.agent;
    agent.restore(saved.status, saved.reason);
    agent.restoreTimes(saved.startedAt, saved.endedAt);
    if (agent.status === 'interrupted') interrupted.push(spawned.record);
  }
  return interrupted;
}

/**
 * The parent's agent call that started a waiting subagent of a session saved before agents kept it (version 1): its
 * parent's open `agent` call with the subagent's description, or its only open one. The call runs again when the
 * parent goes on, and finds this subagent by it instead of starting another.
 */
function startingCallOf(saved: SavedAgent, transcripts: ReadonlyMap<string, Message[]>): string | undefined {
  if (saved.status !== 'waiting' || saved.parentId === undefined) return undefined;
  const open = openCalls(transcripts.get(saved.parentId) ?? []).filter((call) => call.name === 'agent');
  const described = open.filter((call) => descriptionOf(call.arguments) === saved.description);
  const [only] = described.length === 1 ? described : open.length === 1 ? open : [];
  return only?.id;
}

/** The `description` of an agent call's arguments (the raw JSON the model sent), or undefined. */
function descriptionOf(args: string): string | undefined {
  try {
    const description = (JSON.parse(args) as { description?: unknown } | null)?.description;
    return typeof description === 'string' ? description : undefined;
  } catch {
    return undefined;
  }
}
