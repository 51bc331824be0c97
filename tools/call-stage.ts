// The after-call stages of the tool-call pipeline: ordered steps that each see a call's result (as the
// previous stage left it) and return the result the conversation keeps. Assembled once per agent (the
// result budget, the skill chain…), so no hook is wrapped around another.
import type { RuntimeTool, ToolResult } from './contract.js';

/** What a stage needs of a call: its id (unique within the agent's conversation) and its tool name. */
export interface CalledTool {
  id: string;
  name: string;
}

export interface AfterCallStage {
  /** Names the stage in an error result when it throws. */
  readonly name: string;
  run(call: CalledTool, tool: RuntimeTool | undefined, result: ToolResult): Promise<ToolResult> | ToolResult;
}
