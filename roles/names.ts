// One way to compare tool and agent names everywhere: trimmed, NFKC-normalised, lower-cased.

export function normalizeName(name: string): string {
  return name.trim().normalize('NFKC').toLowerCase();
}

/** Claude Code's tool names, so people can bring their agent files unchanged. */
const CLAUDE_CODE_ALIASES: Record<string, string> = {
  webfetch: 'fetch_url',
  websearch: 'web_search',
  task: 'agent',
  todowrite: 'todo_list',
  multiedit: 'edit',
  ls: 'glob',
  askuserquestion: 'ask_user_question',
  bashoutput: 'task_output',
  killshell: 'task_stop',
  killbash: 'task_stop',
};

/** A tool name as written by a person, mapped to murmur's name. */
export function canonicalToolName(name: string): string {
  const normalized = normalizeName(name);
  return CLAUDE_CODE_ALIASES[normalized] ?? normalized;
}

/** Whether a name matches a pattern where `*` stands for any run of characters (`mcp__github__*`). */
export function matchesNamePattern(name: string, pattern: string): boolean {
  if (!pattern.includes('*')) return name === pattern;
  const parts = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`).test(name);
}
