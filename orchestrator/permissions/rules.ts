// Permission rules as written in murmur.toml: a bare tool name (`bash`, `fetch_url`), a name pattern
// (`mcp__github__*`), or a tool with an argument pattern (`bash(npm test*)`, `edit(src/**)`, `write(docs/**)`).
// Bad rule text is reported with the text itself and the forms that are accepted.
import { builtinToolsWhere } from '../../tools/builtin-traits.js';
import type { RuleArgument } from '../../tools/contract.js';

export type RuleKind = 'allow' | 'ask' | 'deny';

/** What an argument pattern is matched against (a built-in tool's `ruleArgument` trait). */
export type ArgumentKind = RuleArgument;

export interface PermissionRule {
  /** The rule as written (trimmed). */
  text: string;
  kind: RuleKind;
  /** Where it came from: `permissions.allow`, `permissions.deny`, `session` (an "allow always" answer)… */
  source: string;
  /** The tool-name pattern, lower-cased; `*` and `?` are wildcards. */
  tool: string;
  /** The pattern inside the parentheses, when there is one. */
  argument?: string;
  argumentKind?: ArgumentKind;
}

export interface RuleProblem {
  text: string;
  source: string;
  message: string;
}

/**
 * Built-in tools whose main argument a rule may match (their `ruleArgument` trait): the command for bash, the path
 * for the file tools (a search names the folder or file it looks in). Command tools first, for RULE_FORMS.
 */
export const ARGUMENT_KINDS: Readonly<Record<string, ArgumentKind>> = Object.fromEntries(
  (['command', 'path'] as const).flatMap((kind) =>
    [...builtinToolsWhere((t) => t.ruleArgument === kind)].map((name) => [name, kind] as const),
  ),
);

/** Tools matched by their name only, whatever the arguments: those that start a swarm (their `startsSwarm` trait). */
export const NAME_ONLY: ReadonlySet<string> = builtinToolsWhere((t) => t.startsSwarm === true);

const TOOL_NAME = /^[a-z0-9_\-*?]+$/;

export const RULE_FORMS =
  'accepted forms: a tool name (bash, fetch_url), a name pattern (mcp__github__*), or a tool with an argument pattern: ' +
  `${Object.keys(ARGUMENT_KINDS)
    .map((t) => `${t}(…)`)
    .join(', ')} such as bash(npm test*) or edit(src/**)`;

function problem(text: string, source: string, message: string): RuleProblem {
  return { text, source, message };
}

export function parseRule(raw: unknown, kind: RuleKind, source: string): PermissionRule | RuleProblem {
  if (typeof raw !== 'string')
    return problem(String(raw), source, `a rule must be a string, got ${JSON.stringify(raw) ?? String(raw)}`);
  const text = raw.trim();
  if (text === '') return problem(raw, source, 'the rule is empty');
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 && close >= 0) return problem(text, source, 'it has ")" without "("');
  const name = (open < 0 ? text : text.slice(0, open)).trim().toLowerCase();
  if (name === '') return problem(text, source, 'it has no tool name before "("');
  if (!TOOL_NAME.test(name))
    return problem(text, source, `the tool name ${JSON.stringify(name)} may hold only letters, digits, _, -, * and ?`);
  if (open < 0) return { text, kind, source, tool: name };
  if (close !== text.length - 1) return problem(text, source, 'an argument pattern must end the rule with ")"');
  const argument = text.slice(open + 1, close).trim();
  if (argument === '')
    return problem(
      text,
      source,
      `the argument pattern is empty; write ${JSON.stringify(name)} alone to match every call`,
    );
  if (NAME_ONLY.has(name)) return problem(text, source, `${name} is matched by its tool name only; write "${name}"`);
  if (/[*?]/.test(name))
    return problem(text, source, 'an argument pattern needs one exact tool name, not a name pattern');
  const argumentKind = ARGUMENT_KINDS[name];
  if (!argumentKind) return problem(text, source, `${name} takes no argument pattern; write "${name}" alone`);
  if (argumentKind === 'path' && argument.startsWith('!'))
    return problem(text, source, 'a path pattern cannot be negated with "!"; use a deny rule');
  if (argument.includes('\0')) return problem(text, source, 'the argument pattern contains a NUL byte');
  return { text, kind, source, tool: name, argument, argumentKind };
}

export function isRuleProblem(value: PermissionRule | RuleProblem): value is RuleProblem {
  return 'message' in value;
}

export interface RuleLists {
  allow?: readonly unknown[];
  ask?: readonly unknown[];
  deny?: readonly unknown[];
}

export interface ParsedRules {
  allow: PermissionRule[];
  ask: PermissionRule[];
  deny: PermissionRule[];
  problems: RuleProblem[];
}

/** Parses the allow / ask / deny lists of `[permissions]`; every bad rule is reported, the good ones kept. */
export function parseRuleLists(lists: RuleLists | undefined, section = 'permissions'): ParsedRules {
  const parsed: ParsedRules = { allow: [], ask: [], deny: [], problems: [] };
  for (const kind of ['allow', 'ask', 'deny'] as const) {
    for (const raw of lists?.[kind] ?? []) {
      const rule = parseRule(raw, kind, `${section}.${kind}`);
      if (isRuleProblem(rule)) parsed.problems.push(rule);
      else parsed[kind].push(rule);
    }
  }
  return parsed;
}

export function describeRuleProblem(p: RuleProblem): string {
  return `${p.source}: bad rule ${JSON.stringify(p.text)}: ${p.message} (${RULE_FORMS})`;
}
