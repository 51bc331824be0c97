// Flag parsing for the murmur command: every command declares its flags (cli/flags.ts); anything else is a clear
// usage error that suggests the closest declared flag. `--help` / `-h` anywhere a flag may stand asks for help.

export type FlagKind = 'boolean' | 'string' | 'list';

export interface FlagSpec {
  kind: FlagKind;
  /** For string flags: the accepted values. */
  choices?: readonly string[];
  /** One line for the help text. */
  description?: string;
  /** The default as shown in help (text, not a value the parser applies). */
  default?: string;
  /** The value's name in help and usage lines (`DIR`, `N`, `URL`); choices are shown instead when absent. */
  value?: string;
  /** A one-letter alias: `-o FILE` for `--output FILE`. */
  short?: string;
  /** A boolean that is on by default: people type `--no-NAME`, and help shows it so. */
  negated?: boolean;
  /** Internal (the scheduler's child mode): accepted, never shown in help, the README or suggestions. */
  hidden?: boolean;
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

export interface ParsedArgs {
  flags: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export class UsageError extends Error {}

/** `--help` or `-h` among a command's flags: main.ts prints that command's help (exit 0). */
export class HelpRequest extends Error {
  constructor(readonly command: string) {
    super(`murmur ${command} --help`);
  }
}

const isHelp = (token: string) => token === '--help' || token === '-h';

/** The long name for a short alias (`-o` → `output`), if declared. */
function shortName(token: string, specs: FlagSpecs): string | undefined {
  if (!/^-[A-Za-z]$/.test(token)) return undefined;
  return Object.keys(specs).find((name) => specs[name]!.short === token.slice(1));
}

/**
 * Parses `--flag value`, `--flag=value`, boolean `--flag`/`--no-flag`, short aliases (`-o FILE`), and list flags
 * (`--items A B C`, which take every following token up to the next flag). `--` ends the flags.
 */
export function parseArgs(command: string, argv: readonly string[], specs: FlagSpecs): ParsedArgs {
  const flags: ParsedArgs['flags'] = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    let token = argv[i]!;
    if (token === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (isHelp(token) && !specs.help) throw new HelpRequest(command);
    const alias = shortName(token, specs);
    if (alias !== undefined) token = `--${alias}`;
    if (!token.startsWith('--') || token === '-') {
      if (token.startsWith('-') && token.length > 1 && !/^-\d/.test(token)) throw unknownFlag(command, token, specs);
      positionals.push(token);
      continue;
    }
    const eq = token.indexOf('=');
    let name = eq >= 0 ? token.slice(2, eq) : token.slice(2);
    let inline = eq >= 0 ? token.slice(eq + 1) : undefined;
    let spec = specs[name];
    if (!spec && name.startsWith('no-') && specs[name.slice(3)]?.kind === 'boolean' && inline === undefined) {
      name = name.slice(3);
      spec = specs[name];
      inline = 'false';
    }
    if (!spec) throw unknownFlag(command, eq >= 0 ? token.slice(0, eq) : token, specs);
    if (spec.kind === 'boolean') {
      if (inline !== undefined && inline !== 'true' && inline !== 'false') {
        throw new UsageError(
          `murmur ${command}: --${name} takes no value (or true/false), got ${JSON.stringify(inline)}.`,
        );
      }
      flags[name] = inline !== 'false';
      continue;
    }
    if (spec.kind === 'string') {
      const value = inline ?? argv[++i];
      if (value === undefined || (inline === undefined && value.startsWith('--'))) {
        throw new UsageError(
          `murmur ${command}: --${name} needs a value${spec.choices ? ` (one of ${spec.choices.join(', ')})` : ''}.`,
        );
      }
      if (spec.choices && !spec.choices.includes(value)) {
        throw new UsageError(
          `murmur ${command}: --${name} must be one of ${spec.choices.join(', ')}, got ${JSON.stringify(value)}.`,
        );
      }
      flags[name] = value;
      continue;
    }
    const list = (flags[name] as string[] | undefined) ?? [];
    if (inline !== undefined) list.push(inline);
    while (i + 1 < argv.length && !argv[i + 1]!.startsWith('--') && !isHelp(argv[i + 1]!)) list.push(argv[++i]!);
    if (list.length === 0) throw new UsageError(`murmur ${command}: --${name} needs at least one value.`);
    flags[name] = list;
  }
  return { flags, positionals };
}

/**
 * Whether ARGV asks for help where parseArgs would see a flag (not as a flag's value, not after `--`). Lenient:
 * unknown flags and bad values are the command's to report, so `murmur swarm --itmes a --help` still helps.
 */
export function asksForHelp(argv: readonly string[], specs: FlagSpecs): boolean {
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') return false;
    if (isHelp(token) && !specs.help) return true;
    const name =
      shortName(token, specs) ?? (token.startsWith('--') && !token.includes('=') ? token.slice(2) : undefined);
    const spec = name !== undefined ? specs[name] : undefined;
    if (spec?.kind === 'string' && i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) i++;
    if (spec?.kind === 'list')
      while (i + 1 < argv.length && !argv[i + 1]!.startsWith('--') && !isHelp(argv[i + 1]!)) i++;
  }
  return false;
}

function unknownFlag(command: string, token: string, specs: FlagSpecs): UsageError {
  const near = closestFlags(token, specs);
  const hint = near.length > 0 ? ` Did you mean ${near.join(' or ')}?` : '';
  return new UsageError(`murmur ${command}: unknown flag ${token}.${hint} See murmur ${command} --help.`);
}

/** Edit distance, case-insensitive: insertions, deletions, substitutions and swaps of neighbours (`itmes` → 1). */
export function editDistance(a: string, b: string): number {
  a = a.toLowerCase();
  b = b.toLowerCase();
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The visible flags closest to TOKEN (`--itmes` → `--items`, `--max-conc` → `--max-concurrency`, `-model` →
 * `--model`, `--no-dashbord` → `--no-dashboard`): edit distance ≤ 2 (≤ 1 for names of 3 letters or fewer), else a
 * prefix either way (at least 3 letters). The nearest ones, at most three; none when nothing is close.
 */
export function closestFlags(token: string, specs: FlagSpecs): string[] {
  const typed = token.replace(/^-+/, '').toLowerCase();
  if (!typed) return [];
  const candidates: string[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.hidden) continue;
    if (!spec.negated) candidates.push(name);
    if (spec.kind === 'boolean' && (spec.negated || typed.startsWith('no'))) candidates.push(`no-${name}`);
  }
  let best = Number.POSITIVE_INFINITY;
  let found: string[] = [];
  for (const name of candidates) {
    const distance = editDistance(typed, name);
    const shorter = Math.min(typed.length, name.length);
    const prefix = shorter >= 3 && (name.startsWith(typed) || typed.startsWith(name));
    const score = distance <= (shorter <= 3 ? 1 : 2) ? distance : prefix ? 3 : Number.POSITIVE_INFINITY;
    if (score < best) [best, found] = [score, [name]];
    else if (score === best && Number.isFinite(score)) found.push(name);
  }
  return found.slice(0, 3).map((name) => `--${name}`);
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags[name];
  return typeof value === 'string' ? value : undefined;
}

export function boolFlag(args: ParsedArgs, name: string): boolean {
  return args.flags[name] === true;
}

/** A positive whole number from a flag, or a usage error naming the flag and the value. */
export function positiveIntFlag(command: string, args: ParsedArgs, name: string): number | undefined {
  const raw = stringFlag(args, name);
  if (raw === undefined) return undefined;
  // Digits only: `1e3`, `0x10` and `10.0` are numbers to Number() but not what a person types for a count.
  const n = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`murmur ${command}: --${name} must be a positive whole number, got ${JSON.stringify(raw)}.`);
  return n;
}
