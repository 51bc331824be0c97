// Equal strings shared: a swarm's items build the same system prompt each, and a finished agent keeps its own
// (hundreds of bytes per item, a million items). A small table hands back the first copy; it is emptied when full.
const MAX_ENTRIES = 64;
const table = new Map<string, string>();

/** The first copy of an equal string seen lately, else this one (kept for the next). */
export function intern(text: string): string {
  const known = table.get(text);
  if (known !== undefined) return known;
  if (table.size >= MAX_ENTRIES) table.clear();
  table.set(text, text);
  return text;
}
