// The murmur-tools command line (contract), parsed on the host side: a pure function of argv.
//   murmur-tools tools [--keyword K] [--json]
//   murmur-tools tool NAME [--json]
//   murmur-tools call NAME [--args JSON | --args-file F | --args -]   (the launcher turns the last two into --args)

export type BridgeCommand =
  | { kind: 'help' }
  | { kind: 'tools'; keyword?: string; json: boolean }
  | { kind: 'tool'; name: string; json: boolean }
  | { kind: 'call'; name: string; args: string };

export const USAGE = [
  'usage: murmur-tools tools [--keyword K] [--json]     the tools you may use: name and description',
  '       murmur-tools tool NAME [--json]               its description, parameters (JSON Schema) and an example call',
  '       murmur-tools call NAME [--args JSON | --args-file F | --args -]   call it; the result on stdout',
  'exit: 0 ok, 1 the tool returned an error, 2 usage error, 3 refused (role, definition, permission rule or person), 4 no lease',
].join('\n');

type Parsed = { ok: true; command: BridgeCommand } | { ok: false; message: string };

function usageError(message: string): Parsed {
  return { ok: false, message: `${message}\n${USAGE}` };
}

/** Splits flags from positional words; a flag that takes a value must have one. */
function scan(
  argv: readonly string[],
  valued: ReadonlySet<string>,
  switches: ReadonlySet<string>,
): { flags: Map<string, string>; words: string[] } | string {
  const flags = new Map<string, string>();
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const name = eq === -1 ? word : word.slice(0, eq);
      if (switches.has(name) && eq === -1) {
        flags.set(name, 'true');
        continue;
      }
      if (!valued.has(name))
        return `unknown option ${word}; accepted here: ${[...valued, ...switches].join(', ') || 'none'}`;
      if (flags.has(name)) return `${name} is given twice`;
      if (eq !== -1) flags.set(name, word.slice(eq + 1));
      else if (i + 1 < argv.length) flags.set(name, argv[++i]!);
      else return `${name} needs a value`;
    } else words.push(word);
  }
  return { flags, words };
}

export function parseCommand(argv: readonly string[]): Parsed {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === 'help' || verb === '--help' || verb === '-h')
    return { ok: true, command: { kind: 'help' } };
  if (verb === 'tools') {
    const scanned = scan(rest, new Set(['--keyword']), new Set(['--json']));
    if (typeof scanned === 'string') return usageError(`murmur-tools tools: ${scanned}`);
    if (scanned.words.length > 0)
      return usageError(`murmur-tools tools: unexpected ${JSON.stringify(scanned.words[0])}; search with --keyword K`);
    const keyword = scanned.flags.get('--keyword');
    return {
      ok: true,
      command: { kind: 'tools', json: scanned.flags.has('--json'), ...(keyword !== undefined ? { keyword } : {}) },
    };
  }
  if (verb === 'tool') {
    const scanned = scan(rest, new Set(), new Set(['--json']));
    if (typeof scanned === 'string') return usageError(`murmur-tools tool: ${scanned}`);
    if (scanned.words.length !== 1) return usageError('murmur-tools tool: give exactly one tool NAME');
    return { ok: true, command: { kind: 'tool', name: scanned.words[0]!, json: scanned.flags.has('--json') } };
  }
  if (verb === 'call') {
    const scanned = scan(rest, new Set(['--args']), new Set());
    if (typeof scanned === 'string') return usageError(`murmur-tools call: ${scanned}`);
    if (scanned.words.length !== 1)
      return usageError('murmur-tools call: give exactly one tool NAME (arguments go in --args JSON)');
    return { ok: true, command: { kind: 'call', name: scanned.words[0]!, args: scanned.flags.get('--args') ?? '{}' } };
  }
  return usageError(`murmur-tools: unknown command ${JSON.stringify(verb)}; the commands are tools, tool and call`);
}

/** Every word of the keyword appears in the name or the description (case-insensitive). */
export function matchesKeyword(tool: { name: string; description: string }, keyword: string): boolean {
  const haystack = `${tool.name}\n${tool.description}`.toLowerCase();
  return keyword
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}

/** The first line of a description, cut to a readable length. */
export function oneLine(description: string, max = 160): string {
  const line = description.trim().split('\n')[0]!.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function placeholder(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return '…';
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  switch (s.type) {
    case 'number':
    case 'integer':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return exampleArguments(s);
    default:
      return '…';
  }
}

/** Arguments for an example call: the required properties with placeholder values. */
export function exampleArguments(schema: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof schema !== 'object' || schema === null) return out;
  const { properties, required } = schema as { properties?: Record<string, unknown>; required?: unknown };
  if (!properties || !Array.isArray(required)) return out;
  for (const name of required)
    if (typeof name === 'string' && name in properties) out[name] = placeholder(properties[name]);
  return out;
}

export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:=@-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
