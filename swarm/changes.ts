// What a worker changed, as text for its verifier: the files its write and edit calls touched, shown as a
// git diff in a repository, else as the edit results the worker saw.
import { relative, resolve } from 'node:path';
import type { Message, ToolResultMessage } from '../orchestrator/types.js';
import type { RuntimeTool } from '../tools/contract.js';
import { editTool } from '../tools/fs/edit.js';
import { writeTool } from '../tools/fs/write.js';
import { isRecord } from '../tools/util/is-record.js';
import { git } from './git.js';

const MAX_CHANGES_CHARS = 40_000;

/** The tools that change files, by name: their own argument preparation knows every name a path may come under. */
const FILE_CHANGING_TOOLS: ReadonlyMap<string, RuntimeTool> = new Map<string, RuntimeTool>([
  [writeTool.def.name, writeTool],
  [editTool.def.name, editTool],
]);

/** The path a write or edit call named, read the way the tool reads it (`path`, or the legacy `file_path`). */
function pathArgument(tool: RuntimeTool, rawArguments: string): string | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(rawArguments);
  } catch {
    // Arguments that were not JSON were refused before running: nothing changed.
    return undefined;
  }
  const prepared = tool.def.prepareArguments ? tool.def.prepareArguments(raw) : raw;
  return isRecord(prepared) && typeof prepared.path === 'string' ? prepared.path : undefined;
}

/** Paths (absolute) that the agent's successful write and edit calls named. */
export function changedPaths(messages: readonly Message[], root: string): string[] {
  const results = new Map<string, ToolResultMessage>();
  for (const m of messages) if (m.role === 'tool') results.set(m.toolCallId, m);
  const paths = new Set<string>();
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const call of m.toolCalls) {
      const tool = FILE_CHANGING_TOOLS.get(call.name);
      if (!tool) continue;
      if (results.get(call.id)?.isError !== false) continue;
      const file = pathArgument(tool, call.arguments);
      if (file !== undefined) paths.add(resolve(root, file));
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

/**
 * `base` is the commit the worker started from (a swarm worktree): its own commits are part of its changes, so
 * the diff runs from there rather than from HEAD.
 */
export async function describeChanges(messages: readonly Message[], root: string, inRepo: boolean, base = 'HEAD'): Promise<string> {
  const paths = changedPaths(messages, root);
  if (paths.length === 0) return 'The worker changed no files with write or edit (it may have used bash; check the workspace).';
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
