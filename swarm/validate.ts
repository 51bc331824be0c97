// Checks an agent_swarm call before anything starts; every problem is a message naming the bad value.

export const ITEM_PLACEHOLDER = '{{item}}';

export interface SwarmInput {
  promptTemplate?: string;
  items: readonly string[];
  /** Each item's prompt, made by the caller (object items, a template function): no template is needed then. */
  prompts?: readonly string[];
  resumeAgentIds?: readonly string[];
}

/** Checked items; `promptOf(i)` makes item i's prompt when asked (a million prompts are not held at once). */
export type ValidatedItems =
  { ok: true; items: string[]; promptOf: (index: number) => string } | { ok: false; error: string };

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
  const template = input.promptTemplate ?? '';
  const promptOf = given ? (index: number) => given[index]! : (index: number) => renderPrompt(template, items[index]!);
  // A template gives different items different prompts (the item is in it whole), so comparing items is enough.
  const twice = firstRepeat(given ?? items);
  if (twice)
    return {
      ok: false,
      error: `items[${twice[0]}] and items[${twice[1]}] give the same prompt (${JSON.stringify(items[twice[1]])}); each item must differ`,
    };
  return { ok: true, items, promptOf };
}

/**
 * The first pair of equal texts (by the later one's index), or undefined. By hashes first (4 bytes a text, sorted):
 * only texts whose hash repeats are compared, so a million items cost no map of a million entries.
 */
function firstRepeat(texts: readonly string[]): [number, number] | undefined {
  const hashes = new Uint32Array(texts.length);
  for (let i = 0; i < texts.length; i++) hashes[i] = hashOf(texts[i]!);
  const sorted = hashes.slice().sort();
  const repeated = new Set<number>();
  for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) repeated.add(sorted[i]!);
  if (repeated.size === 0) return undefined;
  const seen = new Map<string, number>();
  for (let i = 0; i < texts.length; i++) {
    if (!repeated.has(hashes[i]!)) continue;
    const first = seen.get(texts[i]!);
    if (first !== undefined) return [first, i];
    seen.set(texts[i]!, i);
  }
  return undefined;
}

/** FNV-1a over the UTF-16 units. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
