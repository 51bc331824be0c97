// Flag parsing for the murmur command: every command lists its flags; anything else is a clear usage error.

export type FlagKind = 'boolean' | 'string' | 'list';

export interface FlagSpec {
  kind: FlagKind;
  /** For string flags: the accepted values. */
  choices?: readonly string[];
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

export interface ParsedArgs {
  flags: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export class UsageError extends Error {}

/**
 * Parses `--flag value`, `--flag=value`, boolean `--flag`/`--no-flag`, and list flags (`--items A B C`, which
 * take every following token up to the next flag). `--` ends the flags.
 */
export function parseArgs(command: string, argv: readonly string[], specs: FlagSpecs): ParsedArgs {
  const flags: ParsedArgs['flags'] = {};
  const positionals: string[] = [];
  const accepted = () => Object.keys(specs).map((k) => `--${k}`).join(', ');
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith('--') || token === '-') {
      if (token.startsWith('-') && token.length > 1 && !/^-\d/.test(token)) {
        throw new UsageError(`murmur ${command}: unknown flag ${token}. Accepted flags: ${accepted()}.`);
      }
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
    if (!spec) throw new UsageError(`murmur ${command}: unknown flag --${name}. Accepted flags: ${accepted()}.`);
    if (spec.kind === 'boolean') {
      if (inline !== undefined && inline !== 'true' && inline !== 'false') {
        throw new UsageError(`murmur ${command}: --${name} takes no value (or true/false), got ${JSON.stringify(inline)}.`);
      }
      flags[name] = inline !== 'false';
      continue;
    }
    if (spec.kind === 'string') {
      const value = inline ?? argv[++i];
      if (value === undefined || (inline === undefined && value.startsWith('--'))) {
        throw new UsageError(`murmur ${command}: --${name} needs a value${spec.choices ? ` (one of ${spec.choices.join(', ')})` : ''}.`);
      }
      if (spec.choices && !spec.choices.includes(value)) {
        throw new UsageError(`murmur ${command}: --${name} must be one of ${spec.choices.join(', ')}, got ${JSON.stringify(value)}.`);
      }
      flags[name] = value;
      continue;
    }
    const list = (flags[name] as string[] | undefined) ?? [];
    if (inline !== undefined) list.push(inline);
    while (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) list.push(argv[++i]!);
    if (list.length === 0) throw new UsageError(`murmur ${command}: --${name} needs at least one value.`);
    flags[name] = list;
  }
  return { flags, positionals };
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
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`murmur ${command}: --${name} must be a positive whole number, got ${JSON.stringify(raw)}.`);
  return n;
}
