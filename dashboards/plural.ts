// A count in words, "1 agent" / "2 agents", the one way every page, the TUI and the command line write counts.
// The page script gets the very same function as source (PLURAL_JS, put once into the console's script), so a
// hover card and a server-rendered table cannot disagree on "1 tool call".

/** `n` and the noun that fits it: `one` for exactly 1, else `many` (default: `one` + "s"). */
export const plural = (n: number, one: string, many: string = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** `plural` as page-script source: an arrow function carries no name a bundler could rename. */
export const PLURAL_JS = `const plural = ${plural.toString()};`;
