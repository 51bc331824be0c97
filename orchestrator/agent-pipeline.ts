// Builder: one agent's tool-call pipeline, assembled once — its batch vetoes (built-in, then the host's), the host's
// call hook, its permission gate, and its after-call stages in order (the result budget first, then the skill
// chain). A function of the agent, the host's ports and the agent's context; the shell bridge decides calls through
// the same hooks.
import { resultBudgetStage } from '../tools/budget.js';
import type { AfterCallStage } from '../tools/call-stage.js';
import { skillChainTracker } from '../tools/interact/skill.js';
import type { BatchVetoFor, GateAgent, PermissionGate, ResultBudgetFor, ToolCallHook } from './runtime-ports.js';
import type { AgentToolContext, BatchHooks, BatchVeto } from './tool-batch.js';
import { batchVetoes } from './vetoes.js';

/** The host's ports the pipeline is made of; each is optional (no gate: every call runs). */
export interface PipelinePorts {
  permission?: PermissionGate | undefined;
  resultBudget?: ResultBudgetFor | undefined;
  extraVetoes?: BatchVetoFor | undefined;
  /** The host's hook on every call (before the gate). */
  onToolCall?: ToolCallHook | undefined;
}

export interface AgentPipeline {
  hooks: BatchHooks;
  /** Call when a person speaks to the agent (a non-synthetic user message): a fresh skill chain starts. */
  onPrompt: () => void;
}

/** `hasRead`: the agent holds read, so the result budget may spill large results to a file it can read back. */
export function pipelineFor(
  agent: GateAgent,
  ports: PipelinePorts,
  context: AgentToolContext,
  hasRead: boolean,
): AgentPipeline {
  const extra = ports.extraVetoes?.(agent);
  const vetoes: BatchVeto[] = extra ? [batchVetoes, extra] : [batchVetoes];
  const hooks: BatchHooks = {
    vetoBatch: (calls) => {
      for (const veto of vetoes) {
        const refusal = veto(calls);
        if (refusal) return refusal;
      }
      return undefined;
    },
  };
  const hook = ports.onToolCall;
  if (hook) hooks.onCall = (call, tool, args, signal) => hook(agent, call, tool, args, signal);
  const gate = ports.permission;
  if (gate) hooks.beforeCall = (call, tool, args, signal) => gate(agent, call, tool, args, signal);
  const stages: AfterCallStage[] = [];
  if (ports.resultBudget) stages.push(resultBudgetStage(ports.resultBudget(agent, hasRead), agent.id));
  // Skills loaded since the last prompt from a person count as nested: the skill tool caps how deep.
  const skillChain = skillChainTracker(context);
  stages.push(skillChain.stage);
  hooks.afterCall = stages;
  return { hooks, onPrompt: skillChain.onPrompt };
}
