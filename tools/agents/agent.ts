// The agent tool: starts (or resumes) one subagent, in the foreground or in the background. Made for each
// parent agent with that agent's own SubagentAdapter (createAgentTool(subagents)).
import { Type } from '@sinclair/typebox';
import type { SubagentAdapter, SubagentOutcome, SubagentRequest } from '../adapters.js';
import {
  defineRuntimeTool,
  errorResult,
  pendingResult,
  textResult,
  type RuntimeTool,
  type ToolDefinition,
  type ToolTraits,
} from '../contract.js';

const parameters = Type.Object({
  prompt: Type.String({
    minLength: 1,
    description: 'The whole task for the subagent: it sees nothing else of this conversation.',
  }),
  description: Type.String({
    minLength: 1,
    description: 'A short label for the task (3-5 words), shown in progress views.',
  }),
  subagent_type: Type.Optional(
    Type.String({
      description:
        'explore (read and search), coder/worker (change things, the default), verifier (check work), or a defined agent.',
    }),
  ),
  resume: Type.Optional(
    Type.String({
      description: 'The id of an earlier subagent of yours to continue with this prompt (keeps its context).',
    }),
  ),
  run_in_background: Type.Optional(
    Type.Boolean({
      description: 'Start it and return at once; you get a <task-notification> when it ends. Default false.',
    }),
  ),
});

function wordCount(text: string): number {
  return text.trim().split(/\s+/).filter(Boolean).length;
}

/** agent's traits: it starts a subagent, whose own calls are checked. */
export const AGENT_TRAITS = { selfChecked: true, startsAgents: true } as const satisfies ToolTraits;

const definition: ToolDefinition<typeof parameters> = {
  ...AGENT_TRAITS,
  name: 'agent',
  description: [
    'Start a subagent for an independent piece of work and get its final message back.',
    'Several agent calls in one message run at the same time. With run_in_background the call returns a task id at once',
    'and the result arrives later as a <task-notification> message. Use resume with an agent id to continue an earlier subagent.',
  ].join(' '),
  parameters,
  executionMode: 'parallel',
};

/** The agent tool of one parent agent: `subagents` starts and resumes that agent's own subagents. */
export function createAgentTool(subagents: SubagentAdapter): RuntimeTool {
  return defineRuntimeTool({
    def: definition,
    async execute(ctx, input, signal) {
      if (input.resume !== undefined && input.subagent_type !== undefined) {
        return errorResult(
          '"resume" and "subagent_type" cannot be combined: a resumed subagent keeps its own type. Drop subagent_type.',
        );
      }
      const words = wordCount(input.description);
      if (words > 8)
        return errorResult(
          `"description" should be a short label of 3-5 words; got ${words} words: ${JSON.stringify(input.description)}`,
        );
      const request: SubagentRequest = {
        prompt: input.prompt,
        description: input.description.trim(),
        background: input.run_in_background === true,
        callId: ctx.callId,
      };
      if (input.subagent_type !== undefined) request.subagentType = input.subagent_type;
      if (input.resume !== undefined) request.resume = input.resume;
      const answer = await subagents.run(request, signal);
      if (!answer.ok) return errorResult(answer.error);
      const { outcome } = answer;
      if (outcome.taskId !== undefined) {
        return textResult(
          `Started subagent ${outcome.agentId} (${outcome.subagentType}) in the background as task ${outcome.taskId}. ` +
            'You will receive a <task-notification> message when it ends; use task_output to check on it meanwhile.',
          outcome,
        );
      }
      // The subagent waits for a person: so does this call (it goes on with the subagent when the run resumes).
      if (outcome.status === 'waiting')
        return pendingResult(`subagent ${outcome.agentId} is ${outcome.reason ?? 'waiting for a person'}`);
      const handoff = subagentHandoff(outcome);
      const result = textResult(handoff.text, outcome);
      if (handoff.isError) result.isError = true;
      return result;
    },
  });
}

/** What the parent sees of a foreground subagent that ended: a header line, then its last message. */
export function subagentHandoff(
  outcome: Pick<SubagentOutcome, 'agentId' | 'subagentType' | 'status' | 'text' | 'reason'>,
): { text: string; isError: boolean } {
  const header = `[subagent ${outcome.agentId} (${outcome.subagentType}) ${outcome.status}${outcome.reason ? `: ${outcome.reason}` : ''}]`;
  const body = outcome.text || '(the subagent ended without a final message)';
  return { text: `${header}\n${body}`, isError: outcome.status !== 'completed' };
}
