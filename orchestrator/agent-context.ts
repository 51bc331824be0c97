// Builder: one agent's tool context — the facts every call of that agent shares: who it is, where it works (its
// own worktree root in a swarm), what it has read, the session's folders and the environment policy. A pure
// function of the agent and the run's values; the murmur-tools lease is attached by the runtime once the agent's
// pipeline exists (its shell's calls run in this same context).
import type { EnvPolicy, FileReadLedger, FileStamp, SessionPaths, WorkspacePolicy } from '../tools/adapters.js';
import type { AgentToolContext } from './tool-batch.js';

/** The run's values a context is made of. */
export interface ContextInputs {
  /** The run's workspace root. */
  cwd: string;
  workspace: WorkspacePolicy;
  env: EnvPolicy;
  /** The session's folders, shared by every agent of the run; absent without a session. */
  session?: SessionPaths | undefined;
}

/** What the context needs of an agent (the scheduler's AgentRecord fits). */
export interface ContextAgent {
  id: string;
  profile: { name: string; role?: string };
  /** Its own workspace root (a swarm worktree), when not the run's. */
  workspaceRoot?: string | undefined;
}

export function createReadLedger(): FileReadLedger {
  const stamps = new Map<string, FileStamp>();
  return { recordRead: (path, stamp) => stamps.set(path, stamp), lastRead: (path) => stamps.get(path) };
}

/** A fresh context for one agent (its own read ledger); the workspace policy follows the agent's root. */
export function buildToolContext(agent: ContextAgent, inputs: ContextInputs): AgentToolContext {
  const root = agent.workspaceRoot ?? inputs.cwd;
  const context: AgentToolContext = {
    agentId: agent.id,
    role: agent.profile.name,
    cwd: root,
    workspace: root === inputs.cwd ? inputs.workspace : { ...inputs.workspace, root },
    reads: createReadLedger(),
    env: verifierInPlace(agent, root, inputs) ? readOnlyShell(inputs.env) : inputs.env,
  };
  if (inputs.session) context.session = inputs.session;
  return context;
}

/**
 * A verifier checking work in the run's own workspace (no worktree of its own): its sandboxed shell sees that
 * workspace read-only, as it must not change the work it checks while workers may be editing it. In a worktree the
 * swarm puts back whatever the verifier changed instead (swarm/verifier-guard.ts).
 */
function verifierInPlace(agent: ContextAgent, root: string, inputs: ContextInputs): boolean {
  return agent.profile.role === 'verifier' && root === inputs.cwd && inputs.env.sandbox !== undefined;
}

function readOnlyShell(env: EnvPolicy): EnvPolicy {
  return env.sandbox ? { ...env, sandbox: { ...env.sandbox, readOnlyWorkspace: true } } : env;
}
