// What a worker changed, as text for its verifier: the files its write and edit calls touched (from their
// results' details), shown as a git diff in a repository, else as the edit results the worker saw.
import { relative, resolve } from 'node:path';
import type { Message } from '../orchestrator/types.js';
import { isRecord } from '../tools/util/is-record.js';
import { git } from './git.js';

const MAX_CHANGES_CHARS = 40_000;

/** The tools that change files: each reports the file it changed as `details.path`, as it showed it to the model. */
const FILE_CHANGING_TOOLS: ReadonlySet<string> = new Set(['write', 'edit']);

/** Paths (absolute) that the agent's successful write and edit calls changed, read from their results' details. */
export function changedPaths(messages: readonly Message[], root: string): string[] {
  const paths = new Set<string>();
  for (const m of messages) {
    if (m.role !== 'tool' || m.isError || !FILE_CHANGING_TOOLS.has(m.toolName)) continue;
    const file = isRecord(m.details) ? m.details.path : undefined;
    if (typeof file === 'string') paths.add(resolve(root, file));
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
  return text.length > MAX_CHANGES_CHARS
    ? `${text.slice(0, MAX_CHANGES_CHARS)}\n… (cut at ${MAX_CHANGES_CHARS} characters; read the files for the rest)`
    : text;
}

/**
 * `base` is the commit the worker started from (a swarm worktree): its own commits are part of its changes, so
 * the diff runs from there rather than from HEAD.
 */
export async function describeChanges(
  messages: readonly Message[],
  root: string,
  inRepo: boolean,
  base = 'HEAD',
): Promise<string> {
  const paths = changedPaths(messages, root);
  if (paths.length === 0)
    return 'The worker changed no files with write or edit (it may have used bash; check the workspace).';
  const header = `Files changed: ${paths.map((p) => relative(root, p) || p).join(', ')}`;
  if (inRepo) {
    const tracked = await git(root, ['diff', '--no-color', base, '--', ...paths]);
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
