// Which files an item's agent changed, when that can be told from its tool calls alone: every call was a built-in
// that only reads or looks things up, or one that writes the file its path names (write, edit). Then the merge and
// the worktree's reset touch those files only; a shell, an MCP tool, a subagent or anything else may have changed
// any file, and git's own scan of the worktree decides instead.
import type { Message } from '../orchestrator/types.js';
import { builtinToolsWhere } from '../tools/builtin-traits.js';
import { changedPaths } from './changes.js';

/** Tools whose every effect on the files is known: none (they read or keep a list), or the path they name. */
const KNOWN_EFFECT = new Set([
  ...builtinToolsWhere((traits) => traits.readOnly === true || traits.writesPath === true),
  // The typed answer's tool (its traits live with the engine): it changes no file.
  'final_answer',
]);

/** The files (absolute) the agent's calls changed, or undefined when a call may have changed others. */
export function filesTouchedByTools(messages: readonly Message[], root: string): string[] | undefined {
  for (const m of messages) {
    if (m.role === 'assistant' && m.toolCalls.some((call) => !KNOWN_EFFECT.has(call.name))) return undefined;
    if (m.role === 'tool' && !KNOWN_EFFECT.has(m.toolName)) return undefined;
  }
  return changedPaths(messages, root);
}
