// The interaction and web tools, and the checks that say whether the host has what some of them need. The
// registry (registry.ts) offers todo_list always; ask_user_question only when someone can answer; fetch_url when
// the host allows fetching; skill when a skill can be invoked; web_search when a search adapter is configured.
import type { InteractionAdapters } from './adapters-interaction.js';
import { askUserQuestionTool } from './interact/ask-user-question.js';
import { skillTool } from './interact/skill.js';
import { invocableSkills } from './interact/skills.js';
import { todoListTool } from './interact/todo-list.js';
import { fetchUrlTool } from './web/fetch-url.js';
import { webSearchAvailable, webSearchTool } from './web/web-search.js';

export { askUserQuestionTool, fetchUrlTool, skillTool, todoListTool, webSearchAvailable, webSearchTool };

/** True when the skill tool has something to offer: at least one skill the model may invoke. */
export function skillToolAvailable(adapters: Pick<InteractionAdapters, 'skills'>): boolean {
  return adapters.skills !== undefined && invocableSkills(adapters.skills).length > 0;
}
