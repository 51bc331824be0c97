// The "asker": the one place where the user answers (the dashboard's modal, a terminal prompt). The engine
// never draws anything itself; the command line hands it an asker, or none when nobody can answer.
import type { ApprovalAnswer } from '../../protocol/interruptions.js';
import type {
  PlanDecision,
  PlanReviewRequest,
  QuestionReply,
  QuestionRequest,
} from '../../tools/adapters-interaction.js';

/** Which agent asks: its id, role and what it was started for, as the prompts show it. */
export interface AgentLabel {
  agentId: string;
  role: string;
}

/** Who asks: the agent and its ancestors, nearest first (the parent, its parent, … up to main). */
export interface Requester extends AgentLabel {
  chain: readonly AgentLabel[];
}

/** A tool call that needs a yes or no from a person (onApproval gets it): the agent, the call and why it asks. */
export interface ApprovalRequest {
  requester: Requester;
  callId: string;
  /** The tool that runs (for mcp_invoke, the tool it invokes). */
  tool: string;
  /** The exact call in one line: the command for bash, the path for the file tools, else the arguments as JSON. */
  summary: string;
  /** The arguments, pretty-printed and cut to a readable size. */
  detail: string;
  /** Why the user is asked (the mode's reason or the ask rule). */
  reason: string;
  /** The rules "allow always" adds for the session (none: the prompt offers no "allow always"). */
  alwaysRules: readonly string[];
  /** A card in plain words shown instead of the call (create_scheduled_task's). */
  card?: string;
}

export type { ApprovalAnswer } from '../../protocol/interruptions.js';

export interface PlanApprovalRequest extends PlanReviewRequest {
  requester: Requester;
}

/**
 * Shows one request at a time (the broker queues them) and resolves with the answer, or undefined when the
 * prompt was dismissed or `signal` aborted.
 */
export interface Asker {
  approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer | undefined>;
  question(request: QuestionRequest, requester: Requester, signal: AbortSignal): Promise<QuestionReply | undefined>;
  plan(request: PlanApprovalRequest, signal: AbortSignal): Promise<PlanDecision | undefined>;
}

/** `a-7 (worker) ← a-3 (lead) ← main`: the asking agent, then who started it. */
export function describeRequester(requester: Requester): string {
  const label = (a: AgentLabel) => (a.agentId === a.role ? a.agentId : `${a.agentId} (${a.role})`);
  return [requester, ...requester.chain].map(label).join(' ← ');
}
