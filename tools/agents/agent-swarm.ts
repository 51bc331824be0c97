// agent_swarm: one call fans a prompt template out over many items, one subagent each, and returns the report.
// Made for each calling agent with that agent's own SwarmAdapter (createAgentSwarmTool(swarm)).
import { Type } from '@sinclair/typebox';
import {
  defineRuntimeTool,
  errorResult,
  textResult,
  type RuntimeTool,
  type ToolDefinition,
  type ToolTraits,
} from '../contract.js';
import type { SwarmAdapter, SwarmRequest } from '../adapters.js';

const parameters = Type.Object({
  prompt_template: Type.Optional(
    Type.String({
      description:
        'The task for each subagent; every {{item}} is replaced by the item. The subagent sees nothing else of this conversation.',
    }),
  ),
  items: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'One subagent per item (at least 2 unless resuming), e.g. file paths. Each must give a different prompt.',
    }),
  ),
  subagent_type: Type.Optional(
    Type.String({
      description: 'explore, coder/worker (default) or verifier, or a defined agent; applies to every new subagent.',
    }),
  ),
  resume_agent_ids: Type.Optional(
    Type.Array(Type.String(), {
      description: "Ids of your earlier subagents to continue with their context (from a report's resume hint).",
    }),
  ),
  resume_prompt: Type.Optional(
    Type.String({ description: 'What to tell the resumed subagents (default: continue where you stopped).' }),
  ),
  description: Type.Optional(Type.String({ description: 'A short label for the swarm, shown in progress views.' })),
  verify: Type.Optional(
    Type.Boolean({
      description: 'A verifier checks each completed item; on a fail the worker gets the reasons and tries again.',
    }),
  ),
  max_rounds: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 10, description: 'Verify rounds per item (default 2).' }),
  ),
  isolation: Type.Optional(
    Type.Union([Type.Literal('none'), Type.Literal('worktree')], {
      description: 'worktree: each worker in its own git worktree, merged back when it completes.',
    }),
  ),
});

/** agent_swarm's traits: it starts many agents at once, so swarm mode decides whether it asks. */
export const AGENT_SWARM_TRAITS = { startsAgents: true, startsSwarm: true } as const satisfies ToolTraits;

const definition: ToolDefinition<typeof parameters> = {
  ...AGENT_SWARM_TRAITS,
  name: 'agent_swarm',
  description: [
    'Run many subagents at once, one per item, from one prompt template (for example one worker per file to migrate,',
    'or one explorer per question). It ramps up gradually, survives rate limits, and returns a report with each',
    "subagent's final message in item order. Call it alone in its message, and wait for the report before other calls.",
  ].join(' '),
  parameters,
  executionMode: 'sequential',
};

/** Makes agent_swarm for one agent from that agent's swarm port. */
export type AgentSwarmToolFactory = (swarm: SwarmAdapter) => RuntimeTool;

/** agent_swarm for one calling agent: `swarm` runs the swarms that agent starts. */
export const createAgentSwarmTool: AgentSwarmToolFactory = (swarm) =>
  defineRuntimeTool({
    def: definition,
    async execute(_ctx, input, signal, onUpdate) {
      const request: SwarmRequest = { items: input.items ?? [] };
      if (input.prompt_template !== undefined) request.promptTemplate = input.prompt_template;
      if (input.subagent_type !== undefined) request.subagentType = input.subagent_type;
      if (input.resume_agent_ids !== undefined) request.resumeAgentIds = input.resume_agent_ids;
      if (input.resume_prompt !== undefined) request.resumePrompt = input.resume_prompt;
      if (input.description !== undefined) request.description = input.description;
      if (input.verify !== undefined) request.verify = input.verify;
      if (input.max_rounds !== undefined) request.maxRounds = input.max_rounds;
      if (input.isolation !== undefined) request.isolation = input.isolation;
      const answer = await swarm.run(request, signal, (text) => onUpdate({ text }));
      if (!answer.ok) return errorResult(`agent_swarm did not start: ${answer.error}`);
      const result = textResult(answer.report);
      if (answer.isError) result.isError = true;
      return result;
    },
  });

/**
 * @deprecated The factory under its earlier name (hosts pass it as EngineOptions.swarmTool); use
 * createAgentSwarmTool.
 */
export const agentSwarmTool: AgentSwarmToolFactory = createAgentSwarmTool;
