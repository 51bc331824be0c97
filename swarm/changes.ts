// What a worker changed, as text for its verifier: the files its write and edit calls touched, shown as a
// git diff in a repository, else as the edit results the worker saw.
import { relative, resolve } from 'node:path';
import type { Message, ToolResultMessage } from '../orchestrator/types.js';
import { git } from './git.js';

const MAX_CHANGES_CHARS = 40_000;

/** Paths (absolute) that the agent's successful write and edit calls named. */
export function changedPaths(messages: readonly Message[], root: string): string[] {
  const results = new Map<string, ToolResultMessage>();
  for (const m of messages) if (m.role === 'tool') results.set(m.toolCallId, m);
  const paths = new Set<string>();
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const call of m.toolCalls) {
      if (call.name !== 'write' && call.name !== 'edit') continue;
      if (results.get(call.id)?.isError !== false) continue;
      try {
        const args = JSON.parse(call.arguments) as { path?: unknown };
        if (typeof args.path === 'string') paths.add(resolve(root, args.path));
      } catch {
        // Arguments that were not JSON were refused before running: nothing changed.
      }
    }
  }
  return [...paths];
}

function editResults(messages: readonly Message[]): string {
  const out: string[] = [];
  for (const m of messages) {
    if (m.role === 'tool' && !m.isError && (m.toolName === 'edit' || m.toolName === 'write')) {
      for (const block of m.content) if (block.type === 'text') out.push(block.text);
    }
  }
  return out.join('\n\n');
}

function cap(text: string): string {
  return text.length > MAX_CHANGES_CHARS ? `${text.slice(0, MAX_CHANGES_CHARS)}\n… (cut at ${MAX_CHANGES_CHARS} characters; read the files for the rest)` : text;
}

export async function describeChanges(messages: readonly Message[], root: string, inRepo: boolean): Promise<string> {
  const paths = changedPaths(messages, root);
  if (paths.length === 0) return 'The worker changed no files with write or edit (it may have used bash; check the workspace).';
  const header = `Files changed: ${paths.map((p) => relative(root, p) || p).join(', ')}`;
  if (inRepo) {
    const tracked = await git(root, ['diff', '--no-color', 'HEAD', '--', ...paths]);
    const untracked = await git(root, ['ls-files', '--others', '--exclude-standard', '--', ...paths]);
    const parts = [tracked.stdout];
    for (const file of untracked.stdout.split('\n').filter(Boolean)) {
      const diff = await git(root, ['diff', '--no-color', '--no-index', '--', '/dev/null', file]);
      parts.push(diff.stdout);
    }
    const diff = parts.join('\n').trim();
    if (diff) return cap(`${header}\n\n${diff}`);
  }
  return cap(`${header}\n\n${editResults(messages)}`);
}
