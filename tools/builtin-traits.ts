// The traits of every built-in tool, by name: each entry is the very constant the tool's own definition spreads, so
// a tool's traits are declared once, in its file. The permission policy and the role filters derive their tables
// from here (builtinToolsWhere), because they need them where no tool object is at hand: a rule parsed from
// murmur.toml, the target of an mcp_invoke call, a tool name in a role's cap.
import type { ToolTraits } from './contract.js';
import { AGENT_SWARM_TRAITS } from './agents/agent-swarm.js';
import { AGENT_TRAITS } from './agents/agent.js';
import { CREATE_SCHEDULED_TASK_TRAITS } from './agents/create-scheduled-task.js';
import { SET_TIMER_TRAITS } from './agents/set-timer.js';
import { TASK_LIST_TRAITS, TASK_OUTPUT_TRAITS, TASK_STOP_TRAITS } from './agents/task-tools.js';
import { EDIT_TRAITS } from './fs/edit.js';
import { GLOB_TRAITS } from './fs/glob.js';
import { GREP_TRAITS } from './fs/grep.js';
import { READ_MEDIA_FILE_TRAITS } from './fs/read-media-file.js';
import { READ_TRAITS } from './fs/read.js';
import { WRITE_TRAITS } from './fs/write.js';
import { ASK_USER_QUESTION_TRAITS } from './interact/ask-user-question.js';
import { ENTER_PLAN_MODE_TRAITS, EXIT_PLAN_MODE_TRAITS } from './interact/plan-mode.js';
import { SKILL_TRAITS } from './interact/skill.js';
import { TODO_LIST_TRAITS } from './interact/todo-list.js';
import { MCP_INVOKE_TRAITS, TOOL_SEARCH_TRAITS } from './mcp/disclosure.js';
import { BASH_TRAITS } from './shell/bash.js';
import { FETCH_URL_TRAITS } from './web/fetch-url.js';
import { WEB_SEARCH_TRAITS } from './web/web-search.js';

/**
 * final_answer's traits: giving the typed answer changes nothing by itself. Its definition lives with the engine
 * (orchestrator/final-answer.ts), which a tool file may not import, so its constant is kept here for it to spread.
 */
export const FINAL_ANSWER_TRAITS = { selfChecked: true } as const satisfies ToolTraits;

/**
 * Every built-in tool's traits, by name: the registry's tools in catalog order, then the host's built-in extras
 * (plan mode, create_scheduled_task), the MCP disclosure pair and typed outputs' final_answer.
 */
export const BUILTIN_TRAITS = {
  read: READ_TRAITS,
  write: WRITE_TRAITS,
  edit: EDIT_TRAITS,
  grep: GREP_TRAITS,
  glob: GLOB_TRAITS,
  read_media_file: READ_MEDIA_FILE_TRAITS,
  bash: BASH_TRAITS,
  todo_list: TODO_LIST_TRAITS,
  skill: SKILL_TRAITS,
  ask_user_question: ASK_USER_QUESTION_TRAITS,
  fetch_url: FETCH_URL_TRAITS,
  web_search: WEB_SEARCH_TRAITS,
  agent: AGENT_TRAITS,
  agent_swarm: AGENT_SWARM_TRAITS,
  task_list: TASK_LIST_TRAITS,
  task_output: TASK_OUTPUT_TRAITS,
  task_stop: TASK_STOP_TRAITS,
  set_timer: SET_TIMER_TRAITS,
  enter_plan_mode: ENTER_PLAN_MODE_TRAITS,
  exit_plan_mode: EXIT_PLAN_MODE_TRAITS,
  create_scheduled_task: CREATE_SCHEDULED_TASK_TRAITS,
  tool_search: TOOL_SEARCH_TRAITS,
  mcp_invoke: MCP_INVOKE_TRAITS,
  final_answer: FINAL_ANSWER_TRAITS,
} as const satisfies Readonly<Record<string, ToolTraits>>;

const entries: readonly (readonly [string, ToolTraits])[] = Object.entries(BUILTIN_TRAITS);

/** The traits of the built-in tool `name`, or undefined when no built-in tool has that name. */
export function builtinTraits(name: string): ToolTraits | undefined {
  return Object.hasOwn(BUILTIN_TRAITS, name) ? (BUILTIN_TRAITS as Record<string, ToolTraits>)[name] : undefined;
}

/** The names of the built-in tools whose traits pass `test`, in the table's order. */
export function builtinToolsWhere(test: (traits: ToolTraits) => boolean): ReadonlySet<string> {
  return new Set(entries.filter(([, traits]) => test(traits)).map(([name]) => name));
}

/** Every trait a definition may declare, as keys: a trait missing here fails to compile. */
const TRAIT_KEYS: Readonly<Record<keyof ToolTraits, true>> = {
  readOnly: true,
  ruleArgument: true,
  writesPath: true,
  selfChecked: true,
  startsAgents: true,
  startsSwarm: true,
  controlsTasks: true,
  notForSubagents: true,
};

/** The traits a tool's definition declares, and nothing else (absent traits left out). */
export function traitsOf(def: ToolTraits): ToolTraits {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(TRAIT_KEYS) as (keyof ToolTraits)[]) if (def[key] !== undefined) out[key] = def[key];
  return out as ToolTraits;
}
