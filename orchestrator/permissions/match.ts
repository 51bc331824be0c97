// Matching rules against a call. Deny and ask rules hit when the call — or any simple command of a compound
// bash command — matches; allow rules must cover every simple command, so an allowed prefix cannot carry
// another command along. Path patterns follow gitignore rules (the `ignore` package, as for sensitive files).
import ignore, { type Ignore } from 'ignore';
import { builtinToolsWhere } from '../../tools/builtin-traits.js';
import { matchesToolPattern } from '../../tools/mcp/names.js';
import type { PermissionRule } from './rules.js';
import { splitShellCommand } from './shell-split.js';
import type { CallPath, CallSubject } from './subject.js';

function collapse(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

const commandPatterns = new Map<string, RegExp>();

/** `*` is any run of characters (spaces and slashes included); everything else is literal; runs of spaces are one. */
export function commandMatches(pattern: string, command: string, anchored = true): boolean {
  const key = `${anchored ? '^' : ''}${pattern}`;
  let regex = commandPatterns.get(key);
  if (!regex) {
    const body = collapse(pattern)
      .split('*')
      .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    regex = anchored ? new RegExp(`^${body}$`, 's') : new RegExp(body, 's');
    commandPatterns.set(key, regex);
  }
  return regex.test(collapse(command));
}

const pathMatchers = new Map<string, Ignore>();

/**
 * gitignore semantics: `src/**` is everything below src, `*.md` a Markdown file at any depth, `./a.md` only the
 * one at the workspace root, `/etc/**` an absolute path. A relative pattern never matches a path outside the
 * workspace.
 */
export function pathMatches(pattern: string, target: CallPath): boolean {
  const absolute = pattern.startsWith('/');
  let normal = pattern;
  // `./x` anchors x at the workspace root (gitignore anchors a pattern with a leading slash).
  if (normal.startsWith('./')) normal = `/${normal.replace(/^(\.\/)+/, '')}`;
  const candidate = absolute ? target.absolute.replace(/\\/g, '/').replace(/^\/+/, '') : target.relative;
  if (candidate === undefined || candidate === '' || candidate === '.') return false;
  let matcher = pathMatchers.get(normal);
  if (!matcher) {
    matcher = ignore().add(normal);
    pathMatchers.set(normal, matcher);
  }
  return matcher.ignores(candidate);
}

export function toolMatches(rule: PermissionRule, subject: CallSubject): boolean {
  return matchesToolPattern(rule.tool, subject.tool);
}

/**
 * Built-in tools whose path a `read(…)` deny or ask rule also covers: they read what they search (read-only tools
 * whose rule argument is a path).
 */
export const READERS: ReadonlySet<string> = builtinToolsWhere((t) => t.readOnly === true && t.ruleArgument === 'path');

/**
 * A simple command as a deny rule should see it: grouping, shell keywords and leading variable assignments
 * stripped, so `(curl x)`, `{ curl x; }`, `if true; then curl x; fi` and `FOO=1 curl x` all read `curl x`.
 */
export function commandCore(segment: string): string {
  let core = segment.trim();
  for (let previous = ''; previous !== core;) {
    previous = core;
    core = core
      .replace(/^[({!]\s*/, '')
      .replace(/^(then|do|else|elif|if|while|until|time|exec|command|nohup|env)\s+/, '')
      .replace(/^[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+/, '')
      .replace(/\s*[)}]\s*$/, '')
      .trim();
  }
  return core;
}

function pathHits(pattern: string, path: CallPath): boolean {
  return pathMatches(pattern, path) || (path.real !== undefined && pathMatches(pattern, path.real));
}

/** A deny or ask rule: the call, or any part of a compound command, matches it. */
export function ruleHits(rule: PermissionRule, subject: CallSubject): boolean {
  const byReadRule = rule.tool === 'read' && rule.argumentKind === 'path' && READERS.has(subject.tool);
  if (!byReadRule && !toolMatches(rule, subject)) return false;
  if (rule.argument === undefined) return true;
  if (rule.argumentKind === 'path') return subject.path !== undefined && pathHits(rule.argument, subject.path);
  const command = subject.command;
  if (command === undefined) return false;
  if (commandMatches(rule.argument, command)) return true;
  const parts = splitShellCommand(command);
  if (
    parts.segments.some(
      (segment) => commandMatches(rule.argument!, segment) || commandMatches(rule.argument!, commandCore(segment)),
    )
  )
    return true;
  // A substituted command hides inside another one: look for the pattern anywhere.
  return parts.substitution && commandMatches(rule.argument, command, false);
}

export function firstHit(rules: readonly PermissionRule[], subject: CallSubject): PermissionRule | undefined {
  return rules.find((rule) => ruleHits(rule, subject));
}

/**
 * The allow rules that together allow the call, or undefined. A bare rule allows every call of its tools; for
 * bash each simple command needs a rule of its own and a substituted command is never covered by a pattern.
 */
export function allowedBy(rules: readonly PermissionRule[], subject: CallSubject): PermissionRule[] | undefined {
  const candidates = rules.filter((rule) => toolMatches(rule, subject));
  const bare = candidates.find((rule) => rule.argument === undefined);
  if (bare) return [bare];
  if (subject.path !== undefined) {
    const rule = candidates.find((r) => r.argumentKind === 'path' && pathMatches(r.argument!, subject.path!));
    return rule ? [rule] : undefined;
  }
  if (subject.command === undefined) return undefined;
  const parts = splitShellCommand(subject.command);
  if (parts.substitution || parts.segments.length === 0) return undefined;
  const used: PermissionRule[] = [];
  for (const segment of parts.segments) {
    const rule = candidates.find((r) => r.argumentKind === 'command' && commandMatches(r.argument!, segment));
    if (!rule) return undefined;
    if (!used.includes(rule)) used.push(rule);
  }
  return used;
}
