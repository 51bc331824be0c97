// The interaction and web tools, and which of them to offer given the adapters the engine has.
import type { InteractionAdapters } from './adapters-interaction.js';
import type { RuntimeTool } from './contract.js';
import { askUserQuestionTool } from './interact/ask-user-question.js';
import { skillTool } from './interact/skill.js';
import { invocableSkills } from './interact/skills.js';
import { todoListTool } from './interact/todo-list.js';
import { fetchUrlTool } from './web/fetch-url.js';
import { webSearchAvailable, webSearchTool } from './web/web-search.js';

export { askUserQuestionTool, fetchUrlTool, skillTool, todoListTool, webSearchAvailable, webSearchTool };

/** Every interaction tool, whatever is configured (names: ask_user_question, todo_list, skill, fetch_url, web_search). */
export const allInteractionTools: readonly RuntimeTool[] = [askUserQuestionTool, todoListTool, skillTool, fetchUrlTool, webSearchTool];

/** True when the skill tool has something to offer: at least one skill the model may invoke. */
export function skillToolAvailable(adapters: Pick<InteractionAdapters, 'skills'>): boolean {
  return adapters.skills !== undefined && invocableSkills(adapters.skills).length > 0;
}

/**
 * The tools to offer: ask_user_question, todo_list and fetch_url always (ask_user_question answers for itself
 * when nobody can reply); skill when a skill can be invoked; web_search when a search adapter is configured.
 */
export function interactionTools(adapters: Pick<InteractionAdapters, 'skills' | 'search'>): RuntimeTool[] {
  const tools: RuntimeTool[] = [askUserQuestionTool, todoListTool];
  if (skillToolAvailable(adapters)) tools.push(skillTool);
  tools.push(fetchUrlTool);
  if (webSearchAvailable(adapters)) tools.push(webSearchTool);
  return tools;
}
