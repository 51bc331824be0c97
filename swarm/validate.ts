// Checks an agent_swarm call before anything starts; every problem is a message naming the bad value.

export const ITEM_PLACEHOLDER = '{{item}}';

export interface SwarmInput {
  promptTemplate?: string;
  items: readonly string[];
  /** Each item's prompt, made by the caller (object items, a template function): no template is needed then. */
  prompts?: readonly string[];
  resumeAgentIds?: readonly string[];
}

export type ValidatedItems = { ok: true; items: string[]; prompts: string[] } | { ok: false; error: string };

export function renderPrompt(template: string, item: string): string {
  return template.split(ITEM_PLACEHOLDER).join(item);
}

/**
 * `minItems` is 2 for the model's agent_swarm (one item should be an `agent` call); `murmur swarm` takes 1, as a
 * person's glob that matches one file is no mistake.
 */
export function validateSwarmItems(input: SwarmInput, maxItems: number, minItems = 2): ValidatedItems {
  const resumeCount = input.resumeAgentIds?.length ?? 0;
  const items = input.items.map((item) => item.trim());
  const blank = items.findIndex((item) => item === '');
  if (blank >= 0) return { ok: false, error: `items[${blank}] is empty; every item must be a non-empty string` };
  // A NUL cuts a command line or a file name short, and U+FFFD is what bytes that were not UTF-8 became on the way
  // in: either way the item is not what the person meant.
  const unreadable = items.findIndex((item) => item.includes('\0') || item.includes('\uFFFD'));
  if (unreadable >= 0) {
    const what = items[unreadable]!.includes('\0') ? 'a NUL character' : 'bytes that are not valid UTF-8';
    return {
      ok: false,
      error: `items[${unreadable}] (${JSON.stringify(items[unreadable]!.slice(0, 80))}) holds ${what}; give items as plain UTF-8 text`,
    };
  }
  const given = input.prompts;
  if (given !== undefined && given.length !== items.length)
    return { ok: false, error: `${given.length} prompts were given for ${items.length} items` };
  const emptyPrompt = given?.findIndex((prompt) => prompt.trim() === '') ?? -1;
  if (emptyPrompt >= 0) return { ok: false, error: `the prompt of items[${emptyPrompt}] is empty` };
  if (given === undefined && items.length > 0 && input.promptTemplate === undefined) {
    return {
      ok: false,
      error: `items were given without a prompt_template; add a prompt_template containing ${ITEM_PLACEHOLDER}`,
    };
  }
  if (given === undefined && input.promptTemplate !== undefined && !input.promptTemplate.includes(ITEM_PLACEHOLDER)) {
    return {
      ok: false,
      error: `prompt_template must contain the placeholder ${ITEM_PLACEHOLDER} (replaced by each item); got ${JSON.stringify(input.promptTemplate.slice(0, 120))}`,
    };
  }
  if (resumeCount === 0 && items.length < minItems && minItems > 1) {
    return {
      ok: false,
      error: `a swarm needs at least ${minItems} items (got ${items.length}); for a single task use the agent tool`,
    };
  }
  if (items.length + resumeCount < 1) return { ok: false, error: 'nothing to run: give items or resume_agent_ids' };
  if (items.length + resumeCount > maxItems) {
    return {
      ok: false,
      error: `too many subagents for one call: ${items.length + resumeCount} (the limit is ${maxItems}; set [subagent] maxSwarmItems in murmur.toml or MURMUR_SWARM_MAX_ITEMS to change it, 0 = no limit)`,
    };
  }
  const prompts = given ? [...given] : items.map((item) => renderPrompt(input.promptTemplate ?? '', item));
  const seen = new Map<string, number>();
  for (let i = 0; i < prompts.length; i++) {
    const first = seen.get(prompts[i]!);
    if (first !== undefined)
      return {
        ok: false,
        error: `items[${first}] and items[${i}] give the same prompt (${JSON.stringify(items[i])}); each item must differ`,
      };
    seen.set(prompts[i]!, i);
  }
  return { ok: true, items, prompts };
}
