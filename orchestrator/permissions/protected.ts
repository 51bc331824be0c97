// Protected paths as the permission policy sees them: whether a file tool's path lies in one (tools/fs/
// protected-paths.ts holds the one list), and whether a rule names that protected path itself. A write or edit there
// asks a person in every mode; a generic allow rule (`write`, `write(**)`, `edit(*.json)`) does not pre-approve it.
import path from 'node:path';
import { builtinToolsWhere } from '../../tools/builtin-traits.js';
import { isProtectedPath, protectedKind, type ProtectedKind } from '../../tools/fs/protected-paths.js';
import { pathMatches, toolMatches } from './match.js';
import type { PermissionRule } from './rules.js';
import type { CallPath, CallSubject } from './subject.js';

/**
 * The built-in tools that change a file named by their path argument (their `writesPath` trait; ARGUMENT_KINDS'
 * other path tools only read).
 */
export const FILE_CHANGE_TOOLS: ReadonlySet<string> = builtinToolsWhere((t) => t.writesPath === true);

/**
 * A protected entry the path lies in, as path segments: the shortest leading part of the path that is protected by
 * itself (`murmur.toml`, `.vscode`, `.git`, `sub/.git`, `.murmur/agents`, …), in the frame a rule's pattern uses —
 * `relative` to the workspace root (patterns like `x`, `./x`), or `absolute` without the leading `/` (patterns `/x`).
 */
export interface ProtectedEntry {
  frame: 'relative' | 'absolute';
  segments: readonly string[];
}

/** One form of the call's path (as written, or with symlinks followed) that is protected. */
export interface ProtectedForm {
  form: CallPath;
  entries: readonly ProtectedEntry[];
}

export interface ProtectedTarget {
  /** The path as the person sees it: workspace-relative when inside, else absolute; with a link's target. */
  shown: string;
  /** What the path steers: murmur, git, the editor or the shell. */
  steers: string;
  /** Every protected form of the path; a rule must name each of them. */
  forms: readonly ProtectedForm[];
}

function segmentsOf(p: string): string[] {
  return p
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '');
}

/** The shortest leading part of `rel` (segments) that is protected by itself; `rel` itself must be protected. */
function shortestProtected(rel: readonly string[]): number | undefined {
  if (!isProtectedPath(rel.join('/'))) return undefined;
  for (let k = 1; k <= rel.length; k++) if (isProtectedPath(rel.slice(0, k).join('/'))) return k;
  return rel.length;
}

function steersOf(within: string): ProtectedKind {
  // `within` is protected by construction (a path in its root, or the part from a `.git` segment on).
  return protectedKind(within) ?? 'murmur';
}

/** The protected entries of one form of the path, and the path inside its root that made it protected. */
function entriesOf(form: CallPath, extraRoots: readonly string[]): { entries: ProtectedEntry[]; within?: string } {
  const entries: ProtectedEntry[] = [];
  let within: string | undefined;
  const abs = segmentsOf(form.absolute);
  const add = (frame: ProtectedEntry['frame'], segments: readonly string[], inside: string) => {
    if (!entries.some((e) => e.frame === frame && e.segments.join('/') === segments.join('/')))
      entries.push({ frame, segments });
    within ??= inside;
  };
  // Inside the workspace: its own list (root-level names, git internals at any depth, murmur's state).
  if (form.relative !== undefined) {
    const rel = segmentsOf(form.relative);
    const k = shortestProtected(rel);
    if (k !== undefined) {
      add('relative', rel.slice(0, k), rel.join('/'));
      add('absolute', abs.slice(0, abs.length - (rel.length - k)), rel.join('/'));
    }
  }
  // Under an extra root: the same list, relative to that root.
  for (const root of extraRoots) {
    const rel = path.relative(root, form.absolute);
    if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) continue;
    const segments = segmentsOf(rel);
    const k = shortestProtected(segments);
    if (k !== undefined) add('absolute', abs.slice(0, abs.length - (segments.length - k)), segments.join('/'));
  }
  // Anywhere: a `.git` folder followed by a protected git entry (a parent repository's `../.git/config`).
  abs.forEach((segment, i) => {
    if (segment !== '.git') return;
    const rest = abs.slice(i).join('/');
    if (isProtectedPath(rest)) add('absolute', abs.slice(0, i + 1), rest);
  });
  return within === undefined ? { entries } : { entries, within };
}

/**
 * Whether the call's path is protected — checked on the path as written and with symlinks followed; inside the
 * workspace by its workspace-relative path, under an extra root by the path relative to that root, and anywhere by a
 * `.git` segment followed by a protected git entry. Undefined when it is not (or the call has no path).
 */
export function protectedTarget(subject: CallSubject, extraRoots: readonly string[] = []): ProtectedTarget | undefined {
  const target = subject.path;
  if (target === undefined) return undefined;
  const forms: ProtectedForm[] = [];
  let steers: string | undefined;
  let first: string | undefined;
  for (const form of target.real ? [target, target.real] : [target]) {
    const { entries, within } = entriesOf(form, extraRoots);
    if (entries.length === 0) continue;
    // A link above the protected entry (a temporary folder, a linked checkout) leaves the same file in the same
    // place of its root or git folder: naming the path as written names it.
    if (within === first) continue;
    forms.push({ form, entries });
    first ??= within;
    steers ??= steersOf(within!);
  }
  if (forms.length === 0) return undefined;
  const show = (p: CallPath) => p.relative ?? p.absolute.replace(/\\/g, '/');
  const shown =
    forms[0]!.form === target || target.real === undefined
      ? show(target)
      : `${show(target)} (a link to ${show(target.real)})`;
  return { shown, steers: steers!, forms };
}

/**
 * The literal leading segments of a path pattern: its leading `./` (or `/`, which makes it absolute) dropped, then
 * the whole segments before the first wildcard (`*`, `?`, `[`; a backslash makes the next character literal).
 */
export function patternLiteral(pattern: string): ProtectedEntry {
  const absolute = pattern.startsWith('/');
  const body = absolute ? pattern.replace(/^\/+/, '') : pattern.replace(/^(\.\/)+/, '');
  let literal = '';
  let wildcard = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\' && i + 1 < body.length) {
      literal += body[++i];
      continue;
    }
    if (c === '*' || c === '?' || c === '[') {
      wildcard = true;
      break;
    }
    literal += c;
  }
  const segments = literal.split('/');
  // The segment the wildcard cut short is not literal (`.vscode*` names no folder).
  if (wildcard) segments.pop();
  return { frame: absolute ? 'absolute' : 'relative', segments: segments.filter((s) => s !== '') };
}

function startsWith(literal: ProtectedEntry, entry: ProtectedEntry): boolean {
  return (
    literal.frame === entry.frame &&
    literal.segments.length >= entry.segments.length &&
    entry.segments.every((s, i) => literal.segments[i] === s)
  );
}

/**
 * Whether a rule names the protected path itself, and so may pre-approve a write or edit there. It does when it is a
 * path rule for exactly this tool (`write(…)` or `edit(…)`) that matches the call's path, and its pattern — with a
 * leading `./` or `/` dropped — starts, in whole segments written literally before any wildcard (`*`, `?`, `[`), with
 * the protected entry the path lies in: `murmur.toml`, `.mcp.json`, `.gitmodules`, `.vscode`, `.idea`, `.git` (or
 * `sub/.git`), `.murmur/agents`, `.bashrc`… — the shortest leading part of the path that is protected by itself; for
 * an absolute pattern, that entry's absolute path. When the path goes through a symlink to another protected place,
 * the rule must match and name that place too (in practice: no rule can). So `write(./murmur.toml)`,
 * `write(murmur.toml)`, `edit(.vscode/**)`, `write(.git/hooks/pre-commit)`, `write(.git/**)` and
 * `write(/repo/.git/config)` name theirs; a bare `write`, `write(**)`, `edit(*.json)`, `write(.vscode*)`,
 * `write(**\/.git/**)`, `write(pre-commit)`, `write(.murmur/**)` and `edit(./murmur.toml)` for a write do not.
 */
export function namesProtectedPath(rule: PermissionRule, subject: CallSubject, target: ProtectedTarget): boolean {
  if (rule.argumentKind !== 'path' || rule.argument === undefined || subject.path === undefined) return false;
  if (!toolMatches(rule, subject) || !pathMatches(rule.argument, subject.path)) return false;
  const literal = patternLiteral(rule.argument);
  return target.forms.every(
    ({ form, entries }) => pathMatches(rule.argument!, form) && entries.some((entry) => startsWith(literal, entry)),
  );
}

/** The first of `rules` that names the protected path, as a one-rule list (allowedBy's shape), or undefined. */
export function namingRules(
  rules: readonly PermissionRule[],
  subject: CallSubject,
  target: ProtectedTarget,
): PermissionRule[] | undefined {
  const rule = rules.find((r) => namesProtectedPath(r, subject, target));
  return rule ? [rule] : undefined;
}

/** Why a person is asked for a write or edit of a protected path, in one sentence. */
export function protectedReason(tool: string, target: ProtectedTarget): string {
  return (
    `${tool} would change ${target.shown}, a protected path that steers ${target.steers} (it can make code run ` +
    "outside the agent's reach), so a person decides in every permission mode unless a rule names that path"
  );
}
