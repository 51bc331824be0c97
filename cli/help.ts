// Help text and the README's command contract, rendered from the declarations in cli/commands.ts and
// cli/flags.ts: `murmur --help`, `murmur X --help` / `-h` / `murmur help X`, and commandContract() — the code
// block under "## Commands (contract)" in README.md (test/cli/help-contract.test.ts keeps the two equal).
import { editDistance, type FlagSpec } from './args.js';
import { COMMANDS, GROUPS, resolveCommand, subcommands, type CommandSpec } from './commands.js';

/** Usage lines wrap before this many columns. */
export const WIDTH = 118;
const COMMENT_COLUMN = 42;
/** Flag descriptions wrap before this many columns. */
const HELP_WIDTH = 100;

function valueName(spec: FlagSpec): string {
  if (spec.kind === 'boolean') return '';
  const name = spec.value ?? spec.choices?.join('|') ?? 'VALUE';
  return spec.kind === 'list' && !name.endsWith('…') ? ` ${name}…` : ` ${name}`;
}

/** `--cwd DIR`, `--no-dashboard`, `--allow-host NAME…`. */
export function flagSyntax(name: string, spec: FlagSpec): string {
  return `--${spec.negated ? `no-${name}` : name}${valueName(spec)}`;
}

const visibleFlags = (command: CommandSpec) => Object.entries(command.flags).filter(([, spec]) => !spec.hidden);

/** Splits at spaces outside brackets, so `[--start DATE]`, `(--cron EXPR | …)` and `--prompt TEXT` stay whole when lines wrap. */
function words(text: string | undefined): string[] {
  const out: string[] = [];
  let depth = 0;
  let word = '';
  for (const ch of text ?? '') {
    if (ch === '(' || ch === '[') depth++;
    if (ch === ')' || ch === ']') depth--;
    if (ch === ' ' && depth === 0) {
      if (word) out.push(word);
      word = '';
    } else word += ch;
  }
  if (word) out.push(word);
  return out.reduce<string[]>((joined, w) => {
    const last = joined[joined.length - 1];
    if (last !== undefined && /^--\S+$/.test(last) && !/^[-([]/.test(w)) joined[joined.length - 1] = `${last} ${w}`;
    else joined.push(w);
    return joined;
  }, []);
}

/** The flags the usage's fixed part does not name, as `[--flag VALUE]`. */
function optionalFlags(command: CommandSpec): string[] {
  const fixed = command.args ?? '';
  return visibleFlags(command)
    .filter(([name, spec]) => !new RegExp(`--${spec.negated ? 'no-' : ''}${name}(?![\\w-])`).test(fixed))
    .map(([name, spec]) => `[${spec.short ? `-${spec.short}${valueName(spec)}` : flagSyntax(name, spec)}]`);
}

function wrap(parts: readonly string[], indent: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const part of parts) {
    if (line && line.length + 1 + part.length > width) {
      lines.push(line);
      line = ' '.repeat(indent) + part;
    } else line = line ? `${line} ${part}` : part;
  }
  if (line) lines.push(line);
  return lines;
}

/** `murmur NAME ARGS [--flag …]… TRAILING`, wrapped under the name. */
export function usageLines(command: CommandSpec, width = WIDTH): string[] {
  const head = `murmur ${command.name}`;
  return wrap(
    [head, ...words(command.args), ...optionalFlags(command), ...words(command.trailing)],
    head.length + 1,
    width,
  );
}

/** The usage with `# summary` after it (on its own line when it does not fit). */
function withComment(lines: readonly string[], comment: string, indent: number, width = WIDTH): string[] {
  const last = lines[lines.length - 1]!;
  const joined = `${last.padEnd(Math.max(COMMENT_COLUMN, last.length + 3))}# ${comment}`;
  if (joined.length <= width) return [...lines.slice(0, -1), joined];
  return [...lines, `${' '.repeat(indent)}# ${comment}`];
}

function contractLines(command: CommandSpec, width = WIDTH): string[] {
  return withComment(usageLines(command, width), command.summary, `murmur ${command.name} `.length, width);
}

/** The code block of README.md's "## Commands (contract)", without its fences. */
export function commandContract(): string {
  const lines = COMMANDS.flatMap((command) => contractLines(command));
  lines.push(
    ...withComment(['murmur COMMAND --help | murmur help COMMAND'], 'usage, every flag with its default, examples', 0),
    'murmur --help | --version',
    ...withComment(['murmur-tools tools|tool|call …'], 'inside an agent\'s bash (see "Tools from the shell")', 0),
  );
  return `${lines.join('\n')}\n`;
}

function flagRows(command: CommandSpec): string[] {
  const rows = visibleFlags(command).map(([name, spec]) => {
    const left = `${spec.short ? `-${spec.short}, ` : ''}${flagSyntax(name, spec)}`;
    return {
      left,
      right: `${spec.description ?? ''}${spec.default !== undefined ? ` (default: ${spec.default})` : ''}`,
    };
  });
  rows.push({ left: '-h, --help', right: 'this help' });
  const column = Math.min(30, Math.max(...rows.map((r) => r.left.length)) + 2);
  const pad = ' '.repeat(2 + column);
  return rows.flatMap(({ left, right }) => {
    const text = wrap(right.split(' '), 0, HELP_WIDTH - pad.length).map((line) => pad + line.trimStart());
    if (left.length + 2 <= column) text[0] = `  ${left.padEnd(column)}${text[0]!.slice(pad.length)}`;
    else text.unshift(`  ${left}`);
    return text;
  });
}

/** What `murmur NAME --help` prints. */
export function commandHelp(command: CommandSpec): string {
  const sections = [
    `murmur ${command.name} — ${command.summary}`,
    `Usage:\n${usageLines(command, WIDTH - 2)
      .map((l) => `  ${l}`)
      .join('\n')}`,
    `Options:\n${flagRows(command).join('\n')}`,
    `Example${command.examples.length > 1 ? 's' : ''}:\n${command.examples.map((e) => `  ${e}`).join('\n')}`,
    ...(command.notes && command.notes.length > 0
      ? [command.notes.flatMap((note) => wrap(note.split(' '), 0, HELP_WIDTH)).join('\n')]
      : []),
  ];
  return `${sections.join('\n\n')}\n`;
}

/** What `murmur schedule --help` prints: each subcommand's usage and summary. */
export function groupHelp(group: string): string {
  const subs = subcommands(group);
  return [
    `murmur ${group} — ${GROUPS[group]!.summary}`,
    '',
    ...subs.flatMap((c) => contractLines(c, WIDTH - 2).map((l) => `  ${l}`)),
    '',
    `A subcommand's flags, defaults and examples: murmur ${group} SUBCOMMAND --help (or murmur help ${group} SUBCOMMAND).`,
    '',
    'Examples:',
    ...subs.slice(0, 3).map((c) => `  ${c.examples[0]}`),
    '',
  ].join('\n');
}

/** The help for `murmur help WORDS…`; undefined when the words name no command. */
export function helpFor(argv: readonly string[]): string | undefined {
  const { command, group } = resolveCommand(argv);
  return command ? commandHelp(command) : group ? groupHelp(group) : undefined;
}

/** What `murmur --help` prints. */
export function overview(): string {
  const entries: [string, string][] = [];
  for (const command of COMMANDS) {
    const group = command.name.split(' ')[0]!;
    if (GROUPS[group] && !GROUPS[group].fallback) {
      if (subcommands(group)[0] === command)
        entries.push([
          `murmur ${group} ${subcommands(group)
            .map((c) => c.name.slice(group.length + 1))
            .join('|')} …`,
          `${GROUPS[group].summary}`,
        ]);
      continue;
    }
    const parts = [
      `murmur ${command.name}`,
      command.args,
      optionalFlags(command).length > 0 ? '[options]' : undefined,
      command.trailing,
    ];
    entries.push([parts.filter(Boolean).join(' '), command.summary]);
  }
  const lines = entries.flatMap(([usage, summary]) =>
    usage.length + 2 <= 40 ? [`  ${usage.padEnd(40)}${summary}`] : [`  ${usage}`, `  ${' '.repeat(40)}${summary}`],
  );
  return [
    'murmur — a multi-agent orchestrator: swarms and subagents with a live dashboard',
    '',
    'Usage:',
    ...lines,
    "  murmur help COMMAND | murmur COMMAND --help   a command's usage, every flag with its default, and examples",
    '  murmur --help | --version',
    '',
    'State lives in .murmur/ under the workspace (MURMUR_HOME overrides). Exit status 0 when the work completed.',
    '',
  ].join('\n');
}

/** The command names people type, for suggestions (`mcp` is listed as `mcp serve`). */
const NAMES = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]!))];
const SHOWN = NAMES.map((name) => (GROUPS[name]?.fallback ? `${name} ${GROUPS[name].fallback}` : name));

/** `murmur: unknown command "swram". Did you mean swarm? …` */
export function unknownCommandMessage(word: string, where = 'murmur'): string {
  const near = NAMES.filter((name) => editDistance(word, name) <= (name.length <= 4 ? 1 : 2));
  const hint = near.length > 0 ? ` Did you mean ${near.join(' or ')}?` : '';
  return `${where}: unknown command "${word}".${hint} Commands: ${SHOWN.join(', ')}; see murmur --help.`;
}
