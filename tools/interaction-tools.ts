// The interaction and web tool factories, and the checks that say whether the host has what some of them need.
// The registry (registry.ts) makes todo_list with a todo store; ask_user_question with a user channel (and the task
// store); fetch_url with a web policy; skill with a skill catalog; web_search with a search adapter.
import type { InteractionAdapters } from './adapters-interaction.js';
import { createAskUserQuestionTool } from './interact/ask-user-question.js';
import { createSkillTool } from './interact/skill.js';
import { invocableSkills } from './interact/skills.js';
import { createTodoListTool } from './interact/todo-list.js';
import { createFetchUrlTool } from './web/fetch-url.js';
import { createWebSearchTool, webSearchAvailable } from './web/web-search.js';

export {
  createAskUserQuestionTool,
  createFetchUrlTool,
  createSkillTool,
  createTodoListTool,
  createWebSearchTool,
  webSearchAvailable,
};

/** True when the skill tool has something to offer: at least one skill the model may invoke. */
export function skillToolAvailable(adapters: InteractionAdapters): boolean {
  return adapters.skills !== undefined && invocableSkills(adapters.skills).length > 0;
}
