// The YAML front matter of skills and agent definitions. Plain `key: text` lines (murmur's own skill, most files)
// are read here without the YAML library, which would otherwise be a sixth of what a one-turn `murmur run` loads;
// anything else goes to the library, loaded on first need.
import { createRequire } from 'node:module';

type YamlLibrary = typeof import('yaml');

let library: YamlLibrary | undefined;

/** Loads the YAML library ahead of a synchronous parse that needs it (in the bundle, its own chunk). */
export async function loadYamlLibrary(): Promise<void> {
  // The package is CommonJS: bundled, its namespace holds only `default` (module.exports), so read that.
  const loaded = (await import('yaml')) as YamlLibrary & { default?: YamlLibrary };
  library ??= loaded.default ?? loaded;
}

/** `key: text` with nothing YAML would read otherwise: no tab, no quote or indicator first, no `: ` or ` #` inside. */
const LINE = /^([A-Za-z][\w-]{0,63}):[ ]+(\S.*?)[ ]*$/;
const INDICATOR_FIRST = /^[-?:,[\]{}#&*!|>'"%@`]/;
// Values YAML's core schema reads as null, a boolean or a number (or might: a leading digit, sign or dot).
const NOT_TEXT = /^(?:~|null|true|false|y|n|yes|no|on|off|[\d+.].*)$/i;
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]|: | #|:$/;

/**
 * The mapping YAML would make of `text` when every line is `key: plain text` (blank lines aside) and every value
 * is a plain string; undefined whenever the library is needed to be sure (it then decides, errors included).
 */
export function plainMapping(text: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let keys = 0;
  for (const line of text.split(/\r?\n/)) {
    if (line === '') continue;
    const match = LINE.exec(line);
    if (!match) return undefined;
    const [, key, value] = match as unknown as [string, string, string];
    if (key in out || NOT_TEXT.test(key)) return undefined;
    if (INDICATOR_FIRST.test(value) || NOT_TEXT.test(value) || UNSAFE.test(value)) return undefined;
    out[key] = value;
    keys++;
  }
  return keys > 0 ? out : undefined;
}

/** Whether parsing `text` needs the YAML library. */
export function needsYamlLibrary(text: string): boolean {
  return plainMapping(text) === undefined;
}

/**
 * Parses front matter as YAML; throws what the library throws. Synchronous: when loadYamlLibrary() has not run,
 * the library is required from node_modules (slower, same result).
 */
export function parseFrontMatter(text: string): unknown {
  const plain = plainMapping(text);
  if (plain) return plain;
  library ??= createRequire(import.meta.url)('yaml') as YamlLibrary;
  return library.parse(text);
}
