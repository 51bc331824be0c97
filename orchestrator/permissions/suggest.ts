// The rule that would allow a call: shown in a headless denial ("add this to [permissions] allow") and added
// for the session when the user answers "allow always".
import { splitShellCommand } from './shell-split.js';
import type { CallSubject } from './subject.js';

/** The narrowest rules that allow exactly this call (several for a compound bash command). */
export function suggestRules(subject: CallSubject): string[] {
  const { tool } = subject;
  if (subject.command !== undefined) {
    const parts = splitShellCommand(subject.command);
    // A substituted command cannot be covered by a pattern: only the bare tool allows it.
    if (parts.substitution || parts.segments.length === 0) return [tool];
    return [...new Set(parts.segments.map((segment) => `${tool}(${segment.replace(/\s+/g, ' ')})`))];
  }
  if (subject.path !== undefined) {
    // `./` anchors the path at the workspace root, so the rule does not also cover a same-named file deeper down.
    // For a protected path this is the rule that names it exactly (protected.ts), the only kind that pre-approves it.
    if (subject.path.relative !== undefined) return [`${tool}(./${escapeGlob(subject.path.relative)})`];
    return [`${tool}(${escapeGlob(subject.path.absolute.replace(/\\/g, '/'))})`];
  }
  return [tool];
}

/** A literal path as a gitignore pattern (wildcards and a leading # or ! escaped). */
function escapeGlob(path: string): string {
  return path.replace(/([*?[\]\\])/g, '\\$1').replace(/^([#!])/, '\\$1');
}

/** How to write the rules in murmur.toml. */
export function tomlAllowLine(rules: readonly string[]): string {
  return `[permissions] allow = [${rules.map((r) => JSON.stringify(r)).join(', ')}]`;
}
