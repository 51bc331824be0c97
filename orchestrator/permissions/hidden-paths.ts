// What `read(…)` deny rules hide from the agents' walks of the workspace.
import type { MurmurConfig } from '../config.js';
import { parseRuleLists } from './rules.js';

/**
 * The workspace paths that `read(…)` deny rules keep from the agents, as gitignore patterns, so grep and glob of
 * the whole workspace skip them too. `./x` (anchored at the root) becomes `/x`; absolute patterns lie outside.
 */
export function hiddenByDenyRules(config: MurmurConfig): string[] {
  const rules = parseRuleLists(config.permissions).deny;
  return rules
    .filter(
      (rule) =>
        rule.tool === 'read' &&
        rule.argumentKind === 'path' &&
        rule.argument !== undefined &&
        !rule.argument.startsWith('/'),
    )
    .map((rule) => (rule.argument!.startsWith('./') ? `/${rule.argument!.replace(/^(\.\/)+/, '')}` : rule.argument!));
}
